/**
 * `agent-user token --outputs FILE --all`: a token for every agent of a fleet,
 * over real HTTP against an emulator seeded with several agents, counted and
 * timed from the emulator's side.
 */
import { randomUUID } from "node:crypto";
import { agentEntries } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import type { FleetAgentOutputs, StackOutputs } from "../../../lib/stack-outputs";
import { fleetExitCode } from "../../../probes/token-fleet";
import { addGrant, claimsOf, JWT_SHAPE, NO_ENV, onlyJson, runCli, tokenStatuses, useEmulator, writeOutputs, type CliRun } from "../../harness";

const ctx = useEmulator({ agents: 3 });

/** A second agent user under an existing agent identity, with its grant: a fleet with several users per identity. */
function addUserTo(emulator: Emulator, identityId: string): FleetAgentOutputs {
  const { store } = emulator;
  const userId = randomUUID();
  const upn = `agent-${userId.slice(0, 8)}@contoso.onmicrosoft.com`;
  const { user } = agentEntries({ identityId, userId, displayName: `user of ${identityId.slice(0, 8)}`, userPrincipalName: upn, blueprintAppId: emulator.outputs().blueprintAppId!, sponsors: [] });
  store.createUser({ ...user, createdAt: store.stamp() });
  const grantId = addGrant(emulator, identityId, userId);
  return { agentIdentityId: identityId, agentUserId: userId, agentUserPrincipalName: upn, grantId };
}

/** The seeded fleet (3 agents, 3 identities) plus two more agent users under each of the second and third identity: 7 agents. */
function sharedIdentityFleet(): Record<string, FleetAgentOutputs> {
  const seeded = ctx.out.agents!;
  const [, second, third] = Object.values(seeded).map((a) => a.agentIdentityId);
  return {
    ...seeded,
    "agent-2b": addUserTo(ctx.emulator, second!),
    "agent-2c": addUserTo(ctx.emulator, second!),
    "agent-3b": addUserTo(ctx.emulator, third!),
    "agent-3c": addUserTo(ctx.emulator, third!),
  };
}

const identitiesOf = (agents: Record<string, FleetAgentOutputs>) => new Set(Object.values(agents).map((a) => a.agentIdentityId)).size;

/** Runs the CLI and returns what it printed with the token requests the emulator saw meanwhile. */
async function counted(emulator: Emulator, argv: string[], tty = false): Promise<CliRun & { requests: number[] }> {
  const from = emulator.requests.length;
  const run = await runCli(argv, NO_ENV, undefined, tty);
  return { ...run, requests: tokenStatuses(emulator, from) };
}

describe("token --all: every agent ok", () => {
  it("--json: one object, every agent ok in the file's order, and T1/T2 requested once per identity (2 per identity + 1 per agent)", async () => {
    const agents = sharedIdentityFleet();
    expect(identitiesOf(agents)).toBe(3);
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agents });
    const run = await counted(ctx.emulator, ["token", "--outputs", file, "--all", "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const json = onlyJson(run) as { ok: boolean; agents: Array<Record<string, unknown>> };
    expect(json.ok).toBe(true);
    expect(json.agents.map((a) => a.name)).toEqual(Object.keys(agents));
    for (const agent of json.agents) {
      expect(agent).toMatchObject({ ok: true, exitCode: 0, ms: expect.any(Number), expiresOn: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      expect(agent.claims).toMatchObject({ idtyp: "user", oid: agents[agent.name as string]!.agentUserId, appid: agents[agent.name as string]!.agentIdentityId });
      expect(Date.parse(agent.expiresOn as string)).toBeGreaterThan(Date.now());
    }
    expect(run.stdout).not.toMatch(JWT_SHAPE);
    expect(run.requests).toEqual(Array(2 * 3 + 7).fill(200));
  });

  it("the human table: agent, ok, ms, expiry, and a summary; the agent variables of the environment are not read", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.out);
    const from = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", file, "--all"], { AGENT_USER_AGENT_IDENTITY_ID: "not-a-guid", AGENT_USER_AGENT_USER_ID: "nobody" });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^agent\s+result\s+ms\s+expires$/);
    expect(lines.slice(1, 4).map((l) => l.split(/\s+/)[0])).toEqual(["research-agent", "agent-2", "agent-3"]);
    for (const row of lines.slice(1, 4)) expect(row).toMatch(/^\S+\s+ok\s+\d+\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(lines[4]).toBe("3 agents: 3 ok, 0 failed");
    expect(lines).toHaveLength(5);
    expect(tokenStatuses(ctx.emulator, from)).toEqual(Array(9).fill(200));
  });

  it("--show-token adds each agent's token, for that agent user", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.out);
    const json = onlyJson(await runCli(["token", "--outputs", file, "--all", "--json", "--show-token"], NO_ENV)) as { agents: Array<{ name: string; token: string }> };
    for (const agent of json.agents) expect(claimsOf(agent.token).oid).toBe(ctx.out.agents![agent.name]!.agentUserId);
    const human = await runCli(["token", "--outputs", file, "--all", "--show-token"], NO_ENV);
    expect(human.stdout).toMatch(new RegExp(`^token agent-2: ${JWT_SHAPE.source}$`, "m"));
  });

  it("outputs without an agents map are a one-agent fleet, named by the UPN", async () => {
    const single = await startEmulator();
    try {
      const out = single.outputs();
      expect(out.agents).toBeUndefined();
      const file = writeOutputs(ctx.scratch.dir, out);
      const run = await runCli(["token", "--outputs", file, "--all", "--json"], NO_ENV);
      expect(run.code).toBe(0);
      expect(onlyJson(run)).toMatchObject({ ok: true, agents: [{ name: "research-agent", ok: true, claims: { oid: out.agentUserId } }] });
      // The name --all shows is one --agent takes, for the same agent user; another name is still refused.
      const one = await runCli(["token", "--outputs", file, "--agent", "research-agent", "--json"], NO_ENV);
      expect(one.stderr).toBe("");
      expect(one.code).toBe(0);
      expect(onlyJson(one)).toMatchObject({ ok: true, claims: { oid: out.agentUserId } });
      const other = await runCli(["token", "--outputs", file, "--agent", "research"], NO_ENV);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/has no agent named "research"/);
    } finally {
      await single.close();
    }
  });
});

describe("token --all: some agents fail", () => {
  const ghostOf = (out: StackOutputs): FleetAgentOutputs => {
    const userId = randomUUID();
    return { agentIdentityId: out.agents!["agent-2"]!.agentIdentityId, agentUserId: userId, agentUserPrincipalName: `ghost-${userId.slice(0, 8)}@contoso.onmicrosoft.com` };
  };

  it("an agent user that does not exist fails with its AADSTS code and exit 3; the others are still minted", async () => {
    const agents = { ...ctx.out.agents!, ghost: ghostOf(ctx.out) };
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agents });
    const run = await counted(ctx.emulator, ["token", "--outputs", file, "--all", "--json"]);
    expect(run.code).toBe(3);
    const json = onlyJson(run) as { ok: boolean; agents: Array<Record<string, unknown>> };
    expect(json.ok).toBe(false);
    expect(json.agents.filter((a) => a.ok).map((a) => a.name)).toEqual(["research-agent", "agent-2", "agent-3"]);
    const ghost = json.agents.find((a) => a.name === "ghost")!;
    expect(ghost).toEqual({
      name: "ghost",
      ok: false,
      exitCode: 3,
      ms: expect.any(Number),
      hop: 3,
      step: "hop 3 (agent user token)",
      status: 400,
      error: "invalid_grant",
      codes: [50034],
      message: expect.stringMatching(/^hop 3 \(agent user token\): .*AADSTS50034/),
      hint: expect.any(String),
      traceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(run.stdout).not.toMatch(JWT_SHAPE);
    // The ghost shares agent-2's identity: its T1 and T2 are agent-2's, so it costs one request.
    expect(run.requests.filter((s) => s === 200)).toHaveLength(2 * 3 + 3);
    expect(run.requests.filter((s) => s === 400)).toHaveLength(1);

    const human = await runCli(["token", "--outputs", file, "--all"], NO_ENV);
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/^ghost\s+AADSTS50034\s+\d+\s+-$/m);
    expect(human.stdout).toMatch(/^4 agents: 3 ok, 1 failed$/m);
    expect(human.stderr).toMatch(/^ghost: error: hop 3 \(agent user token\): .*AADSTS50034.*\n {2}hint: \S/);
  });

  it("a malformed agent entry fails that agent with exit 2 and sends nothing for it; usage outranks a rejection", async () => {
    const agents = { ...ctx.out.agents!, ghost: ghostOf(ctx.out), malformed: { ...ctx.out.agents!["agent-3"]!, agentIdentityId: "not-a-guid" } };
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agents });
    const run = await counted(ctx.emulator, ["token", "--outputs", file, "--all", "--json"]);
    expect(run.code).toBe(2);
    const json = onlyJson(run) as { agents: Array<Record<string, unknown>> };
    expect(json.agents.map((a) => [a.name, a.exitCode])).toEqual([
      ["research-agent", 0],
      ["agent-2", 0],
      ["agent-3", 0],
      ["ghost", 3],
      ["malformed", 2],
    ]);
    expect(json.agents[4]).toMatchObject({ ok: false, error: "usage", step: `--outputs ${file}: agent malformed`, message: expect.stringMatching(/"agentIdentityId" must be the agent identity's object id \(a GUID\), got "not-a-guid"/) });
    expect(run.requests).toHaveLength(2 * 3 + 4);
  });

  it("150,000 agents with malformed ids: the table has every row and exit 2, nothing sent", async () => {
    const agents: Record<string, FleetAgentOutputs> = {};
    for (let i = 0; i < 150_000; i++) agents[`agent-${i}`] = { ...ctx.out.agents!["agent-2"]!, agentIdentityId: `not-a-guid-${i}` };
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agents });
    const run = await counted(ctx.emulator, ["token", "--outputs", file, "--all"]);
    expect(run.code).toBe(2);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(150_002);
    expect(lines[150_000]).toMatch(/^agent-149999\s+usage\s+\d+\s+-$/);
    expect(lines[150_001]).toBe("150000 agents: 0 ok, 150000 failed");
    expect(run.requests).toEqual([]);
  }, 120_000);

  it("the exit code is the most severe failure's: usage 2, then bad claims 5, then rejected 3, then unreachable 4", () => {
    expect(fleetExitCode([0, 0, 0])).toBe(0);
    expect(fleetExitCode([0, 4, 0])).toBe(4);
    expect(fleetExitCode([4, 3, 4])).toBe(3);
    expect(fleetExitCode([3, 5, 4])).toBe(5);
    expect(fleetExitCode([5, 3, 2, 4])).toBe(2);
    expect(fleetExitCode([4, 3, 5, 2].reverse())).toBe(2);
  });
});

describe("token --all: concurrency and progress", () => {
  /** The most token requests the emulator held at once while `work` ran (each is held by its latency fault). */
  async function maxInFlight(emulator: Emulator, work: () => Promise<CliRun>): Promise<{ run: CliRun; max: number }> {
    const from = emulator.requests.length;
    let max = 0;
    const sample = setInterval(() => {
      max = Math.max(max, emulator.requests.slice(from).filter((r) => r.surface === "token" && r.status === 0).length);
    }, 2);
    try {
      return { run: await work(), max };
    } finally {
      clearInterval(sample);
    }
  }

  it("mints at most --concurrency agents at a time (default 8), as the emulator sees it", async () => {
    const fleet = await startEmulator({ agents: 10, faults: { latencyMs: 150, target: "token" } });
    try {
      const file = writeOutputs(ctx.scratch.dir, fleet.outputs());
      const three = await maxInFlight(fleet, () => runCli(["token", "--outputs", file, "--all", "--concurrency", "3", "--json"], NO_ENV));
      expect(three.run.code).toBe(0);
      expect(three.max).toBe(3);
      const byDefault = await maxInFlight(fleet, () => runCli(["token", "--outputs", file, "--all", "--json"], NO_ENV));
      expect(byDefault.run.code).toBe(0);
      expect(byDefault.max).toBe(8);
    } finally {
      await fleet.close();
    }
  });

  it("a live progress line on stderr only on a terminal, cleared before the table, and never with --json", async () => {
    const agents = { ...ctx.out.agents!, ghost: { ...ctx.out.agents!["agent-2"]!, agentUserId: randomUUID() } };
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agents });
    const tty = await runCli(["token", "--outputs", file, "--all"], NO_ENV, undefined, true);
    expect(tty.code).toBe(3);
    expect(tty.stderr).toContain("\r\x1b[2Kminting agent user tokens: 0/4 done");
    expect(tty.stderr).toContain("\r\x1b[2Kminting agent user tokens: 4/4 done, 1 failed\r\x1b[2K");
    expect(tty.stdout).not.toContain("\x1b");
    const log = await runCli(["token", "--outputs", file, "--all"], NO_ENV, undefined, false);
    expect(log.stderr).not.toContain("minting");
    expect(log.stderr).not.toContain("\x1b");
    for (const tty of [true, false]) {
      const json = await runCli(["token", "--outputs", file, "--all", "--json"], NO_ENV, undefined, tty);
      expect(json.stderr).toBe("");
      expect(onlyJson(json).ok).toBe(false);
    }
  });

  it("waits (a 429) are printed above the live line on a terminal, and with --verbose in a log", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.out);
    ctx.emulator.faults.set({ throttle: 1, retryAfterS: 0, target: "token" });
    try {
      const tty = await runCli(["token", "--outputs", file, "--all"], NO_ENV, undefined, true);
      expect(tty.code).toBe(0);
      // Erase the live line, the wait on a line of its own, then the live line again.
      const wait = tty.stderr.split("\r\x1b[2K").find((part) => part.startsWith("waiting "));
      expect(wait).toMatch(/^waiting \d+\.\d s before attempt 2: hop 1 \(blueprint token\).*\nminting agent user tokens: \d\/3 done$/);
      ctx.emulator.faults.set({ throttle: 1, retryAfterS: 0, target: "token" });
      const verbose = await runCli(["token", "--outputs", file, "--all", "--verbose"], NO_ENV);
      expect(verbose.code).toBe(0);
      expect(verbose.stderr).toMatch(/^waiting \d+\.\d s before attempt 2: hop 1/m);
      expect(verbose.stderr).not.toContain("minting");
    } finally {
      ctx.emulator.faults.reset();
    }
  });
});

describe("token --all: usage", () => {
  it("is refused with --agent, --agent-identity, --agent-user, without --outputs, and with a bad --concurrency; nothing is sent", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.out);
    const before = ctx.emulator.requests.length;
    const cases: Array<[string[], RegExp]> = [
      [["--outputs", file, "--all", "--agent", "agent-2"], /--all mints for every agent of --outputs .*; leave out --agent$/],
      [["--outputs", file, "--all", "--agent-identity", randomUUID()], /leave out --agent-identity$/],
      [["--outputs", file, "--all", "--agent-user", randomUUID()], /leave out --agent-user$/],
      [["--all"], /--all mints for every agent of an --outputs file; give --outputs too/],
      [["--outputs", file, "--concurrency", "4"], /--concurrency applies to --all only/],
      ...["0", "1.5", "", "1001", "many"].map((n): [string[], RegExp] => [["--outputs", file, "--all", "--concurrency", n], /--concurrency must be a whole number from 1 to 1000/]),
      [["--outputs", writeOutputs(ctx.scratch.dir, ctx.out, { agents: {} }), "--all"], /the agents map is empty/],
    ];
    for (const [argv, message] of cases) {
      const run = await runCli(["token", ...argv, "--json"], NO_ENV);
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(onlyJson(run)).toMatchObject({ ok: false, error: "usage", message: expect.stringMatching(message) });
    }
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it("help token shows --all, --concurrency and a fleet example", async () => {
    const run = await runCli(["help", "token"], NO_ENV);
    expect(run.stdout).toMatch(/^ {2}--all {2,}mint for every agent/m);
    expect(run.stdout).toMatch(/^ {2}--concurrency N {2,}with --all, .*default 8/m);
    expect(run.stdout).toMatch(/^ {2}agent-user token --outputs outputs\.json --all .*--json$/m);
  });
});
