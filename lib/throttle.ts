import { DEFAULT_RETRY, type RetryHooks } from "./retry";

/*
 * A 429 is said to one caller, but the limit belongs to everyone who calls the
 * same endpoint as the same client: Entra's token endpoint throttles per
 * tenant, Graph per application and tenant. Without a shared view, each of N
 * concurrent callers finds the limit on its own, and once the wait is over
 * all N arrive in the same millisecond and most of them find it again: a
 * request that loses five such races fails. So when one caller is told to
 * wait, every caller of that endpoint in this process waits, and they are let
 * through one by one, in the order they came, a quarter of the throttled
 * answer's round trip apart (with jitter): so no more than about four are on
 * the wire when the next 429 comes back, on loopback or across the world. The
 * first ones take what the limit allows; when one of them is told to wait
 * again, those not yet let through wait again without having spent an
 * attempt. That is how a fleet converges on the allowed rate.
 */

interface Gate {
  /** No request before this moment (epoch ms): the latest Retry-After heard. */
  openAt: number;
  /** The next free release slot, so waiters go one by one. */
  nextSlot: number;
  /** Time between two released callers. */
  stepMs: number;
}

/**
 * On globalThis under a registered symbol: dynamic providers capture this
 * module by value, Pulumi's closure serializer cannot carry a Map, and every
 * resource in one provider process must share one view of the limit.
 */
function gates(): Map<string, Gate> {
  const slot = globalThis as unknown as Record<symbol, Map<string, Gate> | undefined>;
  return (slot[Symbol.for("agent-user-kit.throttle.gates")] ??= new Map());
}

/** Bounds of the time between two released callers. */
const RELEASE_STEP_MS = { min: 2, max: 250 } as const;
/** Callers are let through one by one until this long after the wait ended with no new one; then the gate is forgotten. */
const PACED_FOR_MS = 1_000;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the caller may send to `key`: undefined (nothing to await,
 * so the hot path pays no promise) while nobody was told to wait lately,
 * otherwise a promise of the caller's release slot after the shared wait.
 */
export function throttleGate(key: string, hooks: RetryHooks = {}): Promise<void> | undefined {
  const gate = gates().get(key);
  return gate === undefined ? undefined : queue(key, gate, hooks);
}

async function queue(key: string, gate: Gate, hooks: RetryHooks): Promise<void> {
  const now = hooks.now ?? Date.now;
  for (;;) {
    const t = now();
    if (t - gate.openAt > PACED_FOR_MS && gate.nextSlot <= t) {
      if (gates().get(key) === gate) gates().delete(key);
      return;
    }
    const slot = Math.max(t, gate.openAt, gate.nextSlot);
    gate.nextSlot = slot + gate.stepMs;
    if (slot > t) await (hooks.sleep ?? realSleep)(Math.round(slot - t + (hooks.random ?? Math.random)() * gate.stepMs));
    // Told to wait again while this one slept: queue again behind the new moment.
    if (gate.openAt <= now()) return;
  }
}

/**
 * Tells every caller of `key` to wait `ms` from now (a later moment already
 * set stands); `roundTripMs` is how long the throttled answer took, which
 * spaces the callers let through afterwards. A wait longer than the retry
 * budget's time bound is not shared: the caller told it gives up at once, as
 * will each other caller that is told the same, with one request each.
 */
export function holdThrottleGate(key: string, ms: number, roundTripMs: number, now: () => number = Date.now): void {
  if (ms > DEFAULT_RETRY.maxElapsedMs) return;
  const until = now() + ms;
  const stepMs = Math.min(RELEASE_STEP_MS.max, Math.max(RELEASE_STEP_MS.min, roundTripMs / 4));
  const gate = gates().get(key);
  if (gate === undefined) {
    gates().set(key, { openAt: until, nextSlot: until, stepMs });
    return;
  }
  gate.stepMs = stepMs;
  if (until > gate.openAt) gate.openAt = until;
}
