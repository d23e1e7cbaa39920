import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../emulator/server";
import { median } from "./stats";
import { tokenFlags } from "./token-flags";

/** The package root (dist/test/bench/../../..), where `node_modules` and `dist` are. */
export const PACKAGE_ROOT = join(__dirname, "..", "..", "..");
/** The `agent-user` bin, as package.json names it. */
const CLI = join(PACKAGE_ROOT, (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin["agent-user"]!);
const ENTRY = join(PACKAGE_ROOT, "dist", "lib", "index.js");
/** Prints the process's peak RSS (MiB) on stderr as it exits: loaded with -r, in untimed runs only. */
const RSS_AT_EXIT = join(__dirname, "rss-at-exit.js");
/** One POST from a fresh process through undici or node:http alone: the start-up floors. */
const FIRST_REQUEST_CHILD = join(__dirname, "first-request-child.js");

function run(args: string[]): { ms: number; stdout: string; stderr: string } {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: PACKAGE_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`bench: node ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(0, 300)}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** Peak RSS of a whole run of `args`, MiB; asynchronous, since the token run talks to a server in this process. */
function peakRss(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["-r", RSS_AT_EXIT, ...args], { cwd: PACKAGE_ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("close", () => {
      const mb = Number(/rss-mb=([\d.]+)/.exec(stderr)?.[1]);
      if (Number.isFinite(mb)) done(mb);
      else fail(new Error(`bench: no peak RSS from node ${args.join(" ")}`));
    });
  });
}

async function medianOf3(measure: () => Promise<number>): Promise<number> {
  return median([await measure(), await measure(), await measure()]);
}

/** `require(module)` timed inside a fresh node process, ms. */
const IMPORT_TIMER = (module: string) =>
  `const t=performance.now();require(${JSON.stringify(module)});process.stdout.write(String(performance.now()-t))`;

/**
 * A loopback "identity provider" that notes when the first bytes of a token
 * request arrive, then answers invalid_client so the command exits at once.
 */
async function firstRequestServer(): Promise<{ server: Server; port: number; next: () => Promise<number> }> {
  let waiting: ((at: number) => void) | undefined;
  const server = createServer((socket) => {
    socket.once("data", () => {
      waiting?.(performance.now());
      waiting = undefined;
      const body = JSON.stringify({ error: "invalid_client", error_description: "AADSTS7000215: bench", error_codes: [7000215] });
      socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const port = (server.address() as AddressInfo).port;
  return { server, port, next: () => new Promise((arrived) => (waiting = arrived)) };
}

const TOKEN_ARGS = (port: number) => [CLI, ...tokenFlags(port)];
const TOKEN_ENV = { AGENT_USER_BLUEPRINT_SECRET: "bench-secret" };

/** Spawn of `node ...args` to the arrival of its first request, ms. */
async function toFirstRequest(args: string[], arrival: () => Promise<number>, env: NodeJS.ProcessEnv = {}): Promise<number> {
  const arrived = arrival();
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env: { PATH: process.env.PATH, ...env }, stdio: "ignore" });
  const exited = new Promise<string>((done) => child.on("exit", (code, signal) => done(signal ?? String(code))));
  // A child that exits without sending would otherwise leave the bench waiting until its watchdog.
  const early = exited.then((how) => Promise.reject(new Error(`bench: node ${args.join(" ")} exited (${how}) before its first request`)));
  const at = await Promise.race([arrived, early]);
  await exited;
  return at - started;
}

/** A whole `agent-user token` run against the emulator (three hops, the token printed), spawn to exit, ms. */
async function tokenRun(outputsFile: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "token", "--outputs", outputsFile], { cwd: PACKAGE_ROOT, env: { PATH: process.env.PATH }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((done, fail) => {
    child.on("error", fail);
    child.on("exit", done);
  });
  if (code !== 0) throw new Error(`bench: agent-user token against the emulator exited ${code}: ${stderr.slice(0, 300)}`);
  return performance.now() - started;
}

/** Each figure's ratio to another: the median of the per-round ratios, not the ratio of the medians. */
export interface StartupRatios {
  entry: number;
  tokenFirstRequest: number;
  undiciFirstRequest: number;
  httpFirstRequest: number;
  tokenRun: number;
  cli: number;
  /** `agent-user token` to its first request over undici's own first request: the kit's share. */
  tokenOverUndici: number;
}

/**
 * The median of row[i] / base[i]. Each round spawns every figure's process
 * once, one after the other, so a machine that slows down or speeds up
 * between rounds (this one's bare node moved from 45 to 60 ms within an
 * hour) moves both sides of a round's ratio alike.
 */
function pairedRatio(row: readonly number[], base: readonly number[]): number {
  return median(row.map((value, i) => value / base[i]!));
}

export interface StartupFigures {
  nodeStartMs: number;
  nodeRssMb: number;
  entryStartMs: number;
  entryRssMb: number;
  tokenFirstRequestMs: number;
  /** A process that sends one POST through the kit's undici bundle and nothing else: the floor of any undici client. */
  undiciFirstRequestMs: number;
  /** The same POST through node:http, Node's built-in client. */
  httpFirstRequestMs: number;
  tokenRssMb: number;
  tokenRunMs: number;
  cliStartMs: number;
  peerImportMs: number;
  /** Ratios to bare node (and the token's to undici's), paired round by round. */
  ratios: StartupRatios;
  samples: number;
}

/**
 * Whole-process wall times, interleaved, median of `samples`, with each
 * one's ratio to bare node paired round by round (pairedRatio): bare
 * `node -e 0`, a process that requires the runtime entry, `agent-user token`
 * from spawn to its first request and, as its floors, one POST through
 * undici alone and through node:http alone, a whole `agent-user token` run against
 * the emulator (spawn to exit), `agent-user --help`; and the time
 * `require()` of the peer's package takes in a fresh process. Peak RSS of
 * each comes from separate, untimed runs.
 */
export async function startupFigures(samples: number, peerModule: string): Promise<StartupFigures> {
  const { server, port, next } = await firstRequestServer();
  const dir = mkdtempSync(join(tmpdir(), "agent-user-bench-"));
  let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
  try {
    emulator = await startEmulator({});
    const outputsFile = join(dir, "outputs.json");
    writeFileSync(outputsFile, JSON.stringify(emulator.outputs()), { mode: 0o600 });
    const node: number[] = [];
    const entry: number[] = [];
    const token: number[] = [];
    const undici: number[] = [];
    const http: number[] = [];
    const tokenRuns: number[] = [];
    const cli: number[] = [];
    const peer: number[] = [];
    // One untimed round warms the OS file cache for every file involved.
    run(["-e", "0"]);
    run(["-e", `require(${JSON.stringify(ENTRY)})`]);
    const floorArgs = (which: "undici" | "http") => [FIRST_REQUEST_CHILD, which, String(port)];
    await toFirstRequest(TOKEN_ARGS(port), next, TOKEN_ENV);
    await toFirstRequest(floorArgs("undici"), next);
    await toFirstRequest(floorArgs("http"), next);
    await tokenRun(outputsFile);
    run([CLI, "--help"]);
    run(["-e", IMPORT_TIMER(peerModule)]);
    for (let i = 0; i < samples; i++) {
      node.push(run(["-e", "0"]).ms);
      entry.push(run(["-e", `require(${JSON.stringify(ENTRY)})`]).ms);
      token.push(await toFirstRequest(TOKEN_ARGS(port), next, TOKEN_ENV));
      undici.push(await toFirstRequest(floorArgs("undici"), next));
      http.push(await toFirstRequest(floorArgs("http"), next));
      tokenRuns.push(await tokenRun(outputsFile));
      cli.push(run([CLI, "--help"]).ms);
      peer.push(Number(run(["-e", IMPORT_TIMER(peerModule)]).stdout));
    }
    return {
      nodeStartMs: median(node),
      nodeRssMb: await medianOf3(() => peakRss(["-e", "0"])),
      entryStartMs: median(entry),
      entryRssMb: await medianOf3(() => peakRss(["-e", `require(${JSON.stringify(ENTRY)})`])),
      tokenFirstRequestMs: median(token),
      undiciFirstRequestMs: median(undici),
      httpFirstRequestMs: median(http),
      tokenRssMb: await medianOf3(() => peakRss(TOKEN_ARGS(port), TOKEN_ENV)),
      tokenRunMs: median(tokenRuns),
      cliStartMs: median(cli),
      peerImportMs: median(peer),
      ratios: {
        entry: pairedRatio(entry, node),
        tokenFirstRequest: pairedRatio(token, node),
        undiciFirstRequest: pairedRatio(undici, node),
        httpFirstRequest: pairedRatio(http, node),
        tokenRun: pairedRatio(tokenRuns, node),
        cli: pairedRatio(cli, node),
        tokenOverUndici: pairedRatio(token, undici),
      },
      samples,
    };
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    await emulator?.close();
  }
}
