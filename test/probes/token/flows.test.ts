/**
 * `agent-user token --as app` and `--on-behalf-of FILE`, in-process against
 * the emulator: the agent identity's own token with the app roles the
 * outputs declare checked, a person's token through the on-behalf-of flow,
 * `--all` over a fleet for both, and the exit codes of the table.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { MICROSOFT_GRAPH_APP_ID } from "../../../lib/entra-rules";
import { NO_ENV, onlyJson, runCli, tokenStatuses, useEmulator, userAssertion, writeOutputs } from "../../harness";

const ctx = useEmulator({ agents: 2, features: ["appRoles", "onBehalfOf"] });
const GRAPH_ROLES = (roles: string[]) => [{ resource: MICROSOFT_GRAPH_APP_ID, roles }];

function assertionFile(token: string): string {
  const file = join(ctx.scratch.dir, `user-${Math.random().toString(36).slice(2)}.jwt`);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

describe("--as app", () => {
  it("mints the agent identity's own token, two hops, its roles shown and checked against the outputs", async () => {
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--agent", "research-agent", "--as", "app", "--json"], NO_ENV);
    expect(run.code).toBe(0);
    const body = onlyJson(run);
    expect(body).toMatchObject({ ok: true, flow: "app", claims: { idtyp: "app", oid: ctx.out.agentIdentityId, roles: ["User.Read.All"] } });
    expect((body.hops as unknown[]).length).toBe(2);
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200]);
  });

  it("exits 5 naming the app role assignment the outputs declare and the token lacks", async () => {
    const out = writeOutputs(ctx.scratch.dir, ctx.out, { agents: { ...ctx.out.agents, "research-agent": { ...ctx.out.agents!["research-agent"], appRoles: GRAPH_ROLES(["User.Read.All", "Mail.Read"]) } } });
    const run = await runCli(["token", "--outputs", out, "--agent", "research-agent", "--as", "app"], NO_ENV);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/hop 2 \(agent app token\): the token's claims are wrong: roles is "User\.Read\.All", expected "to hold Mail\.Read"/);
    expect(run.stderr).toMatch(/hint: .*no app role assignment for Mail\.Read .*appRoles/);
  });

  it("names the first five of 100,000 declared roles the token lacks and counts the rest, in a few hundred characters", async () => {
    const roles = Array.from({ length: 100_000 }, (_, i) => `Role${i}.Read`);
    const out = writeOutputs(ctx.scratch.dir, ctx.out, { agents: { ...ctx.out.agents, "research-agent": { ...ctx.out.agents!["research-agent"], appRoles: GRAPH_ROLES(roles) } } });
    const run = await runCli(["token", "--outputs", out, "--agent", "research-agent", "--as", "app"], NO_ENV);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/hint: .*no app role assignment for Role0\.Read, Role1\.Read, Role2\.Read, Role3\.Read, Role4\.Read and 99,995 more on /);
    expect(run.stderr.length).toBeLessThan(1500);
  });

  it("--all mints every agent's app token, T1 once per identity, and lays each failure on its agent", async () => {
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--all", "--as", "app", "--json"], NO_ENV);
    expect(run.code).toBe(0);
    const body = onlyJson(run) as { agents: Array<{ name: string; ok: boolean; claims: { idtyp: string } }> };
    expect(body.agents.map((a) => [a.name, a.ok, a.claims.idtyp])).toEqual([
      ["research-agent", true, "app"],
      ["agent-2", true, "app"],
    ]);
  });

  it("refuses --as with another value, with --on-behalf-of, and with --agent-user, before anything is sent", async () => {
    const before = ctx.emulator.requests.length;
    const out = writeOutputs(ctx.scratch.dir, ctx.out);
    for (const argv of [["--as", "robot"], ["--as", "app", "--on-behalf-of", "x"], ["--as", "app", "--agent-user", DEFAULT_IDS.agentUserId]]) {
      const run = await runCli(["token", "--outputs", out, "--agent", "research-agent", ...argv], NO_ENV);
      expect([argv, run.code]).toEqual([argv, 2]);
    }
    expect(ctx.emulator.requests.length).toBe(before);
  });
});

describe("--on-behalf-of FILE", () => {
  it("mints a token for the person of the file, as the agent identity", async () => {
    const file = assertionFile(await userAssertion(ctx.emulator));
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--agent", "research-agent", "--on-behalf-of", file], NO_ENV);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^hop 2 \(on-behalf-of token\) /m);
    expect(run.stdout).toMatch(new RegExp(`^ {2}oid +${DEFAULT_IDS.sponsorId}$`, "m"));
    expect(run.stdout).toMatch(/^ {2}scp +User\.Read$/m);
  });

  it("exits 3 naming the missing consent for an agent without one (AADSTS65001)", async () => {
    const file = assertionFile(await userAssertion(ctx.emulator));
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--agent", "agent-2", "--on-behalf-of", file, "--json"], NO_ENV);
    expect(run.code).toBe(3);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 2, step: "hop 2 (on-behalf-of token)", codes: [65001], hint: expect.stringMatching(/no delegated consent/) });
  });

  it("names the person's token and --on-behalf-of, not the client assertion, when the file holds no JWT (AADSTS50027)", async () => {
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--agent", "research-agent", "--on-behalf-of", assertionFile("not-a-jwt"), "--json"], NO_ENV);
    expect(run.code).toBe(3);
    const body = onlyJson(run);
    expect(body).toMatchObject({ ok: false, hop: 2, step: "hop 2 (on-behalf-of token)", codes: [50027] });
    expect(body.hint).toMatch(/^the person's assertion \(the file --on-behalf-of names\) is not a well-formed JWT/);
    expect(body.hint).not.toMatch(/client assertion|userAssertion/);
  });

  it("refuses a token longer than any Entra issues (64 KiB), naming the flag, exit 2, before anything is sent", async () => {
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--agent", "research-agent", "--on-behalf-of", assertionFile("x".repeat(70_000)), "--json"], NO_ENV);
    expect(run.code).toBe(2);
    expect(onlyJson(run)).toMatchObject({
      ok: false,
      error: "usage",
      message: "configuration: the file --on-behalf-of names holds 70,000 characters, more than any access token Entra issues (at most 65,536, 64 KiB)",
      hint: "write the person's access token alone into the file",
    });
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it("refuses a file that holds no token, naming the flag and never the path or the content, before anything is sent", async () => {
    const before = ctx.emulator.requests.length;
    const file = assertionFile("two words");
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--agent", "research-agent", "--on-behalf-of", file], NO_ENV);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the file --on-behalf-of names does not hold one token/);
    expect(run.stderr).not.toContain(file);
    expect(ctx.emulator.requests.length).toBe(before);
  });
});
