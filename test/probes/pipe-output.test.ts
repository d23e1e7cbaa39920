/**
 * The `agent-user` bin's whole output through a pipe: a pipe takes what its
 * reader has room for and Node keeps the rest in the process, so a process
 * that exits at once loses it. Each run here is a separate process whose
 * stdout and stderr are pipes read slowly, and what arrives must be all of
 * it: one valid JSON object, or every row of the table.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { agentEntries, DEFAULT_IDS, fleetTenant } from "../../emulator/seed";
import type { TenantSeed } from "../../emulator/store";
import { startEmulator, type Emulator } from "../../emulator/server";
import type { FleetAgentOutputs, StackOutputs } from "../../lib/stack-outputs";
import { scratchDir } from "../harness";

const ROOT = resolve(__dirname, "../..");
const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin["agent-user"]!);

const scratch = scratchDir();
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
});
afterAll(() => scratch.remove());

interface PipedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bin with stdout and stderr on pipes, read slowly: after each chunk
 * the pipe is left unread until the event loop has gone round, so the child
 * finds it full again and again.
 */
function piped(args: string[], env: NodeJS.ProcessEnv = {}): Promise<PipedRun> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: scratch.dir, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const read = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  for (const name of ["stdout", "stderr"] as const) {
    const stream = child[name];
    stream.on("data", (chunk: Buffer) => {
      read[name].push(chunk);
      stream.pause();
      setImmediate(() => stream.resume());
    });
  }
  return new Promise((done) =>
    child.on("close", (code) => done({ code, stdout: Buffer.concat(read.stdout).toString("utf8"), stderr: Buffer.concat(read.stderr).toString("utf8") })),
  );
}

/** An outputs file of `count` agents whose agent identity ids are malformed: each fails on its own (exit 2), nothing is sent. */
function malformedFleet(count: number): string {
  const agents: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) agents[`agent-${i}`] = { agentIdentityId: `not-a-guid-${i}`, agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d", agentUserPrincipalName: `agent-${i}@contoso.onmicrosoft.com` };
  const file = join(scratch.dir, `malformed-${count}.json`);
  const outputs = {
    tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d",
    authorityUrl: "http://127.0.0.1:9",
    blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
    blueprintClientSecret: "pipe-test-secret",
    agents,
  };
  writeFileSync(file, JSON.stringify(outputs), { mode: 0o600 });
  return file;
}

const lines = (text: string) => text.split("\n").slice(0, -1);

describe("10,000 agents, each failing on its own: the whole report reaches a slow pipe", () => {
  const file = () => malformedFleet(10_000);

  it("token --all --json: one valid JSON object with all 10,000 agents", async () => {
    const run = await piped(["token", "--outputs", file(), "--all", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("");
    expect(lines(run.stdout)).toHaveLength(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; agents: Array<{ name: string; ok: boolean; error: string }> };
    expect(report.ok).toBe(false);
    expect(report.agents.map((a) => a.name)).toEqual(Array.from({ length: 10_000 }, (_, i) => `agent-${i}`));
    expect(report.agents.every((a) => !a.ok && a.error === "usage")).toBe(true);
  });

  it("token --all: every row of the table on stdout, and every agent's error on stderr", async () => {
    const run = await piped(["token", "--outputs", file(), "--all"]);
    expect(run.code).toBe(2);
    const table = lines(run.stdout);
    expect(table).toHaveLength(10_002);
    expect(table[0]).toMatch(/^agent\s+result\s+ms\s+expires$/);
    expect(table.slice(1, -1).map((row) => row.split(/\s+/)[0])).toEqual(Array.from({ length: 10_000 }, (_, i) => `agent-${i}`));
    expect(table.at(-1)).toBe("10000 agents: 0 ok, 10000 failed");
    const errors = lines(run.stderr).filter((l) => /^agent-\d+: error: /.test(l));
    expect(errors).toHaveLength(10_000);
    expect(errors.at(-1)).toMatch(/^agent-9999: error: /);
  });
});

/**
 * A tenant of `count` agent users, all under the seeded agent identity, each
 * with its grant: the fleet's T1 and T2 are minted once, so the run costs one
 * request per agent.
 */
function sharedIdentityFleet(count: number): { tenant: TenantSeed; agents: Record<string, FleetAgentOutputs> } {
  const tenant = fleetTenant(1);
  const agents: Record<string, FleetAgentOutputs> = {};
  for (let n = 1; n <= count; n++) {
    const agentUserId = randomUUID();
    const agentUserPrincipalName = `agent-${n}@${DEFAULT_IDS.domain}`;
    const { user } = agentEntries({ identityId: DEFAULT_IDS.agentIdentityId, userId: agentUserId, displayName: `Agent ${n}`, userPrincipalName: agentUserPrincipalName, blueprintAppId: DEFAULT_IDS.blueprintAppId, sponsors: [DEFAULT_IDS.sponsorId] });
    tenant.users.push(user);
    tenant.grants.push({ ...tenant.grants[0]!, id: randomUUID(), principalId: agentUserId });
    agents[`agent-${n}`] = { agentIdentityId: DEFAULT_IDS.agentIdentityId, agentUserId, agentUserPrincipalName };
  }
  return { tenant, agents };
}

describe("on the emulator", () => {
  let emulator: Emulator;
  let outputs: StackOutputs;
  let file: string;
  beforeAll(async () => {
    const fleet = sharedIdentityFleet(3000);
    emulator = await startEmulator({ tenant: fleet.tenant });
    outputs = { ...emulator.outputs(), agents: fleet.agents };
    file = join(scratch.dir, "outputs-3000.json");
    writeFileSync(file, JSON.stringify(outputs), { mode: 0o600 });
  });
  afterAll(() => emulator?.close());

  it("token --all --json for 3,000 agents: one valid JSON object with 3,000 agents, all ok", async () => {
    const run = await piped(["token", "--outputs", file, "--all", "--json", "--concurrency", "32"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(lines(run.stdout)).toHaveLength(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; agents: Array<{ name: string; ok: boolean }> };
    expect(report.ok).toBe(true);
    expect(report.agents.map((a) => a.name)).toEqual(Object.keys(outputs.agents!));
    expect(report.agents.every((a) => a.ok)).toBe(true);
  }, 120_000);

  it("token --all for 3,000 agents: every row of the table, each ok", async () => {
    const run = await piped(["token", "--outputs", file, "--all", "--concurrency", "32"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const table = lines(run.stdout);
    expect(table).toHaveLength(3002);
    expect(table.slice(1, -1).map((row) => row.split(/\s+/)[0])).toEqual(Object.keys(outputs.agents!));
    for (const row of table.slice(1, -1)) expect(row).toMatch(/^\S+\s+ok\s+\d+\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(table.at(-1)).toBe("3000 agents: 3000 ok, 0 failed");
  }, 120_000);

  it("doctor --all --json for 300 agents: one valid JSON object with every agent's links", async () => {
    const small = await startEmulator({ agents: 300 });
    try {
      const doctorFile = join(scratch.dir, "outputs-300.json");
      writeFileSync(doctorFile, JSON.stringify(small.outputs()), { mode: 0o600 });
      const p = small.provisioner()!;
      const run = await piped(["doctor", "--outputs", doctorFile, "--all", "--json"], { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(lines(run.stdout)).toHaveLength(1);
      const report = JSON.parse(run.stdout) as { ok: boolean; links: Array<{ agent: string; status: string }> };
      expect(report.ok).toBe(true);
      expect(new Set(report.links.map((l) => l.agent))).toEqual(new Set(Object.keys(small.outputs().agents!)));
      expect(report.links.every((l) => l.status === "ok")).toBe(true);
    } finally {
      await small.close();
    }
  }, 120_000);
});
