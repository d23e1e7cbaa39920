import { Faults } from "../../emulator/faults";
import { MAX_BUCKETS, RateLimiter, RateLimits } from "../../emulator/pipeline/rate-limit";
import { bareTenant, DEFAULT_IDS } from "../../emulator/seed";
import { TenantStore } from "../../emulator/store";

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

describe("RateLimiter's map of buckets is bounded", () => {
  it("keeps at most its bound of keys, dropping the least recently used: a recent key stays limited, a dropped one starts afresh", () => {
    const clock = fakeClock();
    const rl = new RateLimiter(1, clock.now, 3);
    for (const key of ["a", "b", "c"]) expect(rl.take(key).ok).toBe(true);
    expect(rl.take("a").ok).toBe(false); // a is now the most recently used
    expect(rl.take("d").ok).toBe(true); // b, the least recently used, goes
    expect(rl.size).toBe(3);
    expect(rl.take("a").ok).toBe(false);
    expect(rl.take("b").ok).toBe(true);
  });

  it("holds its default bound, 10,000 keys, under 30,000 distinct keys", () => {
    expect(MAX_BUCKETS).toBe(10_000);
    const rl = new RateLimiter(5);
    for (let i = 0; i < 30_000; i++) rl.take(`tenant-${i}`);
    expect(rl.size).toBe(10_000);
  });
});

describe("RateLimits: what the token endpoint and Graph are charged to", () => {
  const limits = () => {
    const faults = new Faults();
    faults.set({ idpRate: 1, graphRate: 1 });
    return new RateLimits(faults, new TenantStore(bareTenant()));
  };

  it("charges nothing for a tenant the emulator does not hold: no bucket for 100,000 made-up tenants, never a 429", () => {
    const l = limits();
    for (let i = 0; i < 100_000; i++) expect(l.charge("token", { tenant: `made-up-${i}` }, {}).ok).toBe(true);
    expect(l.buckets).toBe(0);
  });

  it("charges the tenant by its id, whichever name the URL gives it: one bucket for the id and the domain", () => {
    const l = limits();
    expect(l.charge("token", { tenant: DEFAULT_IDS.tenantId }, {}).ok).toBe(true);
    expect(l.charge("token", { tenant: DEFAULT_IDS.domain.toUpperCase() }, {})).toEqual({ ok: false, retryAfterS: 1 });
    expect(l.buckets).toBe(1);
  });

  it("keeps Graph's buckets within the bound, however many applications tokens name", () => {
    const l = limits();
    for (let i = 0; i < 30_000; i++) l.charge("graph", {}, { token: "t", claims: { azp: `app-${i}` } });
    expect(l.buckets).toBe(10_000);
  });
});
