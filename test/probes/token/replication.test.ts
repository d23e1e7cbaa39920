/**
 * Right after `pulumi up`, new objects and grants are unknown to the token
 * endpoint for a while (AADSTS700016, 65001). With --consistency-window the
 * probe waits that out, never longer than the window; without it, it fails
 * at once with a hint that names the flag.
 * Nothing here replicates on a clock: the lag outlasts any test, and a test
 * brings the objects into view itself once the token endpoint has refused the
 * CLI, so a slow start on a loaded machine changes nothing.
 */
import { addAgent, addGrant, onlyJson, runCli, tokenStatuses, useEmulator, writeOutputs, type AgentFixture, type CliRun } from "../../harness";

/** Longer than any run here: an object replicates only when a test says so. */
const LAG_MS = 3_600_000;

const ctx = useEmulator({ replicationLagMs: LAG_MS });

/** Resolves once the token endpoint has answered a request made since `from` with a 400. */
async function refusedSince(from: number): Promise<void> {
  while (!tokenStatuses(ctx.emulator, from).includes(400)) await new Promise((tick) => setTimeout(tick, 5));
}

/** Runs `token` with a replication window; once the token endpoint has refused it, `replicate` brings the objects into view. */
async function tokenWaitingFor(
  agent: { agentIdentityId: string; agentUserId: string },
  replicate: () => void,
  window = ["--consistency-window", "60"],
): Promise<{ run: CliRun; statuses: number[] }> {
  const from = ctx.emulator.requests.length;
  const running = token(agent, window);
  await refusedSince(from);
  replicate();
  const { run, statuses } = await running;
  return { run, statuses };
}

/** An agent fixture and its grant, as the token endpoint sees them once they have replicated. */
function replicateAgent(agent: AgentFixture): void {
  agent.identity.createdAt = 0;
  agent.user.createdAt = 0;
  if (agent.grantId) ctx.emulator.store.replicateGrantAt(agent.grantId, 0);
}

async function token(agent: { agentIdentityId: string; agentUserId: string }, extra: string[] = []): Promise<{ run: CliRun; statuses: number[] }> {
  const file = writeOutputs(ctx.scratch.dir, ctx.out, { ...agent, agentUserPrincipalName: undefined });
  const before = ctx.emulator.requests.length;
  const run = await runCli(["token", "--outputs", file, "--json", ...extra], {});
  return { run, statuses: tokenStatuses(ctx.emulator, before) };
}

const ids = (a: AgentFixture) => ({ agentIdentityId: a.identity.id, agentUserId: a.user.id });

describe("a new agent identity, agent user and grant", () => {
  it("without --consistency-window: fails at once on hop 2 with AADSTS700016, exit 3, hint names the flag", async () => {
    const { run, statuses } = await token(ids(addAgent(ctx.emulator)));
    expect(run.code).toBe(3);
    // No retry: one refusal and it stops.
    expect(statuses).toEqual([200, 400]);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 2, codes: [700016], hint: expect.stringMatching(/--consistency-window 120/) });
  });

  it("with --consistency-window: retries until the objects have replicated, then mints the token", async () => {
    const agent = addAgent(ctx.emulator);
    const { run, statuses } = await tokenWaitingFor(ids(agent), () => replicateAgent(agent));
    expect(run.code).toBe(0);
    expect(statuses.slice(-2)).toEqual([200, 200]);
    expect(statuses.slice(1, -2).every((s) => s === 400)).toBe(true);
    expect(statuses.length).toBeGreaterThan(3);
    expect(onlyJson(run).claims).toMatchObject({ oid: agent.user.id, appid: agent.identity.id });
  });

  it("a new agent user of an identity that has already replicated, without the window: AADSTS50034, exit 3, hint names the flag", async () => {
    const agent = addAgent(ctx.emulator);
    agent.identity.createdAt = 0;
    const { run, statuses } = await token(ids(agent));
    expect(run.code).toBe(3);
    expect(statuses).toEqual([200, 200, 400]);
    expect(onlyJson(run)).toMatchObject({ hop: 3, codes: [50034], hint: expect.stringMatching(/--consistency-window/) });
  });

  it("a new agent user of an identity that has already replicated is waited for too", async () => {
    const agent = addAgent(ctx.emulator);
    // The identity is old news to the token endpoint; its agent user was created just now.
    agent.identity.createdAt = 0;
    const { run, statuses } = await tokenWaitingFor(ids(agent), () => replicateAgent(agent));
    expect(statuses.slice(0, 3)).toEqual([200, 200, 400]);
    expect(statuses.at(-1)).toBe(200);
    expect(onlyJson(run)).toMatchObject({ ok: true, claims: { oid: agent.user.id } });
    expect(run.code).toBe(0);
  });

  it("a window shorter than the lag ends on its own with the replication error; how soon is lib/retry.ts's rule, held on a fake clock in test/lib/retry.test.ts", async () => {
    const agent = addAgent(ctx.emulator);
    const { run, statuses } = await token(ids(agent), ["--consistency-window", "1"]);
    expect(run.code).toBe(3);
    expect(onlyJson(run)).toMatchObject({ hop: 2, codes: [700016] });
    expect(statuses[0]).toBe(200);
    expect(statuses.slice(1).every((s) => s === 400)).toBe(true);
  });

  it("--replication-window, the deprecated spelling, is the same window, and stderr names its replacement", async () => {
    const agent = addAgent(ctx.emulator);
    const { run } = await tokenWaitingFor(ids(agent), () => replicateAgent(agent), ["--replication-window", "60"]);
    expect(run.stderr).toContain("agent-user token: --replication-window is deprecated and goes in the next release; use --consistency-window\n");
    expect(run.code).toBe(0);
    expect(onlyJson(run).claims).toMatchObject({ oid: agent.user.id });
  });
});

describe("a new grant for an existing agent identity and agent user", () => {
  let grantId: string | undefined;
  beforeEach(() => {
    ctx.emulator.store.deleteGrant(ctx.out.grantId!);
    grantId = addGrant(ctx.emulator, ctx.out.agentIdentityId!, ctx.out.agentUserId!);
  });
  afterEach(() => {
    if (grantId) ctx.emulator.store.deleteGrant(grantId);
  });

  const seeded = () => ({ agentIdentityId: ctx.out.agentIdentityId!, agentUserId: ctx.out.agentUserId! });

  it("without --consistency-window: AADSTS65001 on hop 3 at once, exit 3, hint names the flag", async () => {
    const { run, statuses } = await token(seeded());
    expect(run.code).toBe(3);
    expect(statuses).toEqual([200, 200, 400]);
    expect(onlyJson(run)).toMatchObject({ hop: 3, codes: [65001], hint: expect.stringMatching(/--consistency-window/) });
  });

  it("with --consistency-window: waits for the grant to take effect; T1 and T2 are not asked for again", async () => {
    const { run, statuses } = await tokenWaitingFor(seeded(), () => ctx.emulator.store.replicateGrantAt(grantId!, 0));
    expect(run.code).toBe(0);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.slice(2, -1).every((s) => s === 400)).toBe(true);
    expect(onlyJson(run).claims).toMatchObject({ scp: expect.stringMatching(/^User\.Read\b/) });
  });
});
