import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { AppRoleOutputs, FleetAgentOutputs, StackOutputs } from "../lib/stack-outputs";
import { selfSignedCertificate } from "./certificate";
import { breakLinks } from "./breaks";
import { Faults, type BrokenLink, type FaultConfig } from "./faults";
import { requestPipeline } from "./pipeline";
import type { RequestRecord } from "./pipeline/respond";
import type { EmulatorContext } from "./router";
import { DEFAULT_IDS, fleetTenant, PROVISIONER_ROLES } from "./seed";
import { withTestPassword } from "./seed-flows";
import { SigningKey } from "./signing-key";
import { TenantStore, type TenantSeed } from "./store";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../lib/entra-rules";
import { FEATURE_PERMISSIONS, type Feature } from "../lib/graph-permissions";

export interface EmulatorOptions {
  /** HTTP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** HTTPS port on 127.0.0.1; 0 (the default) picks a free one. */
  httpsPort?: number;
  /** The tenant to serve; the built-in default tenant when absent. */
  tenant?: TenantSeed;
  faults?: Partial<FaultConfig>;
  replicationLagMs?: number;
  /** How long new objects stay out of Graph's lists. */
  listLagMs?: number;
  /** Seed the default tenant with this many agents under its blueprint (`--agents N`); 1 by default. */
  agents?: number;
  /** Links of the seeded chain to break (`--faults break=LINK`); the outputs stay those of the chain before. */
  breaks?: readonly BrokenLink[];
  /** The tenant's policy refuses passwords and certificates on blueprints (`--refuse-blueprint-secrets`). */
  refuseBlueprintSecrets?: boolean;
  /** The built-in provisioner's Graph application permissions (`--provisioner-roles`); the kit's set and the check reads by default. */
  provisionerRoles?: readonly string[];
  /**
   * The opt-in features of the stack the tenant stands for (`--features`): the
   * provisioner also holds their permissions, and the outputs declare them
   * (the seeded agent's app roles; the blueprint's exposed API and the
   * agent's delegated consent to act for people).
   */
  features?: readonly Feature[];
  /**
   * TEST ONLY: the tenant's first person gets a fresh password, so that the
   * test-only password grant signs them in (`--test-user-out`). The
   * onBehalfOf feature asks for that person too. Otherwise no seeded person
   * has a password, and a password sign-in is refused as Entra refuses an
   * account without one.
   */
  testUser?: boolean;
}

export interface Emulator {
  readonly httpUrl: string;
  readonly httpsUrl: string;
  /** The self-signed certificate of the HTTPS listener. */
  readonly caPem: string;
  readonly store: TenantStore;
  readonly faults: Faults;
  readonly key: SigningKey;
  readonly requests: RequestRecord[];
  /** The provisioner application's credential (ARM_* for doctor, preflight and the Pulumi providers); undefined when the tenant has none. */
  provisioner(): ProvisionerSecret | undefined;
  /** The seeded tenant as stack outputs, with URLs on `scheme`. */
  outputs(scheme?: "http" | "https"): StackOutputs;
  /** TEST ONLY: the seeded person who signs in with a password, the public client they sign in through, and the blueprint scope to ask for. */
  testUser(): TestUser | undefined;
  close(): Promise<void>;
}

/** What the test-only password grant needs to sign the seeded person in, for a token whose audience is the blueprint. */
export interface TestUser {
  tenantId: string;
  clientId: string;
  username: string;
  password: string;
  /** `{identifier URI}/{scope}` of the seeded blueprint's exposed API. */
  scope: string;
}

/** The first user with a password, the first public client, and the first blueprint's exposed API. */
function testUserOf(store: TenantStore): TestUser | undefined {
  const user = store.users("user").find((u) => u.password !== undefined);
  const client = store.applications("application").find((a) => a.publicClient);
  const blueprint = store.applications("agentIdentityBlueprint").find((a) => a.identifierUris?.length && a.api?.oauth2PermissionScopes.length);
  if (!user?.password || !client || !blueprint) return undefined;
  return { tenantId: store.tenantId, clientId: client.appId, username: user.userPrincipalName, password: user.password, scope: `${blueprint.identifierUris![0]}/${blueprint.api!.oauth2PermissionScopes[0]!.value}` };
}

export interface ProvisionerSecret {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** The first plain application with a secret whose service principal holds Graph application permissions. */
function provisionerOf(store: TenantStore): ProvisionerSecret | undefined {
  for (const app of store.applications("application")) {
    const secret = app.passwordCredentials[0]?.secretText;
    if (!secret) continue;
    if ((store.servicePrincipalByAppId(app.appId)?.graphAppRoles.length ?? 0) > 0) return { tenantId: store.tenantId, clientId: app.appId, clientSecret: secret };
  }
  return undefined;
}

/** Whether a start asks for a person who signs in by password: a test's own sign-in, or the on-behalf-of flow, whose every token is for a person. */
export function asksForPerson(options: Pick<EmulatorOptions, "testUser" | "features">): boolean {
  return options.testUser === true || (options.features ?? []).includes("onBehalfOf");
}

/** Starts the emulated tenant on loopback, over HTTP and HTTPS. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const seed = options.tenant ?? fleetTenant(options.agents ?? 1);
  const store = new TenantStore(asksForPerson(options) ? withTestPassword(seed) : seed);
  const features = options.features ?? [];
  // A tenant seeded with several agents describes a fleet; agents added later (tests) do not change its outputs' shape.
  const fleet = tenantOutputs(store, "", true).agents !== undefined;
  // The outputs `pulumi up` wrote before the links broke: what a person holds when the tenant drifts.
  const before = options.breaks?.length ? tenantOutputs(store, "", fleet, features) : undefined;
  if (options.breaks?.length) breakLinks(store, options.breaks);
  if (options.provisionerRoles || features.length > 0) {
    const roles = [...(options.provisionerRoles ?? PROVISIONER_ROLES), ...features.flatMap((f) => FEATURE_PERMISSIONS[f])];
    store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles: [...new Set(roles)] });
  }
  store.replicationLagMs = options.replicationLagMs ?? 0;
  store.listLagMs = options.listLagMs ?? 0;
  store.blueprintSecretsRefused = options.refuseBlueprintSecrets ?? false;
  const faults = new Faults();
  if (options.faults) faults.set(options.faults);
  const key = new SigningKey();
  const tls = selfSignedCertificate({ commonName: "agent-user-kit emulator", hosts: ["localhost", "127.0.0.1"] });
  const requests: RequestRecord[] = [];
  const origins: string[] = [];
  const ctx: EmulatorContext = { store, key, faults, origins };
  const listener = requestPipeline({ ctx, requests });
  const http = createHttpServer(listener("http"));
  const https = createHttpsServer({ key: tls.privateKeyPem, cert: tls.certificatePem }, listener("https"));
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
  const httpPort = await listen(http, options.port ?? 0);
  // A busy HTTPS port must not leave the HTTP listener open behind the error.
  const httpsPort = await listen(https, options.httpsPort ?? 0).catch(async (err: unknown) => {
    await new Promise((closed) => http.close(closed));
    throw err;
  });
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const httpsUrl = `https://127.0.0.1:${httpsPort}`;
  origins.push(httpUrl, `http://localhost:${httpPort}`, httpsUrl, `https://localhost:${httpsPort}`);

  return {
    httpUrl,
    httpsUrl,
    caPem: tls.certificatePem,
    store,
    faults,
    key,
    requests,
    provisioner: () => provisionerOf(store),
    testUser: () => testUserOf(store),
    outputs: (scheme = "http") => {
      const baseUrl = scheme === "http" ? httpUrl : httpsUrl;
      return before ? { ...structuredClone(before), authorityUrl: baseUrl, graphUrl: baseUrl } : tenantOutputs(store, baseUrl, fleet, features);
    },
    close: async () => {
      for (const server of [http, https]) server.closeAllConnections();
      await Promise.all([http, https].map((s) => new Promise((r) => s.close(r))));
    },
  };
}

/**
 * The stack outputs `pulumi up` would print for this tenant's first blueprint:
 * the top-level agent keys for its first agent and, when it has several, the
 * `agents` map (each agent named by its agent user's mail nickname); and
 * what the stack's opt-in `features` declare.
 */
export function tenantOutputs(store: TenantStore, baseUrl: string, fleet: boolean, features: readonly Feature[] = []): StackOutputs {
  const outputs: StackOutputs = { tenantId: store.tenantId, authorityUrl: baseUrl, graphUrl: baseUrl, resourceUrl: PUBLIC_CLOUD.resourceUrl };
  const blueprint = store.applications("agentIdentityBlueprint")[0];
  if (!blueprint) return outputs;
  const principal = store.servicePrincipalByAppId(blueprint.appId);
  const graph = store.servicePrincipalByAppId(MICROSOFT_GRAPH_APP_ID);
  const agents: Array<{ name: string } & FleetAgentOutputs> = [];
  for (const identity of store.agentIdentitiesOf(blueprint.appId)) {
    const user = store.agentUserOf(identity.id);
    if (!user) continue;
    const grant = store.grantFor(identity.id, user.id, graph?.id);
    // The identity's consent to act for people: for every user, or for a person who is not its agent user.
    const obo = features.includes("onBehalfOf") ? store.grants().find((g) => g.clientId === identity.id && g.resourceId === graph?.id && g.principalId !== user.id) : undefined;
    const appRoles = features.includes("appRoles") ? appRolesOf(store, identity.id) : [];
    agents.push({
      name: user.mailNickname,
      agentIdentityId: identity.id,
      agentUserId: user.id,
      agentUserPrincipalName: user.userPrincipalName,
      grantId: grant?.id,
      grantScopes: grant?.scope,
      ...(appRoles.length > 0 ? { appRoles } : {}),
      ...(obo ? { onBehalfOfGrantId: obo.id, onBehalfOfScopes: obo.scope } : {}),
    });
  }
  const first = agents[0];
  const exposed = features.includes("onBehalfOf") && blueprint.identifierUris?.[0] !== undefined ? blueprint.api?.oauth2PermissionScopes[0]?.value : undefined;
  return {
    ...outputs,
    blueprintAppId: blueprint.appId,
    blueprintObjectId: blueprint.id,
    blueprintPrincipalId: principal?.id,
    blueprintClientSecret: blueprint.passwordCredentials[0]?.secretText,
    managedIdentityClientId: store.managedIdentities[0]?.clientId,
    agentIdentityId: first?.agentIdentityId,
    agentUserId: first?.agentUserId,
    agentUserPrincipalName: first?.agentUserPrincipalName,
    grantId: first?.grantId,
    grantScopes: first?.grantScopes,
    ...(exposed !== undefined ? { blueprintIdentifierUri: blueprint.identifierUris![0], blueprintScope: exposed } : {}),
    ...(first?.appRoles ? { appRoles: first.appRoles } : {}),
    ...(first?.onBehalfOfGrantId ? { onBehalfOfGrantId: first.onBehalfOfGrantId, onBehalfOfScopes: first.onBehalfOfScopes } : {}),
    ...(fleet && agents.length > 1 ? { agents: Object.fromEntries(agents.map(({ name, ...agent }) => [name, agent])) } : {}),
  };
}

/** The app roles an agent identity holds, grouped by the resource API's appId, as the stack outputs list them. */
function appRolesOf(store: TenantStore, identityId: string): AppRoleOutputs[] {
  const byResource = new Map<string, string[]>();
  for (const a of store.appRoleAssignments.of("principalId", identityId)) {
    const resource = store.servicePrincipal(a.resourceId);
    const value = resource?.appRoles?.find((r) => r.id === a.appRoleId)?.value;
    if (!resource || value === undefined) continue;
    byResource.set(resource.appId, [...(byResource.get(resource.appId) ?? []), value]);
  }
  return [...byResource].map(([resource, roles]) => ({ resource, roles }));
}
