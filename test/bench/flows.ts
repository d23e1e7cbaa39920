import { Agent, request } from "undici";
import { startEmulator, type Emulator } from "../../emulator/server";
import { DEFAULT_IDS } from "../../emulator/seed";
import { JWT_BEARER } from "../../lib/client-assertion";
import { tokenEndpoint } from "../../lib/token-client";
import { APP_FLOW, ON_BEHALF_OF_FLOW } from "../../lib/token-flows";
import type { TokenSource } from "../../lib/token-source";
import { bundledFetchAgent, restoreFetchDispatcher, setFetchDispatcher, type FetchDispatcher } from "./fetch-agent";
import { MsalAgentApps } from "./msal-peer";
import { benchTokenSource, type BlueprintSecret } from "./runner-client";
import { median, order, ratio, round, sample, timed, type Timing } from "./stats";
import { benchTenant, GRAPH, MCP_APP_ID, MCP_PRINCIPAL_ID, MCP_RESOURCE, type AgentPair } from "./tenant";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";
import { cold as coldOf, hitUs, warm as warmOf, type TokenClient } from "./workload";

/**
 * The agent identity's two other flows, each cold (empty caches: T1, then
 * the final request), warm (T1 cached, a token for a second resource: one
 * request) and on a cache hit, for the floor (bare undici POSTs of bodies
 * built beforehand), the runner (the token source as the provider calls it)
 * and MSAL for Node 7 doing the same flow through its own APIs:
 * acquireTokenByClientCredential with the agent identity as client and T1 as
 * its assertion (the app flow), and acquireTokenOnBehalfOf as the agent
 * identity (on-behalf-of). The person's token the on-behalf-of flow takes is
 * minted once, untimed, through the emulator's test-only password grant.
 */

export type FlowName = "app" | "onBehalfOf";
export const FLOWS: readonly FlowName[] = ["app", "onBehalfOf"];
type Who = "floor" | "runner" | "msal";

const EXCHANGE_SCOPE = "api://AzureADTokenExchange/.default";
const HEADERS = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
/** How much each phase samples: `npm run bench`'s by default, less in the test that checks the workload. */
export interface FlowsPlan {
  /** Cold and warm rounds, each running floor, runner and MSAL once, within `budgetMs` per phase. */
  rounds: number;
  budgetMs: number;
  warmUps: number;
  hitBatches: number;
  hitCalls: number;
}

export const BENCH_FLOWS_PLAN: FlowsPlan = { rounds: 200, budgetMs: 20_000, warmUps: 10, hitBatches: 9, hitCalls: 10_000 };

/** The scope a flow's final request names for a resource. */
const scopeOf = (resource: string) => `${resource}/.default`;

/** The final request's form: client credentials, or the jwt-bearer grant with the person's token. */
function finalForm(flow: FlowName, identity: string, t1: string, resource: string, assertion: string): Record<string, string> {
  const client = { client_id: identity, scope: scopeOf(resource), client_assertion_type: JWT_BEARER, client_assertion: t1 };
  return flow === "app"
    ? { grant_type: "client_credentials", ...client }
    : { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", ...client, assertion, requested_token_use: "on_behalf_of" };
}

/** The floor of one flow: its two (or one) requests as bare undici POSTs, bodies built once, answers read as text. */
class FlowFloor {
  private readonly dispatcher: Agent;
  private readonly url: string;
  private bodies?: { hop1: string; first: string; second: string };

  constructor(
    target: EmulatorTarget,
    private readonly blueprint: BlueprintSecret,
    private readonly flow: FlowName,
  ) {
    this.dispatcher = new Agent({ connect: emulatorConnector(target) });
    this.url = tokenEndpoint(AUTHORITY, blueprint.tenantId);
  }

  async prepare(identity: string, assertion: string): Promise<void> {
    const form = (p: Record<string, string>) => new URLSearchParams(p).toString();
    const hop1 = form({ grant_type: "client_credentials", client_id: this.blueprint.blueprintAppId, scope: EXCHANGE_SCOPE, fmi_path: identity, client_secret: this.blueprint.secret });
    const t1 = (JSON.parse(await this.post(hop1)) as { access_token: string }).access_token;
    this.bodies = { hop1, first: form(finalForm(this.flow, identity, t1, GRAPH, assertion)), second: form(finalForm(this.flow, identity, t1, MCP_RESOURCE, assertion)) };
    await this.post(this.bodies.first);
    await this.post(this.bodies.second);
  }

  cold(): Promise<Timing> {
    const b = this.prepared();
    return timed(async () => {
      await this.post(b.hop1);
      await this.post(b.first);
    });
  }

  /** One POST for the second resource, right after an untimed cold chain for the first: the clients' warm sequence. */
  async warm(): Promise<Timing> {
    const b = this.prepared();
    await this.post(b.hop1);
    await this.post(b.first);
    return timed(() => this.post(b.second));
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private prepared() {
    if (!this.bodies) throw new Error("flow floor: prepare() first");
    return this.bodies;
  }

  private async post(body: string): Promise<string> {
    const res = await request(this.url, { method: "POST", headers: HEADERS, body, dispatcher: this.dispatcher });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`flow floor: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    return text;
  }
}

/** The runner of one flow: the token source as the provider asks it (its cache, else a mint), as the runner of the agent user flow. */
class FlowRunner implements TokenClient {
  readonly name = "runner";
  private readonly dispatcher: Agent;
  private readonly source: TokenSource;

  constructor(
    target: EmulatorTarget,
    blueprint: BlueprintSecret,
    private readonly flow: FlowName,
    private readonly assertion: string,
  ) {
    ({ dispatcher: this.dispatcher, source: this.source } = benchTokenSource(target, blueprint));
  }

  token(pair: AgentPair, resource: string): Promise<string> {
    const base = { agentIdentityId: pair.identity, resourceUrl: resource };
    if (this.flow === "app") {
      const hit = this.source.cached(APP_FLOW, base);
      return hit ? Promise.resolve(hit.accessToken) : this.source.mint(APP_FLOW, base).then((t) => t.accessToken);
    }
    const request = { ...base, userAssertion: this.assertion };
    const hit = this.source.cached(ON_BEHALF_OF_FLOW, request);
    return hit ? Promise.resolve(hit.accessToken) : this.source.mint(ON_BEHALF_OF_FLOW, request).then((t) => t.accessToken);
  }

  clear(): void {
    this.source.clear();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/**
 * MSAL for Node 7 doing the flow through its own APIs: the blueprint's
 * application mints T1 (`acquireTokenByClientCredential({ fmiPath })`); one
 * application per agent identity, whose client assertion is that T1, mints
 * the final token (`acquireTokenByClientCredential`, or
 * `acquireTokenOnBehalfOf` with the person's token) and serves it again from
 * its cache on the next call of the same method. Its `fetch` goes through
 * the process-wide dispatcher to the emulator, as the agent user peer's.
 */
class FlowMsal implements TokenClient {
  readonly name = "msal";
  /**
   * The scopes MSAL's cache entry holds, per agent identity and resource: the
   * answer's `scope` (the granted permissions, e.g. User.Read), not the
   * `{resource}/.default` asked for, so the next call for the same token asks
   * with these and finds it (MSAL looks its on-behalf-of cache up by the
   * scopes asked, and would otherwise send the request again), as the agent
   * user peer's acquireTokenSilent does.
   */
  private granted = new Map<string, string[]>();

  private constructor(
    private readonly apps: MsalAgentApps,
    private readonly flow: FlowName,
    private readonly assertion: string,
  ) {}

  static async create(secret: BlueprintSecret, flow: FlowName, assertion: string): Promise<FlowMsal> {
    return new FlowMsal(await MsalAgentApps.load(secret), flow, assertion);
  }

  async token(pair: AgentPair, resource: string): Promise<string> {
    const app = this.apps.identity(pair.identity);
    const key = `${pair.identity} ${resource}`;
    const scopes = this.granted.get(key) ?? [scopeOf(resource)];
    const r = this.flow === "app" ? await app.acquireTokenByClientCredential({ scopes }) : await app.acquireTokenOnBehalfOf({ oboAssertion: this.assertion, scopes });
    if (!r) throw new Error(`msal flows: ${this.flow} returned no token`);
    this.granted.set(key, r.scopes);
    return r.accessToken;
  }

  /** New applications: MSAL's caches live in them. */
  clear(): void {
    this.apps.clear();
    this.granted.clear();
  }
}

/** One flow's samples: cold and warm per client (floor included), hits per client (µs per call). */
export interface FlowFigures {
  cold: Record<Who, Timing[]>;
  warm: Record<Who, Timing[]>;
  hit: Record<Exclude<Who, "floor">, number[]>;
  /** Token requests the emulator saw per operation, per client. */
  requests: Record<string, number>;
}

export interface FlowsSummary {
  [key: string]: number;
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

/** Token requests the emulator saw while `op` ran; any other answer than 200 is a failed bench. */
async function tokenRequests(emulator: Emulator, op: () => Promise<unknown>): Promise<number> {
  const before = emulator.requests.length;
  await op();
  const seen = emulator.requests.slice(before);
  const bad = seen.find((r) => r.status !== 200);
  if (bad) throw new Error(`bench: the emulator answered ${bad.status} to ${bad.method} ${bad.path}`);
  return seen.filter((r) => r.surface === "token").length;
}

/** Checks each client sends what the figures claim (the runner: 2 cold, 1 warm, 0 on a hit) and returns the right token. */
async function verify(emulator: Emulator, flow: FlowName, clients: TokenClient[], main: AgentPair, person: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const client of clients) {
    client.clear();
    let graph = "";
    let mcp = "";
    const cold = await tokenRequests(emulator, async () => (graph = await client.token(main, GRAPH)));
    const warm = await tokenRequests(emulator, async () => (mcp = await client.token(main, MCP_RESOURCE)));
    const hit = await tokenRequests(emulator, () => client.token(main, GRAPH));
    const g = claimsOf(graph);
    const m = claimsOf(mcp);
    const subject = flow === "app" ? main.identity : person;
    const right = g.oid === subject && m.oid === subject && g.aud === GRAPH && m.aud === MCP_APP_ID && g.idtyp === (flow === "app" ? "app" : "user") && (g.appid ?? g.azp) === main.identity;
    if (!right) throw new Error(`bench: ${client.name} returned a ${flow} token with the wrong claims`);
    if (client.name === "runner" && (cold !== 2 || warm !== 1 || hit !== 0)) throw new Error(`bench: the ${flow} runner sent ${cold}/${warm}/${hit} requests, expected 2/1/0`);
    Object.assign(out, { [`${client.name} cold`]: cold, [`${client.name} warm`]: warm, [`${client.name} hit`]: hit });
  }
  return out;
}

/** The person's token for the blueprint, through the test-only password grant (untimed). */
async function personToken(emulator: Emulator): Promise<string> {
  const user = emulator.testUser();
  if (!user) throw new Error("bench: the tenant has no test person to sign in");
  const answer = await fetch(`${emulator.httpUrl}/${user.tenantId}/oauth2/v2.0/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "password", client_id: user.clientId, username: user.username, password: user.password, scope: user.scope }),
  });
  if (answer.status !== 200) throw new Error(`bench: the password grant answered ${answer.status}`);
  return ((await answer.json()) as { access_token: string }).access_token;
}

/** One flow, floor, runner and MSAL interleaved, against `emulator`. */
async function measureFlow(emulator: Emulator, flow: FlowName, main: AgentPair, person: { token: string; id: string }, plan: FlowsPlan, progress: (line: string) => void): Promise<FlowFigures> {
  const outputs = emulator.outputs();
  const blueprint: BlueprintSecret = { tenantId: outputs.tenantId, blueprintAppId: outputs.blueprintAppId!, secret: outputs.blueprintClientSecret! };
  const target = { httpsPort: Number(new URL(emulator.httpsUrl).port), caPem: emulator.caPem };
  const floor = new FlowFloor(target, blueprint, flow);
  const runner = new FlowRunner(target, blueprint, flow, person.token);
  const msal = await FlowMsal.create(blueprint, flow, person.token);
  try {
    await floor.prepare(main.identity, person.token);
    const requests = await verify(emulator, flow, [runner, msal], main, person.id);
    for (let i = 0; i < plan.warmUps; i++) {
      await floor.cold();
      await floor.warm();
      for (const c of [runner, msal]) {
        await coldOf(c, main, GRAPH);
        await warmOf(c, main, GRAPH, MCP_RESOURCE);
      }
    }
    const who: Who[] = ["floor", "runner", "msal"];
    const clients = { runner, msal };
    const cold: Record<Who, Timing[]> = { floor: [], runner: [], msal: [] };
    const warm: Record<Who, Timing[]> = { floor: [], runner: [], msal: [] };
    progress(`${flow} cold: up to ${plan.rounds} rounds, floor/runner/msal interleaved`);
    await sample(plan.rounds, plan.budgetMs, async (i) => {
      for (const w of order(who, i)) cold[w].push(w === "floor" ? await floor.cold() : await coldOf(clients[w], main, GRAPH));
      return 0;
    });
    progress(`${flow} warm: up to ${plan.rounds} rounds, interleaved`);
    await sample(plan.rounds, plan.budgetMs, async (i) => {
      for (const w of order(who, i)) warm[w].push(w === "floor" ? await floor.warm() : await warmOf(clients[w], main, GRAPH, MCP_RESOURCE));
      return 0;
    });
    // MSAL's cache lookups take a few hundred µs each: a tenth of the calls keeps its phase near the runner's.
    const msalCalls = Math.max(1, Math.round(plan.hitCalls / 10));
    progress(`${flow} hit: ${plan.hitBatches} batches of ${plan.hitCalls} calls each (MSAL ${msalCalls})`);
    const hit = { runner: [] as number[], msal: [] as number[] };
    for (const c of Object.values(clients)) await hitUs(c, main, GRAPH, Math.min(1000, plan.hitCalls));
    for (let i = 0; i < plan.hitBatches; i++) {
      for (const w of order(["runner", "msal"] as const, i)) hit[w].push(await hitUs(clients[w], main, GRAPH, w === "msal" ? msalCalls : plan.hitCalls));
    }
    return { cold, warm, hit, requests };
  } finally {
    await floor.close();
    await runner.close();
  }
}

/**
 * Both flows on an emulator of their own: the bench tenant, whose seeded
 * person (the test sign-in) also has consent for the agent on the second
 * resource, so the on-behalf-of warm figure has a second audience.
 */
export async function measureFlows(progress: (line: string) => void, plan: FlowsPlan = BENCH_FLOWS_PLAN): Promise<Record<FlowName, FlowFigures>> {
  const tenant = benchTenant(0);
  const sponsor = tenant.seed.users.find((u) => u.id === DEFAULT_IDS.sponsorId)!;
  tenant.seed.grants.push({ id: "bench-grant-obo-mcp", clientId: tenant.main.identity, consentType: "Principal", principalId: sponsor.id, resourceId: MCP_PRINCIPAL_ID, scope: "tools.read" });
  // The person signs in by the test-only password grant, which a start serves only when asked.
  const emulator = await startEmulator({ tenant: tenant.seed, testUser: true });
  // Before fetch is routed: the sign-in goes to the emulator's own http URL.
  const person = { token: await personToken(emulator).catch(async (err: unknown) => Promise.reject(await emulator.close().then(() => err))), id: sponsor.id };
  // MSAL's fetch goes through the process-wide dispatcher, routed to the emulator under login.microsoftonline.com's name.
  const dispatcher: FetchDispatcher = bundledFetchAgent({ connect: emulatorConnector({ httpsPort: Number(new URL(emulator.httpsUrl).port), caPem: emulator.caPem }) });
  setFetchDispatcher(dispatcher);
  try {
    const out = {} as Record<FlowName, FlowFigures>;
    for (const flow of FLOWS) out[flow] = await measureFlow(emulator, flow, tenant.main, person, plan, progress);
    return out;
  } finally {
    await dispatcher.close();
    restoreFetchDispatcher(dispatcher);
    await emulator.close();
  }
}

const wall = (t: readonly Timing[]) => median(t.map((s) => s.ms));
/** Median CPU time of this process over the same samples: other processes taking the CPU do not inflate it. */
const cpu = (t: readonly Timing[]) => median(t.map((s) => s.cpuMs));
const KEYS: Record<FlowName, string> = { app: "app", onBehalfOf: "obo" };

/** The JSON line's figures: `{app,obo}_{floor,runner,msal}_{cold,warm}_ms` and `{app,obo}_{runner,msal}_hit_us`. */
export function summarizeFlows(figures: Record<FlowName, FlowFigures>): FlowsSummary {
  const out: FlowsSummary = {};
  for (const flow of FLOWS) {
    const f = figures[flow];
    const k = KEYS[flow];
    for (const w of ["floor", "runner", "msal"] as const) {
      out[`${k}_${w}_cold_ms`] = round(wall(f.cold[w]), 3);
      out[`${k}_${w}_warm_ms`] = round(wall(f.warm[w]), 3);
    }
    out[`${k}_runner_hit_us`] = round(median(f.hit.runner), 3);
    out[`${k}_msal_hit_us`] = round(median(f.hit.msal), 3);
  }
  return out;
}

const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "–");
const ok = (pass: boolean) => (pass ? "met" : "**missed**");
const NAMES: Record<FlowName, string> = { app: "app flow", onBehalfOf: "on-behalf-of" };

/** The flows' table: each flow cold, warm and hit, against its floor and MSAL 7, with the agent user flow's targets. */
export function flowsTable(figures: Record<FlowName, FlowFigures>, s: FlowsSummary): string {
  const rows: string[][] = [
    [`flow (${process.version})`, "floor", "runner", "MSAL 7", "runner/floor", "MSAL/runner", "target"],
    ["---", "---:", "---:", "---:", "---:", "---:", "---"],
  ];
  const detail: string[] = [];
  for (const flow of FLOWS) {
    const k = KEYS[flow];
    const get = (w: string, phase: string) => s[`${k}_${w}_${phase}`]!;
    for (const [phase, label] of [
      ["cold_ms", "cold: empty caches, 2 requests (ms, median)"],
      ["warm_ms", "warm: T1 cached, 2nd resource, 1 request (ms, median)"],
    ] as const) {
      const floor = get("floor", phase);
      const runner = get("runner", phase);
      const msal = get("msal", phase);
      rows.push([`${NAMES[flow]}, ${label}`, floor.toFixed(2), runner.toFixed(2), msal.toFixed(2), x(ratio(runner, floor)), x(ratio(msal, runner)), `≤ 1.15× floor: ${ok(runner <= 1.15 * floor)}; ahead of MSAL: ${ok(runner < msal)}`]);
    }
    const runnerHit = get("runner", "hit_us");
    const msalHit = get("msal", "hit_us");
    rows.push([`${NAMES[flow]}, hit: final token cached, no request (µs per call, median)`, "–", runnerHit.toFixed(2), msalHit.toFixed(2), "–", x(ratio(msalHit, runnerHit)), `ahead of MSAL: ${ok(runnerHit < msalHit)}`]);
    const f = figures[flow];
    const count = (t: Record<Who, Timing[]>) => `${t.floor.length}/${t.runner.length}/${t.msal.length}`;
    const cpus = (t: Record<Who, Timing[]>) => `${[t.floor, t.runner, t.msal].map((v) => cpu(v).toFixed(3)).join("/")} ms (runner/floor ${x(ratio(cpu(t.runner), cpu(t.floor)))})`;
    detail.push(`${NAMES[flow]}: median CPU time of the bench process over the same samples (floor/runner/msal; emulator included, other processes not): cold ${cpus(f.cold)}; warm ${cpus(f.warm)}`);
    detail.push(
      `${NAMES[flow]}: samples cold ${count(f.cold)}, warm ${count(f.warm)} (floor/runner/msal), hit ${f.hit.runner.length} batches; token requests per operation: ${Object.entries(f.requests)
        .map(([op, n]) => `${op} ${n}`)
        .join(", ")}`,
    );
  }
  return `${rows.map((r) => `| ${r.join(" | ")} |`).join("\n")}\n\n${detail.map((d) => `- ${d}`).join("\n")}\n`;
}
