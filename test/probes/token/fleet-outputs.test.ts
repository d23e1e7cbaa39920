/**
 * A fleet's --outputs file: the top-level keys describe the first agent, and
 * `agents` maps every agent's name to its ids. `--agent NAME` picks one.
 */
import { SHARE_URLS } from "../../../emulator/seed";
import { startEmulator } from "../../../emulator/server";
import { addAgent, claimsOf, NO_ENV, onlyJson, runCli, useEmulator, writeOutputs } from "../../harness";

const ctx = useEmulator();

function fleetFile(): { file: string; second: ReturnType<typeof addAgent> } {
  const first = ctx.out;
  const second = addAgent(ctx.emulator);
  const agents = {
    alpha: { agentIdentityId: first.agentIdentityId, agentUserId: first.agentUserId, agentUserPrincipalName: first.agentUserPrincipalName, grantId: first.grantId },
    beta: { agentIdentityId: second.identity.id, agentUserId: second.user.id, agentUserPrincipalName: second.user.userPrincipalName, grantId: second.grantId },
  };
  return { file: writeOutputs(ctx.scratch.dir, ctx.out, { agents }), second };
}

describe("token --outputs FILE --agent NAME", () => {
  it("mints for the named agent of a fleet", async () => {
    const { file, second } = fleetFile();
    // The second agent's grant was just written: wait out the emulator's replication lag, as a user would after `pulumi up`.
    const run = await runCli(["token", "--outputs", file, "--agent", "beta", "--replication-window", "30", "--show-token", "--json"], NO_ENV);
    expect(run.code).toBe(0);
    const claims = claimsOf(String(onlyJson(run).token));
    expect(claims.oid).toBe(second.user.id);
    expect(claims.azp ?? claims.appid).toBe(second.identity.id);
  });

  it("several agents and no --agent is a usage error that lists the names; nothing is sent", async () => {
    const { file } = fleetFile();
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", file, "--json"], NO_ENV);
    expect(run.code).toBe(2);
    expect(onlyJson(run)).toMatchObject({ ok: false, error: "usage", message: expect.stringMatching(/describes 2 agents; pick one with --agent NAME/), hint: "agents: alpha, beta" });
    const unknown = onlyJson(await runCli(["token", "--outputs", file, "--agent", "gamma", "--json"], NO_ENV));
    expect(unknown).toMatchObject({ error: "usage", message: expect.stringMatching(/no agent named "gamma"/), hint: "agents: alpha, beta" });
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it("--agent without --outputs, and a malformed agents map, are usage errors that never quote a value", async () => {
    const alone = onlyJson(await runCli(["token", "--agent", "alpha", "--json"], NO_ENV));
    expect(alone.message).toMatch(/--agent picks an agent of a fleet's --outputs file/);
    const secretish = "not-a-string-secret-value";
    const bad = writeOutputs(ctx.scratch.dir, ctx.out, { agents: { alpha: { agentIdentityId: { nested: secretish }, agentUserId: "x", agentUserPrincipalName: "y" } } });
    const run = await runCli(["token", "--outputs", bad, "--json"], NO_ENV);
    expect(run.code).toBe(2);
    expect(onlyJson(run).message).toMatch(/agents\.alpha\.agentIdentityId is an object, not a string/);
    expect(run.stdout + run.stderr).not.toContain(secretish);
    const topLevel = writeOutputs(ctx.scratch.dir, ctx.out, { blueprintClientSecret: { value: secretish } });
    const run2 = await runCli(["token", "--outputs", topLevel, "--json"], NO_ENV);
    expect(run2.code).toBe(2);
    expect(onlyJson(run2).message).toMatch(/blueprintClientSecret is an object, not a string/);
    expect(run2.stdout + run2.stderr).not.toContain(secretish);
  });

  it("a one-agent agents map needs no --agent", async () => {
    const first = ctx.out;
    const file = writeOutputs(ctx.scratch.dir, first, {
      agents: { solo: { agentIdentityId: first.agentIdentityId, agentUserId: first.agentUserId, agentUserPrincipalName: first.agentUserPrincipalName } },
    });
    const run = await runCli(["token", "--outputs", file, "--json"], NO_ENV);
    expect(run.code).toBe(0);
  });
});

describe("comments --outputs FILE --agent NAME", () => {
  it("captures as the named agent, and asks for --agent when the file has several", async () => {
    const { file } = fleetFile();
    const out = `${ctx.scratch.dir}/capture-${Date.now()}`;
    const run = await runCli(["comments", SHARE_URLS.workbook, "--outputs", file, "--agent", "alpha", "--out", out], NO_ENV);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const ambiguous = await runCli(["comments", SHARE_URLS.workbook, "--outputs", file, "--out", `${out}-2`], NO_ENV);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/describes 2 agents; pick one with --agent NAME\nhint: agents: alpha, beta/);
  });
});

describe("emulator --agents N", () => {
  it("seeds N agents under the blueprint; its outputs are fleet-shaped, and every agent mints", async () => {
    const fleet = await startEmulator({ agents: 3 });
    try {
      const out = fleet.outputs();
      expect(Object.keys(out.agents ?? {})).toEqual(["research-agent", "agent-2", "agent-3"]);
      expect(out.agentUserId).toBe(out.agents!["research-agent"]!.agentUserId);
      const file = writeOutputs(ctx.scratch.dir, out);
      for (const name of Object.keys(out.agents!)) {
        const run = await runCli(["token", "--outputs", file, "--agent", name, "--json"], NO_ENV);
        expect(onlyJson(run)).toMatchObject({ ok: true, claims: { oid: out.agents![name]!.agentUserId } });
      }
    } finally {
      await fleet.close();
    }
  });

  it("is refused beside --tenant, and outside 1 to 10,000", async () => {
    for (const argv of [["--agents", "0"], ["--agents", "2.5"], ["--agents", "3", "--tenant", "t.json"]]) {
      const run = await runCli(["emulator", ...argv], NO_ENV);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--agents/);
    }
  });
});
