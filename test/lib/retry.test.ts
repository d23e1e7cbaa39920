import { NetworkError, UsageError } from "../../lib/errors";
import { parseRetryAfter } from "../../lib/http";
import { backoffMs, lagTolerant, withRetry, type RetryPolicy } from "../../lib/retry";

const policy: RetryPolicy = { maxAttempts: 4, maxElapsedMs: 10_000, baseDelayMs: 100, maxDelayMs: 1_000 };

function fakeClock() {
  let t = 0;
  const waits: number[] = [];
  return { waits, now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)) };
}

describe("withRetry", () => {
  it("ends a backoff as soon as the signal fires: the last error comes back, no attempt follows, and no timer is left", async () => {
    const controller = new AbortController();
    const long: RetryPolicy = { maxAttempts: 5, maxElapsedMs: 1_000_000_000, baseDelayMs: 600_000, maxDelayMs: 600_000 };
    const failure = new NetworkError("hop 1", "ECONNRESET", "socket hang up");
    let calls = 0;
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const run = withRetry(
      async () => {
        calls++;
        throw failure;
      },
      long,
      undefined,
      // The wait is the real timer: only the abort can end it within the test.
      { random: () => 1, onRetry: () => queueMicrotask(() => controller.abort()) },
      controller.signal,
    );
    await expect(run).rejects.toBe(failure);
    expect(calls).toBe(1);
    expect(process.getActiveResourcesInfo().filter((r) => r === "Timeout").length).toBe(timersBefore);
  });

  it("ends a wait given as a hook when the signal fires", async () => {
    const controller = new AbortController();
    let calls = 0;
    const run = withRetry(
      async () => {
        calls++;
        throw new NetworkError("hop 1", "ECONNRESET", "socket hang up");
      },
      policy,
      undefined,
      { sleep: () => new Promise<void>(() => controller.abort()) },
      controller.signal,
    );
    await expect(run).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toBe(1);
  });

  it("retries transient failures with growing, jittered delays and then succeeds", async () => {
    const clock = fakeClock();
    let calls = 0;
    const result = await withRetry(
      async () => {
        if (++calls < 3) throw new NetworkError("hop 1", "ECONNRESET", "socket hang up");
        return "ok";
      },
      policy,
      undefined,
      { ...clock, random: () => 1 },
    );
    expect(result).toBe("ok");
    expect(clock.waits).toEqual([100, 200]);
  });

  it("never retries a final error", async () => {
    const clock = fakeClock();
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new UsageError("bad");
      }, policy, undefined, clock),
    ).rejects.toBeInstanceOf(UsageError);
    expect(calls).toBe(1);
  });

  it("honours Retry-After over its own backoff", async () => {
    const clock = fakeClock();
    let calls = 0;
    await withRetry(
      async () => {
        if (++calls === 1) throw Object.assign(new NetworkError("x", "ECONNRESET", "r"), { retryAfterMs: 1500 });
        return 1;
      },
      policy,
      undefined,
      clock,
    );
    expect(clock.waits).toEqual([1500]);
  });

  it("stops at the attempt bound and at the time bound, rethrowing the last error", async () => {
    const clock = fakeClock();
    let calls = 0;
    const fail = async () => {
      calls++;
      throw new NetworkError("x", "ECONNRESET", "r");
    };
    await expect(withRetry(fail, policy, undefined, { ...clock, random: () => 1 })).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toBe(4);
    calls = 0;
    const tight = { ...policy, maxAttempts: 100, maxElapsedMs: 250 };
    await expect(withRetry(fail, tight, undefined, { ...fakeClock(), random: () => 1 })).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toBe(2); // waits 100, then 100+200 would pass 250
  });
});

describe("backoffMs and parseRetryAfter", () => {
  it("caps the backoff", () => {
    expect(backoffMs(10, policy, () => 1)).toBe(1_000);
    expect(backoffMs(1, policy, () => 0)).toBe(0);
  });
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(new Date(61_000).toUTCString(), 1_000)).toBe(60_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("lagTolerant", () => {
  class NotYet extends Error {}

  it("retries what is lagging only while the window lasts, then rethrows it", async () => {
    const clock = fakeClock();
    const { policy, classify } = lagTolerant(policy5(), 1_000, (err) => err instanceof NotYet, clock.now);
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new NotYet();
      }, policy, classify, { ...clock, random: () => 1 }),
    ).rejects.toBeInstanceOf(NotYet);
    // waits 100, 200, 400, 800: the attempt after 1500 ms of waiting is past the window, so no fifth wait.
    expect(clock.waits).toEqual([100, 200, 400, 800]);
    expect(calls).toBe(5);
    expect(policy.maxElapsedMs).toBe(10_000);
  });

  it("keeps retrying transient failures and refuses final ones, as withRetry's default does", async () => {
    const clock = fakeClock();
    const { policy, classify } = lagTolerant(policy5(), 60_000, () => false, clock.now);
    expect(classify(new NetworkError("x", "ECONNRESET", "r"))).toEqual({ retry: true, afterMs: undefined });
    expect(classify(new UsageError("bad"))).toEqual({ retry: false });
    expect(policy.maxElapsedMs).toBe(60_000);
  });

  it("starts no transient retry past the base policy's time, counting the wait before it", () => {
    let t = 0;
    const { classify } = lagTolerant(policy5(), 600_000, () => false, () => t);
    const throttled = (retryAfterMs: number) => Object.assign(new NetworkError("x", "ECONNRESET", "r"), { retryAfterMs });
    expect(classify(throttled(2_000))).toEqual({ retry: true, afterMs: 2_000 });
    t = 7_000;
    // 7 s in, a 4 s Retry-After would start the retry at 11 s, past the base policy's 10 s.
    expect(classify(throttled(4_000))).toEqual({ retry: false });
    // Without a Retry-After the longest backoff (1 s) is what counts.
    t = 9_500;
    expect(classify(new NetworkError("x", "ECONNRESET", "r"))).toEqual({ retry: false });
  });

  it("gives transient failures the base policy's attempts, however long the window", async () => {
    const clock = fakeClock();
    const { policy, classify } = lagTolerant(policy5(), 600_000, () => false, clock.now);
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new NetworkError("x", "ECONNRESET", "r");
      }, policy, classify, clock),
    ).rejects.toBeInstanceOf(NetworkError);
    expect(calls).toBe(5);
  });
});

function policy5(): RetryPolicy {
  return { ...policy, maxAttempts: 5 };
}
