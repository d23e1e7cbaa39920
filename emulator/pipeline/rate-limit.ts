import type { Faults } from "../faults";
import type { Surface } from "../router";
import type { TenantStore } from "../store";
import { appIdOf, type AuthenticatedCaller } from "./authenticate";

/**
 * Per-key token buckets for the emulator's `idp-rate` and `graph-rate` faults:
 * N requests per second per key (tenant for the token endpoint, calling
 * application for Graph), with a burst of N.
 */

/**
 * The most buckets a limiter keeps. Keys come from requests (applications a
 * token names), so an endless stream of new keys must not grow the map
 * without end: past this, the least recently used bucket goes, and a key
 * that comes back after that starts with a full burst. A refilled bucket is
 * a fresh one, so only a flood of distinct keys loses anything.
 */
export const MAX_BUCKETS = 10_000;

/** Milliseconds since an arbitrary origin; injected so tests run on a fake clock. */
export type MonotonicNow = () => number;

export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** `perSecond` requests per second per key, burst `perSecond`, at most `maxBuckets` keys kept. */
  constructor(
    private readonly perSecond: number,
    private readonly clock: MonotonicNow = () => performance.now(),
    private readonly maxBuckets = MAX_BUCKETS,
  ) {
    if (!(perSecond > 0)) throw new RangeError(`rate must be positive, got ${perSecond}`);
  }

  /** How many keys have a bucket now. */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes one request's token for `key`, or says how long (whole seconds, at least 1) to wait. */
  take(key: string): RateDecision {
    const now = this.clock();
    const b = this.buckets.get(key) ?? { tokens: this.perSecond, at: now };
    // A clock that stepped back refills nothing.
    b.tokens = Math.min(this.perSecond, b.tokens + (Math.max(0, now - b.at) / 1000) * this.perSecond);
    b.at = now;
    // Re-inserted, so the map's order is least recently used first.
    this.buckets.delete(key);
    if (this.buckets.size >= this.maxBuckets) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    // Retry-After carries whole seconds: round the time to the next token up.
    const waitS = (1 - b.tokens) / this.perSecond;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil(waitS)) };
  }
}

/** The one bucket of every Graph request whose bearer token this emulator did not sign (or that has none). */
const UNVERIFIED_CALLER = "(unverified caller)";

/**
 * The bucket a request is charged to: for the token endpoint its tenant, by
 * the id whatever name (the id, a domain) the URL gives it; none for a tenant
 * the emulator does not hold, which the endpoint refuses (AADSTS90002) before
 * anything is charged. For Graph the application (azp, else appid) of a token
 * this emulator signed. A token it cannot verify names whoever wrote it, so
 * it is charged to UNVERIFIED_CALLER, never to the application it names:
 * otherwise anyone could spend another client's quota.
 */
function bucketOf(surface: "token" | "graph", params: Record<string, string>, caller: AuthenticatedCaller, store: TenantStore): string | undefined {
  if (surface === "token") {
    if (params.tenant === undefined) return "imds";
    return store.isTenant(params.tenant) ? store.tenantId : undefined;
  }
  return (caller.claims && appIdOf(caller.claims)) ?? UNVERIFIED_CALLER;
}

/**
 * The `idp-rate` and `graph-rate` faults as a stage: per tenant for the token
 * endpoint, per verified calling application for Graph. Each limiter is built
 * at its first use from the fault config then current, so rates set after
 * the start (reset, set) apply. Buckets refill on the tenant's clock
 * (`store.now`), which a test may hold still.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiter>();

  constructor(
    private readonly faults: Faults,
    private readonly store: TenantStore,
  ) {}

  /** Charges the request to its bucket; ok when the surface has no rate set, or the request no bucket. */
  charge(surface: Surface, params: Record<string, string>, caller: AuthenticatedCaller): RateDecision {
    if (surface === "other") return { ok: true };
    const config = this.faults.current();
    const rate = surface === "token" ? config.idpRate : config.graphRate;
    if (rate === undefined) return { ok: true };
    const bucket = bucketOf(surface, params, caller, this.store);
    if (bucket === undefined) return { ok: true };
    const id = `${surface}:${rate}`;
    let limiter = this.limiters.get(id);
    if (!limiter) this.limiters.set(id, (limiter = new RateLimiter(rate, () => this.store.now())));
    return limiter.take(bucket);
  }

  /** How many buckets the limiters keep, all surfaces and rates together. */
  get buckets(): number {
    let count = 0;
    for (const limiter of this.limiters.values()) count += limiter.size;
    return count;
  }
}
