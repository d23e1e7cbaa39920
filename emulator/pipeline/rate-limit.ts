import type { Faults } from "../faults";
import type { Surface } from "../router";
import { appIdOf, type AuthenticatedCaller } from "./authenticate";

/**
 * Per-key token buckets for the emulator's `idp-rate` and `graph-rate` faults:
 * N requests per second per key (tenant for the token endpoint, calling
 * application for Graph), with a burst of N.
 */

/** Milliseconds since an arbitrary origin; injected so tests run on a fake clock. */
export type MonotonicNow = () => number;

export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** `perSecond` requests per second per key, burst `perSecond`. */
  constructor(
    private readonly perSecond: number,
    private readonly clock: MonotonicNow = () => performance.now(),
  ) {
    if (!(perSecond > 0)) throw new RangeError(`rate must be positive, got ${perSecond}`);
  }

  /** Takes one request's token for `key`, or says how long (whole seconds, at least 1) to wait. */
  take(key: string): RateDecision {
    const now = this.clock();
    const b = this.buckets.get(key) ?? { tokens: this.perSecond, at: now };
    b.tokens = Math.min(this.perSecond, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
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
 * The bucket a request is charged to: its tenant for the token endpoint, and
 * for Graph the application (azp, else appid) of a token this emulator
 * signed. A token it cannot verify names whoever wrote it, so it is charged
 * to UNVERIFIED_CALLER, never to the application it names: otherwise anyone
 * could spend another client's quota.
 */
function bucketOf(surface: "token" | "graph", params: Record<string, string>, caller: AuthenticatedCaller): string {
  if (surface === "token") return (params.tenant ?? "imds").toLowerCase();
  return (caller.claims && appIdOf(caller.claims)) ?? UNVERIFIED_CALLER;
}

/**
 * The `idp-rate` and `graph-rate` faults as a stage: per tenant for the token
 * endpoint, per verified calling application for Graph. Each limiter is built
 * at its first use from the fault config then current, so rates set after
 * the start (reset, set) apply.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiter>();

  constructor(private readonly faults: Faults) {}

  /** Charges the request to its bucket; ok when the surface has no rate set. */
  charge(surface: Surface, params: Record<string, string>, caller: AuthenticatedCaller): RateDecision {
    if (surface === "other") return { ok: true };
    const config = this.faults.current();
    const rate = surface === "token" ? config.idpRate : config.graphRate;
    if (rate === undefined) return { ok: true };
    const id = `${surface}:${rate}`;
    let limiter = this.limiters.get(id);
    if (!limiter) this.limiters.set(id, (limiter = new RateLimiter(rate)));
    return limiter.take(bucketOf(surface, params, caller));
  }
}
