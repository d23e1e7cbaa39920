/**
 * The built `agent-user` bin, run as a separate process the way a pipeline
 * runs it: exit codes and stdout survive the trip through process.exit.
 */
import { execFile, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { JWT_SHAPE, useEmulator, writeOutputs } from "../../harness";

const ROOT = resolve(__dirname, "../../..");
const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin["agent-user"]!);

// `npm test` builds first; rebuilding here would rewrite the bundles other test workers are loading.
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
});
const ctx = useEmulator();

/** The emulator's certificate in a file, for NODE_EXTRA_CA_CERTS, as `agent-user emulator` writes it. */
function caFile(): string {
  const path = join(ctx.scratch.dir, "ca.pem");
  writeFileSync(path, ctx.emulator.caPem);
  return path;
}

/** Runs the bin asynchronously (the emulator answers from this process) with only PATH inherited. */
function agentUser(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ctx.scratch.dir, env: { PATH: process.env.PATH, ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

it("the package bin is the built CLI, with a node shebang", () => {
  expect(BIN).toBe(join(ROOT, "dist/probes/agent-user.js"));
  expect(readFileSync(BIN, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
});

it("agent-user --help exits 0", async () => {
  const run = await agentUser(["--help"]);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^agent-user: mint and probe Microsoft Entra agent user tokens/);
  expect(run.stderr).toBe("");
});

it("agent-user --version prints the package version", async () => {
  const run = await agentUser(["--version"]);
  expect(run).toEqual({ code: 0, stdout: `${(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version}\n`, stderr: "" });
});

// Every command, as probes/commands names them: each runs from its own bundle (scripts/bundle-cli.js).
const COMMANDS = readdirSync(join(ROOT, "probes/commands")).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -".ts".length));

it("every command has its bundle beside the dispatcher's", () => {
  expect(COMMANDS.length).toBeGreaterThanOrEqual(6);
  expect(readdirSync(join(ROOT, "dist/probes/bundle")).sort()).toEqual(["cli.js", ...COMMANDS.map((c) => `${c}.js`)].sort());
});

it.each(COMMANDS)("agent-user %s --help has a title line and ends with two or three examples of itself", async (command) => {
  const run = await agentUser([command, "--help"]);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(new RegExp(`^agent-user ${command}: `));
  const examples = run.stdout.split("\nExamples:\n")[1]!.trimEnd().split("\n");
  expect(examples.length).toBeGreaterThanOrEqual(2);
  expect(examples.length).toBeLessThanOrEqual(4);
  expect(examples.filter((line) => line.includes(`agent-user ${command}`)).length).toBeGreaterThanOrEqual(2);
});

it("agent-user token --outputs FILE --json mints the token: exit 0, one JSON object on stdout", async () => {
  const out = ctx.emulator.outputs();
  const before = ctx.emulator.requests.length;
  const run = await agentUser(["token", "--outputs", writeOutputs(ctx.scratch.dir, out), "--json"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  const body = JSON.parse(lines[0]!) as Record<string, unknown>;
  expect(body).toMatchObject({ ok: true, claims: { idtyp: "user", oid: out.agentUserId, appid: out.agentIdentityId, tid: out.tenantId } });
  expect((body.hops as unknown[]).length).toBe(3);
  expect(run.stdout).not.toMatch(JWT_SHAPE);
  expect(ctx.emulator.requests.slice(before).filter((r) => r.surface === "token").map((r) => r.status)).toEqual([200, 200, 200]);
});

it("over https, trusting the emulator through NODE_EXTRA_CA_CERTS", async () => {
  const run = await agentUser(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.emulator.outputs("https")), "--json"], { NODE_EXTRA_CA_CERTS: caFile() });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
});

it("a rejected request exits 3 from the process too, with the failure object on stdout", async () => {
  const secret = "bin-test-wrong-secret-0f3a";
  const run = await agentUser(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.emulator.outputs()), "--json"], { AGENT_USER_BLUEPRINT_SECRET: secret });
  expect(run.code).toBe(3);
  expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, hop: 1, codes: [7000215] });
  expect(run.stdout + run.stderr).not.toContain(secret);
});

/** The machine's own Node.js older than 22 on PATH, if any (this project's machines ship Node 20). */
function olderNode(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "node");
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout?.trim();
    if (version && Number(/^v(\d+)\./.exec(version)?.[1]) < 22) return candidate;
  }
  return undefined;
}

const TOO_OLD = /^agent-user: Node\.js 22\.0 or later is required \(22 and 24 are the supported LTS lines\); this is v(1\d|2[01])\.\d+\.\d+\n$/;

it("the version guard: told it runs on Node.js 20, one line naming the supported lines, exit 2", () => {
  const preload = join(ctx.scratch.dir, "node-20.js");
  writeFileSync(preload, 'Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });\nObject.defineProperty(process, "version", { value: "v20.20.2" });\n');
  const run = spawnSync(process.execPath, ["-r", preload, BIN, "token", "--help"], { encoding: "utf8", timeout: 20_000 });
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: "" });
  expect(run.stderr).toMatch(TOO_OLD);
});

// A real older Node.js also loads the bin and the CLI bundle as far as the guard; skipped, visibly, where there is none.
const older = olderNode();
(older ? it : it.skip)(`on a real Node.js older than 22 (${older ?? "none on PATH"}), the same line and exit 2`, () => {
  const run = spawnSync(older!, [BIN, "token", "--help"], { encoding: "utf8", timeout: 20_000 });
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: "" });
  expect(run.stderr).toMatch(TOO_OLD);
});

/** Runs the bin with its stdout on /dev/full, where every write fails with ENOSPC, as on a full disk. */
function toFullDisk(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  const out = openSync("/dev/full", "w");
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ctx.scratch.dir, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", out, "pipe"] });
  closeSync(out);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((done) => child.on("close", (code) => done({ code, stderr })));
}

(existsSync("/dev/full") ? it : it.skip)("output that cannot be written (stdout on a full disk) is exit 74 with the reason on stderr, not a silent success", async () => {
  expect(await toFullDisk(["--help"])).toEqual({ code: 74, stderr: "agent-user: cannot write the output: ENOSPC\n" });
  const outputs = ctx.emulator.outputs();
  const token = await toFullDisk(["token", "--outputs", writeOutputs(ctx.scratch.dir, outputs), "--json"]);
  expect(token).toEqual({ code: 74, stderr: "agent-user: cannot write the output: ENOSPC\n" });
  // A command that failed keeps its own code: the refusal (exit 3) matters more than the lost report of it.
  const refused = await toFullDisk(["token", "--outputs", writeOutputs(ctx.scratch.dir, { ...outputs, blueprintClientSecret: "wrong" }), "--json"]);
  expect(refused).toEqual({ code: 3, stderr: "agent-user: cannot write the output: ENOSPC\n" });
});

it("output to a pipe whose reader is gone is exit 74 naming EPIPE", async () => {
  const child = spawn(process.execPath, [BIN, "--help"], { cwd: ctx.scratch.dir, env: { PATH: process.env.PATH }, stdio: ["ignore", "pipe", "pipe"] });
  // Gone before the child, which takes tens of milliseconds to start, writes anything.
  child.stdout!.destroy();
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  expect({ code, stderr }).toEqual({ code: 74, stderr: "agent-user: cannot write the output: EPIPE\n" });
});
