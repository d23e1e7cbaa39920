/**
 * Transient failures (429 with Retry-After, 503, dropped connections,
 * timeouts) are ridden out; persistent ones end in exit 4 within the documented
 * bound (5 attempts, 30 s). Every count is the emulator's own request log.
 */
import { DEFAULT_RETRY } from "../../../lib/retry";
import { agentUserToken, NO_ENV, onlyJson, runCli, seededChain, seededRequest, tokenStatuses, useEmulator, writeOutputs, type CliRun } from "../../harness";

const ctx = useEmulator();
afterEach(() => ctx.emulator.faults.reset());

/** Runs `agent-user token --json` and returns the run, the token statuses the emulator saw, and the wall time. */
async function token(extra: string[] = []): Promise<{ run: CliRun; statuses: number[]; ms: number }> {
  const before = ctx.emulator.requests.length;
  const started = Date.now();
  const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--json", ...extra], NO_ENV);
  return { run, statuses: tokenStatuses(ctx.emulator, before), ms: Date.now() - started };
}

describe("ridden out", () => {
  it("three 429s (Retry-After: 0) on hop 1", async () => {
    ctx.emulator.faults.set({ throttle: 3, retryAfterS: 0 });
    const { run, statuses } = await token();
    expect(run.code).toBe(0);
    expect(statuses).toEqual([429, 429, 429, 200, 200, 200]);
    expect(onlyJson(run).ok).toBe(true);
  });

  it("a 429 is retried no sooner than its Retry-After", async () => {
    ctx.emulator.faults.set({ throttle: 1, retryAfterS: 1 });
    const { run, statuses, ms } = await token();
    expect(run.code).toBe(0);
    expect(statuses).toEqual([429, 200, 200, 200]);
    expect(ms).toBeGreaterThanOrEqual(950);
  });

  it("a 503 (the emulator sends Retry-After: 1 with it)", async () => {
    ctx.emulator.faults.set({ unavailable: 1 });
    const { run, statuses } = await token();
    expect(run.code).toBe(0);
    expect(statuses).toEqual([503, 200, 200, 200]);
  });

  it("two dropped connections", async () => {
    ctx.emulator.faults.set({ drop: 2 });
    const { run, statuses } = await token();
    expect(run.code).toBe(0);
    expect(statuses).toEqual([-1, -1, 200, 200, 200]);
  });

  it("a drop and two 429s on hop 3, with T1 and T2 from the cache", async () => {
    const runner = seededChain(ctx.out);
    await agentUserToken(runner, seededRequest(ctx.out));
    ctx.emulator.faults.set({ drop: 1, throttle: 2, retryAfterS: 0 });
    const before = ctx.emulator.requests.length;
    const token = await agentUserToken(runner, { agentIdentityId: ctx.out.agentIdentityId!, agentUser: ctx.out.agentUserPrincipalName!, resourceUrl: ctx.out.resourceUrl });
    expect(tokenStatuses(ctx.emulator, before)).toEqual([-1, 429, 429, 200]);
    expect(token.hops.map((h) => [h.hop, h.cached])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(token.claims.upn).toBe(ctx.out.agentUserPrincipalName);
  });

  it("a slow answer beyond --timeout is abandoned and retried", async () => {
    ctx.emulator.faults.set({ latencyMs: 3000 });
    const before = ctx.emulator.requests.length;
    const pending = token(["--timeout", "0.3"]);
    // The first request has taken its 3 s latency once the emulator has logged it; answer the retries at once.
    while (ctx.emulator.requests.length === before) await new Promise((r) => setTimeout(r, 5));
    ctx.emulator.faults.set({ latencyMs: 0 });
    const { run, statuses } = await pending;
    expect(run.code).toBe(0);
    // The abandoned attempt (still unanswered), then the three hops.
    expect(statuses).toEqual([0, 200, 200, 200]);
  });
});

describe("persistent failures end in exit 4 within the bound", () => {
  const bound = DEFAULT_RETRY;

  it("documents the bound these tests hold the runner to", () => {
    expect(bound).toMatchObject({ maxAttempts: 5, maxElapsedMs: 30_000 });
  });

  it("503 on every attempt: 5 attempts honouring Retry-After, then exit 4 with the code and a hint", async () => {
    ctx.emulator.faults.set({ unavailable: 1000 });
    const { run, statuses, ms } = await token();
    expect(run.code).toBe(4);
    expect(statuses).toEqual(Array(bound.maxAttempts).fill(503));
    expect(ms).toBeGreaterThanOrEqual((bound.maxAttempts - 1) * 1000 - 50);
    expect(ms).toBeLessThan(bound.maxElapsedMs);
    const body = onlyJson(run);
    expect(body).toMatchObject({ ok: false, hop: 1, status: 503, error: "temporarily_unavailable", codes: [90024] });
    expect(body.hint).toMatch(/retry later/);
  });

  it("429 on every attempt: exit 4 after 5 attempts", async () => {
    ctx.emulator.faults.set({ throttle: 1000, retryAfterS: 0 });
    const { run, statuses } = await token();
    expect(run.code).toBe(4);
    expect(statuses).toEqual(Array(bound.maxAttempts).fill(429));
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, status: 429, codes: [90055] });
  });

  it("a Retry-After beyond the time budget ends the retries at once instead of waiting past it", async () => {
    ctx.emulator.faults.set({ throttle: 1000, retryAfterS: 60 });
    const { run, statuses, ms } = await token();
    expect(run.code).toBe(4);
    expect(statuses).toEqual([429]);
    expect(ms).toBeLessThan(5_000);
  });

  it("every connection dropped: exit 4 after 5 attempts, a network error with a hint", async () => {
    ctx.emulator.faults.set({ drop: 1000 });
    const { run, statuses, ms } = await token();
    expect(run.code).toBe(4);
    expect(statuses).toEqual(Array(bound.maxAttempts).fill(-1));
    expect(ms).toBeLessThan(bound.maxElapsedMs);
    const body = onlyJson(run);
    expect(body).toMatchObject({ ok: false, hop: 1, status: null, codes: [] });
    expect(body.error).toMatch(/^(UND_ERR_SOCKET|ECONNRESET)$/);
    expect(body.hint).toMatch(/connection failed/);
  });

  it("no answer within --timeout on every attempt: exit 4, ETIMEDOUT, hint names --timeout", async () => {
    ctx.emulator.faults.set({ latencyMs: 2000 });
    const { run, statuses, ms } = await token(["--timeout", "0.2"]);
    expect(run.code).toBe(4);
    expect(statuses).toHaveLength(bound.maxAttempts);
    expect(ms).toBeLessThan(bound.maxElapsedMs);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, error: "ETIMEDOUT", hint: expect.stringMatching(/--timeout/) });
  });

  it("an unreachable authority: exit 4 naming the emulator in the hint", async () => {
    const { run } = await token(["--authority", "http://127.0.0.1:9"]);
    expect(run.code).toBe(4);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, error: "ECONNREFUSED", hint: expect.stringMatching(/emulator\) is running/) });
  });
});
