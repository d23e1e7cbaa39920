// Must stay the first import: it finds Node's own fetch Agent before `undici` loads (see fetch-agent.ts).
import "./capture-fetch-agent";
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { PACKAGE_ROOT, startupFigures, type StartupFigures } from "./cli-start";
import { engineUps, type EngineUpFigures } from "./engine-up";
import { Floor } from "./floor";
import { fleetProvider, fleetTokens, provisionFleet, refreshStorm, startFleetEmulator, type FleetTokenFigures, type ProvisionFigures, type RefreshStormFigures } from "./fleet";
import { flowsTable, measureFlows, summarizeFlows } from "./flows";
import { MsalPeerClient } from "./msal-peer";
import { PEER_MODULE, PeerClient } from "./peer";
import type { ChildInput, ChildOutput } from "./rss-child";
import { ProviderClient } from "./provider-client";
import { RunnerClient, type BlueprintSecret } from "./runner-client";
import { median, order, quantile, ratio, round, sample, type Timing } from "./stats";
import { benchTenant, GRAPH, MCP_APP_ID, MCP_RESOURCE, type AgentPair } from "./tenant";
import { cold as coldOf, hitUs, tokensPerSecond, warm as warmOf, type TokenClient, type WorkloadPlan } from "./workload";

/**
 * `npm run bench [-- --json] [-- --startup | --fleet-only | --flows-only | --engine]`: this runner, the
 * bare-undici floor and two peers (@microsoft/agents-hosting, and MSAL for
 * Node 7's own agent user APIs) side by side
 * against one in-process emulator on loopback, then the agent identity's app
 * and on-behalf-of flows against their floors and MSAL 7 (flows.ts), then the
 * fleet figures, each on an emulator of its own. Bounded: every phase has a sample count and a
 * time budget, and a watchdog ends the run after 600 s. `--startup` runs only
 * the start-up phase (fresh processes, no emulator), with 30 samples instead
 * of 10, and prints its table, in under a minute. `--engine` runs only
 * `pulumi up` on the real engine (`npm run engine` makes it, cached) for
 * fleets of 1, 10 and 50 agents, each against its floor.
 */

const FLEET = 100;
const CONCURRENCY = 10;
const ROUNDS = 200;
const PHASE_BUDGET_MS = 25_000;
const HIT_BATCHES = 9;
const HIT_CALLS = 10_000;
/** MSAL's acquireTokenSilent takes about a millisecond per call here: a tenth of the calls keeps its phase near the others'. */
const MSAL_HIT_CALLS = HIT_CALLS / 10;
const TPS_ROUNDS = 5;
const CLI_SAMPLES = 10;
/** `--startup` alone has the time for more spawns, which narrows the spread other work on the machine causes. */
const STARTUP_ONLY_SAMPLES = 30;
const CHILD_PLAN = { rounds: 20, hitCalls: HIT_CALLS, tpsRounds: 3, concurrency: CONCURRENCY };
const WATCHDOG_MS = 600_000;
/** Issue 8's fleet: 100 agents provisioned at --parallel 10 under graph-rate=50; 1,000 agent users under 100 identities minted at concurrency 50 under idp-rate=200. */
const FLEET_PROVISION = { agents: 100, concurrency: 10, graphRate: 50 };
const FLEET_TOKENS = { identities: 100, usersEach: 10, concurrency: 50, idpRate: 200 };
/** `pulumi up` on the real engine: these fleet sizes, one after the other, under graph-rate=50. */
const ENGINE_UP = { sizes: [1, 10, 50], graphRate: 50 };
/** Fifty agents' `up` and its no-change `up` on two cores take minutes: the engine run has its own watchdog. */
const ENGINE_WATCHDOG_MS = 1_800_000;

const json = process.argv.includes("--json");
/** Only the start-up figures, with more spawns (`--startup`). */
const startupOnly = process.argv.includes("--startup");
/** Only the fleet figures (a shorter run while working on throttling). */
const fleetOnly = process.argv.includes("--fleet-only");
/** Only `pulumi up` on the real engine (`npm run engine` makes it, cached). */
const engineOnly = process.argv.includes("--engine");
/** Only the app and on-behalf-of flows' figures (`--flows-only`). */
const flowsOnly = process.argv.includes("--flows-only");
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

type Who = "floor" | "runner" | "peer" | "msal";
/** The clients that mint tokens (every one but the floor). */
type Client = Exclude<Who, "floor">;

interface Figures {
  cold: Record<Who, Timing[]>;
  warm: Record<Who, Timing[]>;
  hit: Record<Client | "provider", number[]>;
  tps: Record<Client, number[]>;
  rss: Record<Client, ChildOutput>;
  requests: Record<string, string>;
  startup: StartupFigures;
  /** 1-minute load average before and after the latency phases: other work on the machine widens the spread. */
  load: [number, number];
}

interface FleetFigures {
  provision: ProvisionFigures;
  tokens: FleetTokenFigures;
  peerTokens: FleetTokenFigures;
  msalTokens: FleetTokenFigures;
  storm: RefreshStormFigures;
}

/** The fleet figures, each on an emulator of its own with the rate limit the issue names. */
async function measureFleet(): Promise<FleetFigures> {
  const p = FLEET_PROVISION;
  progress(`fleet provisioning: ${p.agents} agents (identity, user, grant) at concurrency ${p.concurrency}, graph-rate=${p.graphRate}`);
  const provision = await provisionFleet(p.agents, p.concurrency, p.graphRate);
  const t = FLEET_TOKENS;
  const fleet = await startFleetEmulator(t.identities, t.usersEach, t.idpRate);
  const offset = { ms: 0 };
  const runner = fleetProvider(fleet, offset);
  const peer = await PeerClient.create(fleet.target, fleet.blueprint);
  const msal = await MsalPeerClient.create(fleet.target, fleet.blueprint);
  try {
    progress(`fleet tokens: ${t.identities * t.usersEach} agent users under ${t.identities} identities, cold, concurrency ${t.concurrency}, idp-rate=${t.idpRate}`);
    const tokens = await fleetTokens(fleet, runner.client, t.concurrency, t.idpRate);
    progress("fleet tokens: the peer, same fleet and limit");
    const peerTokens = await fleetTokens(fleet, peer, t.concurrency, t.idpRate);
    progress("fleet tokens: MSAL 7, same fleet and limit");
    const msalTokens = await fleetTokens(fleet, msal, t.concurrency, t.idpRate);
    progress("refresh storm: every token of the fleet in its refresh window at once");
    const storm = await refreshStorm(fleet, runner, offset, t.concurrency, 4 * tokens.floorMs);
    return { provision, tokens, peerTokens, msalTokens, storm };
  } finally {
    await Promise.all([runner.close(), peer.close(), msal.close()]);
    await fleet.emulator.close();
  }
}

interface FleetSummary {
  fleet_provision_ms: number;
  fleet_provision_floor_ms: number;
  fleet_provision_failures: number;
  fleet_provision_429s: number;
  fleet_provision_duplicates: number;
  fleet_tokens_ms: number;
  fleet_tokens_floor_ms: number;
  fleet_tokens_failures: number;
  fleet_token_requests: number;
  fleet_tokens_429s: number;
  peer_fleet_tokens_ms: number;
  peer_fleet_tokens_failures: number;
  peer_fleet_token_requests: number;
  msal_fleet_tokens_ms: number;
  msal_fleet_tokens_failures: number;
  msal_fleet_token_requests: number;
  refresh_storm_failures: number;
  refresh_storm_max_wait_ms: number;
  refresh_storm_refreshed: number;
  refresh_storm_settle_ms: number;
}

function summarizeFleet(f: FleetFigures): FleetSummary {
  return {
    fleet_provision_ms: round(f.provision.ms, 0),
    fleet_provision_floor_ms: round(f.provision.floorMs, 0),
    fleet_provision_failures: f.provision.failures,
    fleet_provision_429s: f.provision.throttled,
    fleet_provision_duplicates: f.provision.duplicates,
    fleet_tokens_ms: round(f.tokens.ms, 0),
    fleet_tokens_floor_ms: round(f.tokens.floorMs, 0),
    fleet_tokens_failures: f.tokens.failures,
    fleet_token_requests: f.tokens.tokenRequests,
    fleet_tokens_429s: f.tokens.throttled,
    peer_fleet_tokens_ms: round(f.peerTokens.ms, 0),
    peer_fleet_tokens_failures: f.peerTokens.failures,
    peer_fleet_token_requests: f.peerTokens.tokenRequests,
    msal_fleet_tokens_ms: round(f.msalTokens.ms, 0),
    msal_fleet_tokens_failures: f.msalTokens.failures,
    msal_fleet_token_requests: f.msalTokens.tokenRequests,
    refresh_storm_failures: f.storm.failures,
    refresh_storm_max_wait_ms: round(f.storm.maxWaitMs, 1),
    refresh_storm_refreshed: f.storm.refreshed,
    refresh_storm_settle_ms: round(f.storm.settleMs, 0),
  };
}

function fleetTable(s: FleetSummary): string {
  const p = FLEET_PROVISION;
  const t = FLEET_TOKENS;
  const agents = t.identities * t.usersEach;
  const expected = 2 * t.identities + agents;
  const rows: string[][] = [
    [`fleet (${process.version})`, "ms", "floor ms", "ratio", "429s", "failures", "target"],
    ["---", "---:", "---:", "---:", "---:", "---:", "---"],
    [
      `provisioning: ${p.agents} agents (identity, user, grant), concurrency ${p.concurrency}, graph-rate=${p.graphRate}; floor = Graph requests / ${p.graphRate} per s; duplicates ${s.fleet_provision_duplicates}`,
      String(s.fleet_provision_ms),
      String(s.fleet_provision_floor_ms),
      x(ratio(s.fleet_provision_ms, s.fleet_provision_floor_ms)),
      String(s.fleet_provision_429s),
      String(s.fleet_provision_failures),
      `≤ 1.2× floor, no failure, no duplicate: ${ok(s.fleet_provision_ms <= 1.2 * s.fleet_provision_floor_ms && s.fleet_provision_failures === 0 && s.fleet_provision_duplicates === 0)}`,
    ],
    [
      `tokens: ${agents} agent users under ${t.identities} identities, cold, concurrency ${t.concurrency}, idp-rate=${t.idpRate}; ${s.fleet_token_requests} requests (expected ${expected})`,
      String(s.fleet_tokens_ms),
      String(s.fleet_tokens_floor_ms),
      x(ratio(s.fleet_tokens_ms, s.fleet_tokens_floor_ms)),
      String(s.fleet_tokens_429s),
      String(s.fleet_tokens_failures),
      `≤ 1.1× floor, ${expected} requests, no failure: ${ok(s.fleet_tokens_ms <= 1.1 * s.fleet_tokens_floor_ms && s.fleet_token_requests === expected && s.fleet_tokens_failures === 0)}`,
    ],
    [
      `tokens, the peer: same fleet and limit; ${s.peer_fleet_token_requests} requests`,
      String(s.peer_fleet_tokens_ms),
      String(s.fleet_tokens_floor_ms),
      `${x(ratio(s.peer_fleet_tokens_ms, s.fleet_tokens_floor_ms))} (${x(ratio(s.peer_fleet_tokens_ms, s.fleet_tokens_ms))} the runner's time)`,
      "",
      String(s.peer_fleet_tokens_failures),
      "",
    ],
    [
      `tokens, MSAL 7: same fleet and limit; ${s.msal_fleet_token_requests} requests`,
      String(s.msal_fleet_tokens_ms),
      String(s.fleet_tokens_floor_ms),
      `${x(ratio(s.msal_fleet_tokens_ms, s.fleet_tokens_floor_ms))} (${x(ratio(s.msal_fleet_tokens_ms, s.fleet_tokens_ms))} the runner's time)`,
      "",
      String(s.msal_fleet_tokens_failures),
      "",
    ],
    [
      `refresh storm: all ${agents} tokens in their refresh window at once; longest call ${s.refresh_storm_max_wait_ms} ms; ${s.refresh_storm_refreshed} refreshed`,
      String(s.refresh_storm_settle_ms),
      String(s.fleet_tokens_floor_ms),
      x(ratio(s.refresh_storm_settle_ms, s.fleet_tokens_floor_ms)),
      "",
      String(s.refresh_storm_failures),
      `no failed call, no call waiting > 2× floor: ${ok(s.refresh_storm_failures === 0 && s.refresh_storm_max_wait_ms <= 2 * s.fleet_tokens_floor_ms)}`,
    ],
  ];
  return `${markdownRows(rows)}\n`;
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

/** Token and other requests the emulator saw while `op` ran. */
async function counted(emulator: Emulator, op: () => Promise<unknown>): Promise<{ token: number; other: number }> {
  const before = emulator.requests.length;
  await op();
  const seen = emulator.requests.slice(before);
  const bad = seen.find((r) => r.status !== 200);
  if (bad) throw new Error(`bench: the emulator answered ${bad.status} to ${bad.method} ${bad.path}`);
  const token = seen.filter((r) => r.surface === "token").length;
  return { token, other: seen.length - token };
}

const show = (c: { token: number; other: number }) => `${c.token}${c.other ? ` (+${c.other} other)` : ""}`;

/** Checks each client really does what its figure claims: 3 requests cold, 1 warm, 0 on a hit, and the right token. */
async function verify(emulator: Emulator, floor: Floor, clients: TokenClient[], main: AgentPair): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  out["floor cold"] = show(await counted(emulator, () => floor.cold()));
  out["floor warm"] = show(await counted(emulator, () => floor.warm()));
  if (out["floor cold"] !== "3" || out["floor warm"] !== "4") throw new Error(`bench: the floor sent ${out["floor cold"]}/${out["floor warm"]} requests, expected 3/4`);
  out["floor warm"] = "1 (after 3 untimed)";
  for (const client of clients) {
    client.clear();
    let graph = "";
    let mcp = "";
    const cold = await counted(emulator, async () => (graph = await client.token(main, GRAPH)));
    const warm = await counted(emulator, async () => (mcp = await client.token(main, MCP_RESOURCE)));
    const hit = await counted(emulator, () => client.token(main, GRAPH));
    const g = claimsOf(graph);
    const m = claimsOf(mcp);
    if (g.oid !== main.user || g.aud !== GRAPH || m.oid !== main.user || m.aud !== MCP_APP_ID || g.idtyp !== "user") {
      throw new Error(`bench: ${client.name} returned a token with the wrong claims`);
    }
    if (client.name === "runner" && (cold.token !== 3 || warm.token !== 1 || hit.token !== 0 || cold.other + warm.other + hit.other > 0)) {
      throw new Error(`bench: the runner sent ${show(cold)}/${show(warm)}/${show(hit)} requests, expected 3/1/0`);
    }
    out[`${client.name} cold`] = show(cold);
    out[`${client.name} warm`] = show(warm);
    out[`${client.name} hit`] = show(hit);
  }
  return out;
}

/** One child process per client, one after the other, against this process's emulator. */
function childRss(which: Client, input: ChildInput): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, "rss-child.js"), which], { cwd: PACKAGE_ROOT, stdio: ["pipe", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.on("error", reject);
    // "close", not "exit": the result line can arrive after the exit event.
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").pop() ?? "";
      if (code !== 0) return reject(new Error(`bench: the ${which} memory child exited ${code}`));
      try {
        resolve(JSON.parse(last) as ChildOutput);
      } catch {
        reject(new Error(`bench: the ${which} memory child printed no result`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

async function measure(): Promise<Figures> {
  const tenant = benchTenant(FLEET);
  progress(`starting the emulator (${FLEET + 1} agent identities, 2 resources)`);
  // The peer hard-codes Entra's and Graph's host names; the bench routes them here.
  const emulator = await startEmulator({ tenant: tenant.seed });
  const outputs = emulator.outputs();
  const blueprint: BlueprintSecret = { tenantId: outputs.tenantId, blueprintAppId: outputs.blueprintAppId!, secret: outputs.blueprintClientSecret! };
  const target = { httpsPort: Number(new URL(emulator.httpsUrl).port), caPem: emulator.caPem };
  const floor = new Floor(target, blueprint);
  const runner = new RunnerClient(target, blueprint);
  const provider = new ProviderClient(target, blueprint);
  const peer = await PeerClient.create(target, blueprint);
  const msal = await MsalPeerClient.create(target, blueprint);
  const { main, fleet } = tenant;
  try {
    await floor.prepare(main, GRAPH, MCP_RESOURCE);
    const requests = await verify(emulator, floor, [runner, peer, msal], main);

    const loadBefore = loadavg()[0]!;
    progress("warming up");
    for (let i = 0; i < 10; i++) {
      await floor.cold();
      await floor.warm();
      for (const c of [runner, peer, msal]) {
        await coldOf(c, main, GRAPH);
        await warmOf(c, main, GRAPH, MCP_RESOURCE);
      }
    }

    const who: Who[] = ["floor", "runner", "peer", "msal"];
    const byName = { runner, peer, msal };
    const cold: Record<Who, Timing[]> = { floor: [], runner: [], peer: [], msal: [] };
    const warm: Record<Who, Timing[]> = { floor: [], runner: [], peer: [], msal: [] };

    progress(`cold: up to ${ROUNDS} rounds, floor/runner/peer/msal interleaved`);
    await sample(ROUNDS, PHASE_BUDGET_MS, async (i) => {
      for (const w of order(who, i)) {
        cold[w].push(w === "floor" ? await floor.cold() : await coldOf(byName[w], main, GRAPH));
      }
      return 0;
    });
    progress(`warm: up to ${ROUNDS} rounds, interleaved`);
    await sample(ROUNDS, PHASE_BUDGET_MS, async (i) => {
      for (const w of order(who, i)) {
        warm[w].push(w === "floor" ? await floor.warm() : await warmOf(byName[w], main, GRAPH, MCP_RESOURCE));
      }
      return 0;
    });

    progress(`hit: ${HIT_BATCHES} batches of ${HIT_CALLS} calls each (MSAL ${MSAL_HIT_CALLS})`);
    const hit = { runner: [] as number[], provider: [] as number[], peer: [] as number[], msal: [] as number[] };
    const hitters = { ...byName, provider };
    for (const c of Object.values(hitters)) await hitUs(c, main, GRAPH, 1000);
    for (let i = 0; i < HIT_BATCHES; i++) {
      for (const w of order(["runner", "provider", "peer", "msal"] as const, i)) hit[w].push(await hitUs(hitters[w], main, GRAPH, w === "msal" ? MSAL_HIT_CALLS : HIT_CALLS));
    }

    progress(`throughput: ${FLEET} agents at concurrency ${CONCURRENCY}, ${TPS_ROUNDS} rounds each`);
    const tps = { runner: [] as number[], peer: [] as number[], msal: [] as number[] };
    for (const c of Object.values(byName)) await tokensPerSecond(c, fleet, GRAPH, CONCURRENCY);
    await sample(TPS_ROUNDS, PHASE_BUDGET_MS * 3, async (i) => {
      for (const w of order(["runner", "peer", "msal"] as const, i)) tps[w].push(await tokensPerSecond(byName[w], fleet, GRAPH, CONCURRENCY));
      return 0;
    });

    const load: [number, number] = [loadBefore, loadavg()[0]!];
    await Promise.all([floor.close(), runner.close(), provider.close(), peer.close(), msal.close()]);
    progress("peak RSS: one child process per client, same workload");
    const plan: WorkloadPlan = { main, fleet, first: GRAPH, second: MCP_RESOURCE, ...CHILD_PLAN };
    const input: ChildInput = { target, blueprint, plan };
    const rss = { runner: await childRss("runner", input), peer: await childRss("peer", input), msal: await childRss("msal", input) };
    await emulator.close();

    progress(`start-up: ${CLI_SAMPLES} spawns each`);
    const startup = await startupFigures(CLI_SAMPLES, PEER_MODULE);
    return { cold, warm, hit, tps, rss, requests, startup, load };
  } finally {
    await emulator.close().catch(() => undefined);
  }
}

interface Summary extends StartupSummary {
  floor_cold_ms: number;
  floor_warm_ms: number;
  cold_ms: number;
  warm_ms: number;
  hit_us: number;
  provider_hit_us: number;
  tps: number;
  rss_mb: number;
  peer_cold_ms: number;
  peer_warm_ms: number;
  peer_hit_us: number;
  peer_tps: number;
  peer_rss_mb: number;
  msal_cold_ms: number;
  msal_warm_ms: number;
  msal_hit_us: number;
  msal_tps: number;
  msal_rss_mb: number;
  node_version: string;
}

/** The start-up figures of the JSON line; `--startup` prints these alone. */
interface StartupSummary {
  cli_start_ms: number;
  node_start_ms: number;
  node_rss_mb: number;
  entry_start_ms: number;
  entry_rss_mb: number;
  token_first_request_ms: number;
  undici_first_request_ms: number;
  node_http_first_request_ms: number;
  token_rss_mb: number;
  token_run_ms: number;
  peer_import_ms: number;
  /** Ratios to bare node (token_over_undici: to undici's first request), each the median of the per-round ratios. */
  entry_ratio: number;
  token_first_request_ratio: number;
  undici_first_request_ratio: number;
  node_http_first_request_ratio: number;
  token_run_ratio: number;
  cli_ratio: number;
  token_over_undici_ratio: number;
}

/** Median wall time, ms: the figure the table and the JSON line report. */
const wall = (t: readonly Timing[]) => median(t.map((s) => s.ms));
/** Median CPU time of this process over the same samples, ms: unaffected by other processes taking the CPU. */
const cpu = (t: readonly Timing[]) => median(t.map((s) => s.cpuMs));

function summarize(f: Figures): Summary {
  return {
    floor_cold_ms: round(wall(f.cold.floor), 3),
    floor_warm_ms: round(wall(f.warm.floor), 3),
    cold_ms: round(wall(f.cold.runner), 3),
    warm_ms: round(wall(f.warm.runner), 3),
    hit_us: round(median(f.hit.runner), 3),
    provider_hit_us: round(median(f.hit.provider), 3),
    tps: round(median(f.tps.runner), 1),
    rss_mb: round(f.rss.runner.peakRssMb, 1),
    peer_cold_ms: round(wall(f.cold.peer), 3),
    peer_warm_ms: round(wall(f.warm.peer), 3),
    peer_hit_us: round(median(f.hit.peer), 3),
    peer_tps: round(median(f.tps.peer), 1),
    peer_rss_mb: round(f.rss.peer.peakRssMb, 1),
    msal_cold_ms: round(wall(f.cold.msal), 3),
    msal_warm_ms: round(wall(f.warm.msal), 3),
    msal_hit_us: round(median(f.hit.msal), 3),
    msal_tps: round(median(f.tps.msal), 1),
    msal_rss_mb: round(f.rss.msal.peakRssMb, 1),
    ...startupSummary(f.startup),
    node_version: process.version,
  };
}

function startupSummary(f: StartupFigures): StartupSummary {
  return {
    cli_start_ms: round(f.cliStartMs, 1),
    node_start_ms: round(f.nodeStartMs, 1),
    node_rss_mb: round(f.nodeRssMb, 1),
    entry_start_ms: round(f.entryStartMs, 1),
    entry_rss_mb: round(f.entryRssMb, 1),
    token_first_request_ms: round(f.tokenFirstRequestMs, 1),
    undici_first_request_ms: round(f.undiciFirstRequestMs, 1),
    node_http_first_request_ms: round(f.httpFirstRequestMs, 1),
    token_rss_mb: round(f.tokenRssMb, 1),
    token_run_ms: round(f.tokenRunMs, 1),
    peer_import_ms: round(f.peerImportMs, 1),
    entry_ratio: round(f.ratios.entry, 3),
    token_first_request_ratio: round(f.ratios.tokenFirstRequest, 3),
    undici_first_request_ratio: round(f.ratios.undiciFirstRequest, 3),
    node_http_first_request_ratio: round(f.ratios.httpFirstRequest, 3),
    token_run_ratio: round(f.ratios.tokenRun, 3),
    cli_ratio: round(f.ratios.cli, 3),
    token_over_undici_ratio: round(f.ratios.tokenOverUndici, 3),
  };
}

const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "–");
const ok = (pass: boolean) => (pass ? "met" : "**missed**");
/** Markdown table rows, one line each. */
const markdownRows = (rows: readonly string[][]) => rows.map((r) => `| ${r.join(" | ")} |`).join("\n");

/** A row of a figure measured for the floor, the runner and both peers, with its targets. */
function latencyRow(figure: string, floor: number, runner: number, peer: number, msal: number): string[] {
  return [
    figure,
    floor.toFixed(2),
    runner.toFixed(2),
    peer.toFixed(2),
    msal.toFixed(2),
    x(ratio(runner, floor)),
    x(ratio(peer, runner)),
    x(ratio(msal, runner)),
    `≤ 1.15× floor: ${ok(runner <= 1.15 * floor)}; ahead of both peers: ${ok(runner < peer && runner < msal)}`,
  ];
}

function table(f: Figures, s: Summary): string {
  const p90 = (v: readonly Timing[]) => quantile(v.map((s) => s.ms), 0.9).toFixed(2);
  const all = (t: Record<Who, Timing[]>, of: (v: readonly Timing[]) => string) => `${of(t.floor)}/${of(t.runner)}/${of(t.peer)}/${of(t.msal)}`;
  const cpus = (t: Record<Who, Timing[]>) =>
    `${all(t, (v) => cpu(v).toFixed(2))} ms (runner/floor ${x(ratio(cpu(t.runner), cpu(t.floor)))}, peer/runner ${x(ratio(cpu(t.peer), cpu(t.runner)))}, msal/runner ${x(ratio(cpu(t.msal), cpu(t.runner)))})`;
  /** A figure only the clients have: no floor, no runner/floor ratio. */
  const clientRow = (figure: string, runner: number, peer: number, msal: number, digits: number, target: string) => [
    figure,
    "–",
    runner.toFixed(digits),
    peer.toFixed(digits),
    msal.toFixed(digits),
    "–",
    x(ratio(peer, runner)),
    x(ratio(msal, runner)),
    target,
  ];
  const rows: string[][] = [
    ["figure", "floor", "runner", "peer (agents-hosting)", "MSAL 7", "runner/floor", "peer/runner", "MSAL/runner", "target"],
    ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---"],
    latencyRow("cold: empty caches, 3 requests (ms, median)", s.floor_cold_ms, s.cold_ms, s.peer_cold_ms, s.msal_cold_ms),
    latencyRow("warm: T1/T2 cached, 2nd resource, 1 request (ms, median)", s.floor_warm_ms, s.warm_ms, s.peer_warm_ms, s.msal_warm_ms),
    clientRow("hit: final token cached, no request (µs per call, median)", s.hit_us, s.peer_hit_us, s.msal_hit_us, 2, `ahead of both peers: ${ok(s.hit_us < s.peer_hit_us && s.hit_us < s.msal_hit_us)}`),
    [
      "hit through AgentUserTokenProvider (µs per call, median; ratio to the runner's hit)",
      "–",
      s.provider_hit_us.toFixed(2),
      "–",
      "–",
      x(ratio(s.provider_hit_us, s.hit_us)),
      "–",
      "–",
      `≤ 1.2× runner hit: ${ok(s.provider_hit_us <= 1.2 * s.hit_us)}`,
    ],
    clientRow(`throughput: ${FLEET} agents, concurrency ${CONCURRENCY}, cold caches (tokens/s, median)`, s.tps, s.peer_tps, s.msal_tps, 0, `ahead of both peers: ${ok(s.tps > s.peer_tps && s.tps > s.msal_tps)}`),
    clientRow("peak RSS, own child process, same workload (MiB)", s.rss_mb, s.peer_rss_mb, s.msal_rss_mb, 1, `ahead of both peers: ${ok(s.rss_mb < s.peer_rss_mb && s.rss_mb < s.msal_rss_mb)}`),
  ];
  const detail = [
    `samples: cold ${all(f.cold, (v) => String(v.length))}, warm ${all(f.warm, (v) => String(v.length))} (floor/runner/peer/msal); hit ${f.hit.runner.length}×${HIT_CALLS} calls (MSAL ${MSAL_HIT_CALLS}); throughput ${f.tps.runner.length} rounds each`,
    `p90 ms: cold ${all(f.cold, p90)}, warm ${all(f.warm, p90)} (floor/runner/peer/msal)`,
    `median CPU time of the bench process over the same samples (floor/runner/peer/msal; emulator included, other processes not): cold ${cpus(f.cold)}; warm ${cpus(f.warm)}`,
    `requests seen by the emulator per operation: ${Object.entries(f.requests).map(([k, v]) => `${k} ${v}`).join(", ")}`,
    `1-minute load average ${f.load[0].toFixed(2)} before and ${f.load[1].toFixed(2)} after the in-process phases`,
    `RSS after loading the client, before any request: runner ${f.rss.runner.loadedRssMb.toFixed(1)} MiB, peer ${f.rss.peer.loadedRssMb.toFixed(1)} MiB, MSAL ${f.rss.msal.loadedRssMb.toFixed(1)} MiB; bare node ${f.startup.nodeRssMb.toFixed(1)} MiB`,
    `Node ${process.version}, for every figure above`,
  ];
  return `${markdownRows(rows)}\n\n${startupTable(f.startup)}\n\n${detail.map((d) => `- ${d}`).join("\n")}\n`;
}

/** The start-up table: whole-process wall times against bare node, measured side by side. */
function startupTable(f: StartupFigures): string {
  const s = startupSummary(f);
  const startup: string[][] = [
    [`start-up (ms, median of ${f.samples} fresh processes, ${process.version}; ratio: median of the per-round ratios)`, "value", "× bare node", "peak RSS (MiB)", "target"],
    ["---", "---:", "---:", "---:", "---"],
    ["`node -e 0` (spawn to exit)", s.node_start_ms.toFixed(1), "1.00×", s.node_rss_mb.toFixed(1), ""],
    [
      '`node -e \'require("agent-user-kit")\'`, the runtime entry (spawn to exit)',
      s.entry_start_ms.toFixed(1),
      x(s.entry_ratio),
      s.entry_rss_mb.toFixed(1),
      `≤ 1.5× bare node: ${ok(s.entry_ratio <= 1.5)}`,
    ],
    [
      "`agent-user token`, spawn to its first request",
      s.token_first_request_ms.toFixed(1),
      x(s.token_first_request_ratio),
      s.token_rss_mb.toFixed(1),
      `≤ 1.5× bare node: ${ok(s.token_first_request_ratio <= 1.5)}`,
    ],
    [
      `floor: one POST through undici alone (the kit's undici bundle, compile cache on), spawn to its first request; \`agent-user token\` takes ${x(s.token_over_undici_ratio)} of it`,
      s.undici_first_request_ms.toFixed(1),
      x(s.undici_first_request_ratio),
      "",
      "",
    ],
    ["one POST through node:http, Node's built-in client, spawn to its first request", s.node_http_first_request_ms.toFixed(1), x(s.node_http_first_request_ratio), "", ""],
    ["`agent-user token` against the emulator over loopback http: three hops, the token printed (spawn to exit)", s.token_run_ms.toFixed(1), x(s.token_run_ratio), "", ""],
    ["`agent-user --help` (spawn to exit)", s.cli_start_ms.toFixed(1), x(s.cli_ratio), "", `≤ 2× bare node: ${ok(s.cli_ratio <= 2)}`],
    [`\`require("${PEER_MODULE}")\` (in process)`, s.peer_import_ms.toFixed(1), "", "", ""],
  ];
  return markdownRows(startup);
}

/** The engine's figures, one row per fleet size: `up` and the no-change `up`, each against its floor. */
function engineTable(pulumi: string, figures: readonly EngineUpFigures[]): string {
  const rows: string[][] = [
    [`\`pulumi up\` on the real engine (Pulumi ${pulumi}, ${process.version}), graph-rate=${ENGINE_UP.graphRate}`, "ms", "floor ms", "ratio", "Graph requests", "429s", "resources", "no-change up ms", "per resource ms"],
    ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"],
    ...figures.map((f) => [
      `${f.agents} agent(s): a new stack, then an \`up\` with nothing to change (${f.noChangeGraphRequests} Graph requests)`,
      String(round(f.upMs, 0)),
      String(round(f.floorMs, 0)),
      x(ratio(f.upMs, f.floorMs)),
      String(f.graphRequests),
      String(f.throttled),
      String(f.resources),
      String(round(f.noChangeMs, 0)),
      String(round(f.noChangeMs / f.resources, 1)),
    ]),
  ];
  return markdownRows(rows);
}

async function main(): Promise<void> {
  const watchdog = setTimeout(
    () => {
      progress(`gave up after ${(engineOnly ? ENGINE_WATCHDOG_MS : WATCHDOG_MS) / 1000} s`);
      process.exit(1);
    },
    engineOnly ? ENGINE_WATCHDOG_MS : WATCHDOG_MS,
  );
  watchdog.unref();
  const started = performance.now();
  if (engineOnly) {
    const { pulumi, figures } = await engineUps(ENGINE_UP.sizes, ENGINE_UP.graphRate, progress);
    progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`${engineTable(pulumi, figures)}\n`);
    if (json) process.stdout.write(`${JSON.stringify({ pulumi, engine_up: figures, node_version: process.version })}\n`);
    return;
  }
  if (startupOnly) {
    progress(`start-up only: ${STARTUP_ONLY_SAMPLES} spawns each`);
    const startup = await startupFigures(STARTUP_ONLY_SAMPLES, PEER_MODULE);
    progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`${startupTable(startup)}\n`);
    if (json) process.stdout.write(`${JSON.stringify({ ...startupSummary(startup), node_version: process.version })}\n`);
    return;
  }
  const figures = fleetOnly || flowsOnly ? undefined : await measure();
  const summary = figures && summarize(figures);
  const flowFigures = fleetOnly ? undefined : await measureFlows(progress);
  const flows = flowFigures && summarizeFlows(flowFigures);
  const fleet = flowsOnly ? undefined : summarizeFleet(await measureFleet());
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (figures && summary) process.stdout.write(`${table(figures, summary)}\n`);
  if (flowFigures && flows) process.stdout.write(`${flowsTable(flowFigures, flows)}\n`);
  if (fleet) process.stdout.write(fleetTable(fleet));
  if (json) process.stdout.write(`${JSON.stringify({ ...summary, ...flows, ...fleet, node_version: process.version })}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
