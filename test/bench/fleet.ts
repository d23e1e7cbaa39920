import { randomUUID } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { Agent } from "undici";
import { agentEntries, bareTenant, DEFAULT_IDS, SEEDED_GRANT_SCOPES, defaultTenant } from "../../emulator/seed";
import { startEmulator, type Emulator } from "../../emulator/server";
import { agentIdentityProvider, type AgentIdentityOutputs } from "../../infra/providers/agent-identity";
import { agentUserProvider, type AgentUserOutputs } from "../../infra/providers/agent-user";
import { blueprintProvider, type BlueprintOutputs } from "../../infra/providers/blueprint";
import { blueprintPrincipalProvider, type BlueprintPrincipalOutputs } from "../../infra/providers/blueprint-principal";
import { provisionerToken } from "../../infra/provisioner-credential";
import { forgetProvisioner } from "../provisioner-state";
import { GraphClient } from "../../lib/graph-client";
import { EXPIRY_MARGIN_MS } from "../../lib/token-cache";
import { AgentUserTokenProvider } from "../../lib/token-provider";
import { PACKAGE_VERSION } from "../../lib/version";
import { mapLimit } from "../../probes/map-limit";
import { AUTHORITY, emulatorConnector } from "./transport";
import type { TokenClient } from "./workload";
import { GRAPH, guid, type AgentPair } from "./tenant";

/*
 * Fleet figures: how close provisioning and minting for many agents come to
 * the floor the tenant's throttling sets (requests made / allowed rate), with
 * the emulator's rate limits shaped like Entra's and Graph's. The bench runs
 * them at full size; test/e2e/fleet-bench.test.ts runs them small.
 */

export interface ProvisionFigures {
  agents: number;
  ms: number;
  /** Graph requests that did work (answered other than 429) / the allowed rate. */
  floorMs: number;
  graphRequests: number;
  throttled: number;
  failures: number;
  /** Agent identities or agent users made twice for one agent. */
  duplicates: number;
}

/** `check`, then the checked inputs, as the engine hands them to create. */
async function checked(provider: pulumi.dynamic.ResourceProvider, news: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { inputs, failures } = await provider.check!({}, news);
  if (failures && failures.length > 0) throw new Error(`bench: check refused ${JSON.stringify(failures)}`);
  return inputs as Record<string, unknown>;
}

async function create<T>(provider: pulumi.dynamic.ResourceProvider, news: Record<string, unknown>): Promise<T> {
  return (await provider.create!(await checked(provider, news))).outs as T;
}

/**
 * `count` agents (agent identity, agent user, and the grant as the azuread
 * provider makes it: a POST to oauth2PermissionGrants) through the dynamic
 * providers' create path, `concurrency` at a time as `pulumi up --parallel`
 * runs them, against a bare tenant whose Graph takes `graphRate` requests a
 * second from the provisioner. The blueprint and its principal are made
 * first, untimed.
 */
export async function provisionFleet(count: number, concurrency: number, graphRate: number): Promise<ProvisionFigures> {
  const seed = bareTenant();
  const emulator = await startEmulator({ tenant: seed, faults: { graphRate } });
  const p = emulator.provisioner()!;
  const saved = { ...process.env };
  Object.assign(process.env, { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret });
  forgetProvisioner();
  try {
    const common = { graphUrl: emulator.httpUrl, authorityUrl: emulator.httpUrl, consistencyWindowMs: 0, providerVersion: PACKAGE_VERSION };
    const sponsors = [DEFAULT_IDS.sponsorId];
    const blueprint = await create<BlueprintOutputs>(blueprintProvider, { ...common, displayName: "Fleet blueprint", sponsors, adoptionTag: `agent-user-kit:bench/${randomUUID()}` });
    const principal = await create<BlueprintPrincipalOutputs>(blueprintPrincipalProvider, { ...common, appId: blueprint.appId, blueprintObjectId: blueprint.objectId });
    const graph = new GraphClient({ baseUrl: emulator.httpUrl, getToken: () => provisionerToken(emulator.httpUrl, emulator.httpUrl) });

    const from = emulator.requests.length;
    let failures = 0;
    const started = performance.now();
    await mapLimit(
      Array.from({ length: count }, (_, i) => i),
      concurrency,
      async (i) => {
        try {
          const identity = await create<AgentIdentityOutputs>(agentIdentityProvider, {
            ...common,
            displayName: `Fleet agent ${i}`,
            blueprintAppId: blueprint.appId,
            blueprintPrincipalId: principal.principalId,
            sponsors,
          });
          const user = await create<AgentUserOutputs>(agentUserProvider, {
            ...common,
            displayName: `Fleet agent ${i}`,
            mailNickname: `fleet-agent-${i}`,
            userPrincipalName: `fleet-agent-${i}@${DEFAULT_IDS.domain}`,
            identityParentId: identity.identityId,
          });
          await graph.call("POST", "/v1.0/oauth2PermissionGrants", {
            body: { clientId: identity.identityId, consentType: "Principal", principalId: user.userId, resourceId: DEFAULT_IDS.graphPrincipalId, scope: SEEDED_GRANT_SCOPES },
          });
        } catch (err) {
          failures++;
          if (failures === 1) process.stderr.write(`bench: first provisioning failure: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      },
    );
    const ms = performance.now() - started;
    const seen = emulator.requests.slice(from).filter((r) => r.surface === "graph");
    const throttled = seen.filter((r) => r.status === 429).length;
    const graphRequests = seen.length - throttled;
    return { agents: count, ms, floorMs: (graphRequests / graphRate) * 1000, graphRequests, throttled, failures, duplicates: duplicatesIn(emulator) };
  } finally {
    process.env = saved;
    forgetProvisioner();
    await emulator.close();
  }
}

/** Objects beyond one per agent name: what a create that was not "at most once" leaves behind. */
function duplicatesIn(emulator: Emulator): number {
  const identities = emulator.store.servicePrincipals("agentIdentity").map((p) => p.displayName);
  const users = emulator.store.users("agentUser").map((u) => u.userPrincipalName.toLowerCase());
  return identities.length - new Set(identities).size + (users.length - new Set(users).size);
}

/** A tenant of `identities` agent identities under the default blueprint, each with `usersEach` agent users and their Graph grants. */
function benchFleetTenant(identities: number, usersEach: number): { seed: ReturnType<typeof defaultTenant>; pairs: AgentPair[] } {
  const seed = defaultTenant();
  const pairs: AgentPair[] = [];
  for (let i = 0; i < identities; i++) {
    const identity = guid("f1000000", i);
    for (let j = 0; j < usersEach; j++) {
      const n = i * usersEach + j;
      const entries = agentEntries({
        identityId: identity,
        userId: guid("f2000000", n),
        displayName: `Fleet agent ${n}`,
        userPrincipalName: `fleet-agent-${n}@${DEFAULT_IDS.domain}`,
        blueprintAppId: DEFAULT_IDS.blueprintAppId,
        sponsors: [DEFAULT_IDS.sponsorId],
      });
      if (j === 0) seed.servicePrincipals.push(entries.identity);
      seed.users.push(entries.user);
      seed.grants.push({ id: `fleet-grant-${n}`, clientId: identity, consentType: "Principal", principalId: entries.user.id, resourceId: DEFAULT_IDS.graphPrincipalId, scope: SEEDED_GRANT_SCOPES });
      pairs.push({ identity, user: entries.user.id });
    }
  }
  return { seed, pairs };
}

export interface FleetEmulator {
  emulator: Emulator;
  pairs: AgentPair[];
  target: { httpsPort: number; caPem: string };
  blueprint: { tenantId: string; blueprintAppId: string; secret: string };
}

/** The fleet tenant on an emulator whose token endpoint takes `idpRate` requests a second; Entra's host name routed to it for the peer. */
export async function startFleetEmulator(identities: number, usersEach: number, idpRate: number): Promise<FleetEmulator> {
  const { seed, pairs } = benchFleetTenant(identities, usersEach);
  const emulator = await startEmulator({ tenant: seed, faults: { idpRate } });
  const outputs = emulator.outputs();
  return {
    emulator,
    pairs,
    target: { httpsPort: Number(new URL(emulator.httpsUrl).port), caPem: emulator.caPem },
    blueprint: { tenantId: outputs.tenantId, blueprintAppId: outputs.blueprintAppId!, secret: outputs.blueprintClientSecret! },
  };
}

export interface FleetTokenFigures {
  ms: number;
  /** Token requests that did work (answered other than 429) / the allowed rate. */
  floorMs: number;
  tokenRequests: number;
  throttled: number;
  failures: number;
}

/** One token per pair, cold caches, `concurrency` callers, against the fleet emulator; what the token endpoint saw. */
export async function fleetTokens(fleet: FleetEmulator, client: TokenClient, concurrency: number, idpRate: number): Promise<FleetTokenFigures> {
  client.clear();
  await bucketRefilled();
  const from = fleet.emulator.requests.length;
  let failures = 0;
  const started = performance.now();
  await mapLimit(fleet.pairs, concurrency, async (pair) => {
    await client.token(pair, GRAPH).catch(() => failures++);
  });
  const ms = performance.now() - started;
  const seen = fleet.emulator.requests.slice(from).filter((r) => r.surface === "token");
  const throttled = seen.filter((r) => r.status === 429).length;
  const tokenRequests = seen.length - throttled;
  return { ms, floorMs: (tokenRequests / idpRate) * 1000, tokenRequests, throttled, failures };
}

/** Waits until the token bucket (a second's worth of requests) is full again, so each figure starts from the same burst. */
const bucketRefilled = () => new Promise<void>((resolve) => setTimeout(resolve, 1_100));

/** The runtime provider over the bench's HTTPS transport, its clock shifted by `offset.ms` (for the refresh storm). */
export function fleetProvider(fleet: FleetEmulator, offset: { ms: number }): { client: TokenClient & { provider: AgentUserTokenProvider }; close(): Promise<void> } {
  const dispatcher = new Agent({ connect: emulatorConnector(fleet.target) });
  const provider = new AgentUserTokenProvider({
    authorityUrl: AUTHORITY,
    tenantId: fleet.blueprint.tenantId,
    blueprintAppId: fleet.blueprint.blueprintAppId,
    credential: { kind: "secret", secret: fleet.blueprint.secret },
    dispatcher,
    hooks: { now: () => Date.now() + offset.ms, monotonicNow: () => performance.now() + offset.ms },
  });
  return {
    client: {
      name: "provider",
      provider,
      token: (pair, resource) => provider.getToken({ agentIdentityId: pair.identity, agentUser: pair.user, resource }).then((r) => r.token),
      clear: () => provider.clear(),
    },
    close: () => dispatcher.close(),
  };
}

export interface RefreshStormFigures {
  /** Calls that threw. */
  failures: number;
  /** The longest any getToken call waited, ms. */
  maxWaitMs: number;
  /** Background refreshes that had landed (a new token served) when the storm settled. */
  refreshed: number;
  /** From the first call until every refresh landed or the deadline passed, ms. */
  settleMs: number;
  throttled: number;
}

/**
 * Every token of a warm fleet reaches its refresh window at once: the
 * provider's clock jumps to just before the tokens stop being served, and
 * every agent's token is asked for at `concurrency`. Calls are served from
 * the cache while the background refreshes go through the same rate limit.
 */
export async function refreshStorm(
  fleet: FleetEmulator,
  run: ReturnType<typeof fleetProvider>,
  offset: { ms: number },
  concurrency: number,
  deadlineMs: number,
): Promise<RefreshStormFigures> {
  const resource = GRAPH;
  const before = new Map<AgentPair, string>();
  let servedUntil = Number.POSITIVE_INFINITY;
  await mapLimit(fleet.pairs, concurrency, async (pair) => {
    const held = await run.client.provider.getToken({ agentIdentityId: pair.identity, agentUser: pair.user, resource });
    before.set(pair, held.token);
    servedUntil = Math.min(servedUntil, held.expiresOnTimestamp - EXPIRY_MARGIN_MS);
  });
  await bucketRefilled();
  // Two seconds before the first of them stops being served: every refresh moment has passed, but for the
  // few tokens minted last whose moment was drawn in those seconds (they follow as the clock moves on).
  offset.ms = servedUntil - 2_000 - Date.now();
  const from = fleet.emulator.requests.length;
  let failures = 0;
  let maxWaitMs = 0;
  const started = performance.now();
  await mapLimit(fleet.pairs, concurrency, async (pair) => {
    const t = performance.now();
    await run.client.token(pair, resource).catch(() => failures++);
    maxWaitMs = Math.max(maxWaitMs, performance.now() - t);
  });
  let refreshed = 0;
  for (;;) {
    refreshed = 0;
    for (const pair of fleet.pairs) {
      const now = await run.client.token(pair, resource).catch(() => before.get(pair));
      if (now !== before.get(pair)) refreshed++;
    }
    if (refreshed === fleet.pairs.length || performance.now() - started > deadlineMs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const settleMs = performance.now() - started;
  const throttled = fleet.emulator.requests.slice(from).filter((r) => r.surface === "token" && r.status === 429).length;
  return { failures, maxWaitMs, refreshed, settleMs, throttled };
}
