import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { FleetAgentOutputs, StackOutputs } from "../lib/stack-outputs";
import { selfSignedCertificate } from "./certificate";
import { breakLinks } from "./breaks";
import { Faults, type BrokenLink, type FaultConfig } from "./faults";
import { requestPipeline } from "./pipeline";
import type { RequestRecord } from "./pipeline/respond";
import type { EmulatorContext } from "./router";
import { DEFAULT_IDS, fleetTenant } from "./seed";
import { SigningKey } from "./signing-key";
import { TenantStore, type TenantSeed } from "./store";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../lib/entra-rules";

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
  close(): Promise<void>;
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

/** Starts the emulated tenant on loopback, over HTTP and HTTPS. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const store = new TenantStore(options.tenant ?? fleetTenant(options.agents ?? 1));
  // A tenant seeded with several agents describes a fleet; agents added later (tests) do not change its outputs' shape.
  const fleet = tenantOutputs(store, "", true).agents !== undefined;
  // The outputs `pulumi up` wrote before the links broke: what a person holds when the tenant drifts.
  const before = options.breaks?.length ? tenantOutputs(store, "", fleet) : undefined;
  if (options.breaks?.length) breakLinks(store, options.breaks);
  if (options.provisionerRoles) store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles: [...options.provisionerRoles] });
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
    outputs: (scheme = "http") => {
      const baseUrl = scheme === "http" ? httpUrl : httpsUrl;
      return before ? { ...structuredClone(before), authorityUrl: baseUrl, graphUrl: baseUrl } : tenantOutputs(store, baseUrl, fleet);
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
 * `agents` map (each agent named by its agent user's mail nickname).
 */
export function tenantOutputs(store: TenantStore, baseUrl: string, fleet: boolean): StackOutputs {
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
    agents.push({ name: user.mailNickname, agentIdentityId: identity.id, agentUserId: user.id, agentUserPrincipalName: user.userPrincipalName, grantId: grant?.id, grantScopes: grant?.scope });
  }
  const first = agents[0];
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
    ...(fleet && agents.length > 1 ? { agents: Object.fromEntries(agents.map(({ name, ...agent }) => [name, agent])) } : {}),
  };
}
