import { RateLimiter } from "../../emulator/pipeline/rate-limit";

function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe("RateLimiter (token bucket, burst N, N per second per key)", () => {
  it("lets a burst of N through at once and refuses the next with Retry-After 1", () => {
    const clock = fakeClock();
    const rl = new RateLimiter(5, clock.now);
    const passed = Array.from({ length: 8 }, () => rl.take("tenant")).filter((d) => d.ok).length;
    expect(passed).toBe(5);
    expect(rl.take("tenant")).toEqual({ ok: false, retryAfterS: 1 });
  });

  it("passes N per second in a steady stream (burst + N x seconds over a window)", () => {
    const clock = fakeClock();
    const rl = new RateLimiter(10, clock.now);
    let passed = 0;
    // 100 attempts per second for 3 seconds.
    for (let i = 0; i < 300; i++) {
      if (rl.take("app").ok) passed++;
      clock.advance(10);
    }
    expect(passed).toBeGreaterThanOrEqual(10 + 10 * 3 - 1);
    expect(passed).toBeLessThanOrEqual(10 + 10 * 3);
  });

  it("keeps one bucket per key", () => {
    const clock = fakeClock();
    const rl = new RateLimiter(1, clock.now);
    expect(rl.take("a").ok).toBe(true);
    expect(rl.take("a").ok).toBe(false);
    expect(rl.take("b").ok).toBe(true);
  });

  it("gives a Retry-After that, once waited, lets the next request through", () => {
    const clock = fakeClock();
    const rl = new RateLimiter(2, clock.now);
    rl.take("t");
    rl.take("t");
    const refused = rl.take("t");
    expect(refused).toEqual({ ok: false, retryAfterS: 1 });
    clock.advance(999);
    expect(rl.take("t").ok).toBe(true); // 0.999 s refills 1.998 tokens
    expect(rl.take("t").ok).toBe(false);
  });

  it("refuses a rate that is not positive", () => {
    expect(() => new RateLimiter(0)).toThrow(RangeError);
  });
});
