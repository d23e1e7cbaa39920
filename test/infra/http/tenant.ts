/**
 * The dynamic providers against a real emulator over HTTP: a bare tenant (what
 * exists before `pulumi up`), the provisioner's credential in ARM_* as on a CI
 * runner, and helpers that run each provider's `check` then `create`, as the
 * Pulumi engine does.
 */
import { randomUUID } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { bareTenant, DEFAULT_IDS, password } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { GraphClient } from "../../../lib/graph-client";
import { agentIdentityProvider, type AgentIdentityInputs, type AgentIdentityOutputs } from "../../../infra/providers/agent-identity";
import { agentUserProvider, type AgentUserInputs, type AgentUserOutputs } from "../../../infra/providers/agent-user";
import { blueprintProvider, type BlueprintInputs, type BlueprintOutputs } from "../../../infra/providers/blueprint";
import {
  blueprintPrincipalProvider,
  type BlueprintPrincipalInputs,
  type BlueprintPrincipalOutputs,
} from "../../../infra/providers/blueprint-principal";
import { findByUpn } from "../../../infra/providers/agent-user";
import { findByTag } from "../../../infra/providers/blueprint";
import { postOnce, type Clock } from "../../../infra/providers/graph-ops";
import type { GraphResourceInputs } from "../../../infra/providers/inputs";
import { AGENT_USERS, BLUEPRINTS } from "../../../lib/graph-paths";
import { sponsorBinds } from "../../../infra/providers/sponsors";
import { provisionerToken } from "../../../infra/provisioner-credential";
import { requestToken, tokenEndpoint } from "../../../lib/token-client";
import { forgetProvisioner } from "../../provisioner-state";
import { PACKAGE_VERSION as PROVIDER_VERSION } from "../../../lib/version";

export { DEFAULT_IDS };

/** A second person in the tenant, so sponsor changes have somewhere to go. */
export const SECOND_SPONSOR = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e";
export const DOMAIN = DEFAULT_IDS.domain;

export interface Tenant {
  emulator: Emulator;
  /** The inputs every Graph resource shares, pointed at the emulator. */
  common: GraphResourceInputs;
  /** Graph as the provisioner, for what the test does itself (the grant, the blueprint secret). */
  graph: GraphClient;
  close(): Promise<void>;
}

/** Starts a bare tenant and points the ARM_* variables at its provisioner application. */
export async function startTenant(): Promise<Tenant> {
  const seed = bareTenant();
  seed.users.push({ id: SECOND_SPONSOR, kind: "user", displayName: "Grace Sponsor", userPrincipalName: `grace@${DOMAIN}`, mailNickname: "grace", accountEnabled: true });
  const emulator = await startEmulator({ tenant: seed });
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (key.startsWith("ARM_")) delete process.env[key];
  Object.assign(process.env, {
    ARM_TENANT_ID: seed.tenantId,
    ARM_CLIENT_ID: DEFAULT_IDS.provisionerAppId,
    ARM_CLIENT_SECRET: seed.applications[0]!.passwordCredentials[0]!.secretText,
  });
  forgetProvisioner();
  const common = { graphUrl: emulator.httpUrl, authorityUrl: emulator.httpUrl, consistencyWindowMs: 0, providerVersion: PROVIDER_VERSION };
  return {
    emulator,
    common,
    graph: new GraphClient({ baseUrl: emulator.httpUrl, getToken: () => provisionerToken(emulator.httpUrl, emulator.httpUrl) }),
    close: async () => {
      process.env = saved;
      forgetProvisioner();
      await emulator.close();
    },
  };
}

/** Another application of the tenant: its appId, its principal's object id, and Graph as it. */
export interface OtherApp {
  appId: string;
  principalId: string;
  graph: GraphClient;
}

/**
 * Registers another application in the tenant holding only `roles`, as an
 * admin would consent them, and answers Graph as that application (a real
 * client-credentials token from the emulator): what plants objects the
 * provisioner must not adopt.
 */
export function otherApp(t: Tenant, roles: string[], name = "Another app"): OtherApp {
  const [appId, principalId] = [randomUUID(), randomUUID()];
  const secret = password("planter");
  const { store } = t.emulator;
  store.createApplication({ id: randomUUID(), appId, kind: "application", displayName: name, sponsors: [], owners: [], passwordCredentials: [secret], keyCredentials: [], federatedIdentityCredentials: [], createdAt: 0 });
  store.createServicePrincipal({ id: principalId, appId, kind: "servicePrincipal", displayName: name, servicePrincipalType: "Application", servicePrincipalNames: [appId], sponsors: [], graphAppRoles: roles, createdAt: 0 });
  const endpoint = tokenEndpoint(t.emulator.httpUrl, store.tenantId);
  const params = { grant_type: "client_credentials", client_id: appId, client_secret: secret.secretText, scope: `${t.emulator.httpUrl}/.default` };
  return { appId, principalId, graph: new GraphClient({ baseUrl: t.emulator.httpUrl, getToken: async () => (await requestToken("other app", endpoint, params)).response.access_token }) };
}

/** Takes an application permission away from the provisioner; its next token lacks it. */
export function revoke(tenant: Tenant, role: string): void {
  setProvisionerRoles(tenant, provisionerRoles(tenant).filter((r) => r !== role));
}

/** The Graph application permissions the provisioner holds now. */
export function provisionerRoles(tenant: Tenant): string[] {
  return [...tenant.emulator.store.servicePrincipal(DEFAULT_IDS.provisionerPrincipalId)!.graphAppRoles];
}

/** Gives the provisioner exactly these application permissions; its next token carries them. */
export function setProvisionerRoles(tenant: Tenant, graphAppRoles: string[]): void {
  tenant.emulator.store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles });
  forgetProvisioner();
}

/** `check`, which must pass, then the checked inputs: what the engine hands to create and diff. */
async function checked<T>(provider: pulumi.dynamic.ResourceProvider, news: Record<string, unknown>): Promise<T> {
  const { inputs, failures } = await provider.check!({}, news);
  expect(failures).toEqual([]);
  return inputs as T;
}

export function blueprintInputs(t: Tenant, patch: Partial<BlueprintInputs> = {}): Promise<BlueprintInputs> {
  return checked(blueprintProvider, {
    ...t.common,
    displayName: "Research agent blueprint",
    sponsors: [DEFAULT_IDS.sponsorId],
    adoptionTag: `agent-user-kit:test/dev/${randomUUID()}`,
    ...patch,
  });
}

export function principalInputs(t: Tenant, blueprint: BlueprintOutputs, patch: Partial<BlueprintPrincipalInputs> = {}): Promise<BlueprintPrincipalInputs> {
  return checked(blueprintPrincipalProvider, { ...t.common, appId: blueprint.appId, blueprintObjectId: blueprint.objectId, ...patch });
}

export function identityInputs(
  t: Tenant,
  blueprint: BlueprintOutputs,
  principal: BlueprintPrincipalOutputs,
  patch: Partial<AgentIdentityInputs> = {},
): Promise<AgentIdentityInputs> {
  return checked(agentIdentityProvider, {
    ...t.common,
    displayName: "Research agent",
    blueprintAppId: blueprint.appId,
    blueprintPrincipalId: principal.principalId,
    sponsors: [DEFAULT_IDS.sponsorId],
    ...patch,
  });
}

export function userInputs(t: Tenant, identity: AgentIdentityOutputs, patch: Partial<AgentUserInputs> = {}): Promise<AgentUserInputs> {
  const nickname = `agent-${identity.identityId.slice(0, 8)}`;
  return checked(agentUserProvider, {
    ...t.common,
    displayName: "Research agent",
    mailNickname: nickname,
    userPrincipalName: `${nickname}@${DOMAIN}`,
    identityParentId: identity.identityId,
    ...patch,
  });
}

export async function createBlueprint(t: Tenant, patch: Partial<BlueprintInputs> = {}): Promise<BlueprintOutputs> {
  return (await blueprintProvider.create!(await blueprintInputs(t, patch))).outs as BlueprintOutputs;
}

export async function createPrincipal(t: Tenant, blueprint: BlueprintOutputs): Promise<BlueprintPrincipalOutputs> {
  return (await blueprintPrincipalProvider.create!(await principalInputs(t, blueprint))).outs as BlueprintPrincipalOutputs;
}

export async function createIdentity(t: Tenant, blueprint: BlueprintOutputs, principal: BlueprintPrincipalOutputs): Promise<AgentIdentityOutputs> {
  return (await agentIdentityProvider.create!(await identityInputs(t, blueprint, principal))).outs as AgentIdentityOutputs;
}

export async function createUser(t: Tenant, identity: AgentIdentityOutputs): Promise<AgentUserOutputs> {
  return (await agentUserProvider.create!(await userInputs(t, identity))).outs as AgentUserOutputs;
}

/** Blueprint, principal and agent identity, made by the providers: the parents an agent user needs. */
export async function createIdentityChain(t: Tenant) {
  const blueprint = await createBlueprint(t);
  const principal = await createPrincipal(t, blueprint);
  const identity = await createIdentity(t, blueprint, principal);
  return { blueprint, principal, identity };
}

/** Requests the emulator saw on its Graph surface since `from`, as "METHOD path status". */
export function graphCalls(t: Tenant, from = 0): string[] {
  return t.emulator.requests
    .slice(from)
    .filter((r) => r.surface === "graph")
    .map((r) => `${r.method} ${r.path} ${r.status}${r.lost ? " lost" : ""}`);
}

/**
 * A clock that moves only when the code under test waits on it, from now on;
 * the emulator's store reads it too, so its lags pass as the provider waits.
 */
export function waitDrivenClock(t: Tenant): Clock {
  let now = Date.now();
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  t.emulator.store.now = clock.now;
  return clock;
}

/** The lookup and the POST a blueprint's create hands createOrAdopt, as its provider makes them. */
export function blueprintSteps(inputs: BlueprintInputs) {
  return {
    lookup: (graph: GraphClient) => findByTag(graph, inputs.adoptionTag, DEFAULT_IDS.provisionerAppId),
    create: (graph: GraphClient) =>
      postOnce<{ id: string }>(graph, BLUEPRINTS, {
        displayName: inputs.displayName,
        tags: [inputs.adoptionTag],
        "sponsors@odata.bind": sponsorBinds(inputs.graphUrl, inputs.sponsors),
      }),
  };
}

/** The lookup and the POST an agent user's create hands createOrAdopt, as its provider makes them. */
export function agentUserSteps(inputs: AgentUserInputs) {
  const { displayName, mailNickname, userPrincipalName, identityParentId } = inputs;
  return {
    lookup: (graph: GraphClient) => findByUpn(graph, inputs, DEFAULT_IDS.provisionerAppId),
    create: (graph: GraphClient) =>
      postOnce<{ id: string }>(graph, AGENT_USERS, { accountEnabled: true, displayName, mailNickname, userPrincipalName, identityParentId }),
  };
}
