import { parseRetryAfter, type HttpResponse } from "./http";
import { DEFAULT_RETRY, pause, type RetryHooks } from "./retry";

/*
 * A 429 is said to one caller, but the limit belongs to everyone who calls the
 * same endpoint as the same client: Entra's token endpoint throttles per
 * tenant, Graph per application and tenant. Without a shared view, each of N
 * concurrent callers finds the limit on its own, and once the wait is over
 * all N arrive in the same millisecond and most of them find it again: a
 * request that loses five such races fails. So when one caller is told to
 * wait, every caller of that endpoint in this process waits until the same
 * moment (with a little jitter), and then at most four are on the wire at a
 * time, each let through as an answer comes back, in the order they came,
 * until the queue has drained and a second has passed. When one of them is
 * told to wait again, the rest wait again without having spent an attempt.
 * Answers pace the callers, so this holds on loopback and across the world
 * alike, and even when the waiting requests are themselves what slows the
 * server down. That is how a fleet converges on the allowed rate.
 */

interface Gate {
  /** No request before this moment (epoch ms): the latest Retry-After heard. */
  openAt: number;
  /** Callers let through whose answer has not come back yet. */
  inFlight: number;
  /** Callers waiting for one of those to come back, first come first served. */
  queue: Array<() => void>;
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

/** Requests on the wire at once after a wait: few enough that little is spent when the next 429 comes back. */
const PACED_IN_FLIGHT = 4;
/** After the wait ends, callers are paced this long (and until the queue drains); then the gate is forgotten. */
const PACED_FOR_MS = 1_000;

/** Called when the request's answer (or failure) is in: lets the next queued caller through. */
export type ReleaseThrottle = () => void;

const nothingToRelease: ReleaseThrottle = () => undefined;

/**
 * While nobody was told to wait lately: undefined, so the hot path awaits
 * nothing. Otherwise a promise of the moment the caller may send, with the
 * function to call once its answer is in. When `signal` fires, the wait ends
 * at once and the caller is let go without taking a place on the wire: the
 * request it would have sent fails on that signal, sending nothing.
 */
export function throttleGate(key: string, hooks: RetryHooks = {}, signal?: AbortSignal): Promise<ReleaseThrottle> | undefined {
  const gate = gates().get(key);
  return gate === undefined ? undefined : admit(key, gate, hooks, signal);
}

async function admit(key: string, gate: Gate, hooks: RetryHooks, signal: AbortSignal | undefined): Promise<ReleaseThrottle> {
  const now = hooks.now ?? Date.now;
  for (;;) {
    if (signal?.aborted) {
      // It may have been woken for a place it will not take: the next in the queue takes it instead.
      if (gate.inFlight < PACED_IN_FLIGHT) gate.queue.shift()?.();
      return nothingToRelease;
    }
    const t = now();
    if (t < gate.openAt) {
      const wait = gate.openAt - t;
      await pause(Math.round(wait + (hooks.random ?? Math.random)() * Math.min(50, wait / 10)), hooks.sleep, signal);
      continue;
    }
    if (t - gate.openAt > PACED_FOR_MS && gate.inFlight === 0 && gate.queue.length === 0) {
      if (gates().get(key) === gate) gates().delete(key);
      return nothingToRelease;
    }
    if (gate.inFlight >= PACED_IN_FLIGHT) {
      await queued(gate, signal);
      continue;
    }
    gate.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      gate.inFlight--;
      gate.queue.shift()?.();
    };
  }
}

/** Waits for a place in the gate's queue to come up, or leaves the queue when `signal` fires. */
function queued(gate: Gate, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    // Declared before the functions that use it: Pulumi's closure serializer reads a name used ahead of its declaration as missing.
    const place = { wake: (): void => undefined };
    const leave = () => {
      const at = gate.queue.indexOf(place.wake);
      if (at >= 0) gate.queue.splice(at, 1);
      resolve();
    };
    place.wake = () => {
      signal?.removeEventListener("abort", leave);
      resolve();
    };
    gate.queue.push(place.wake);
    signal?.addEventListener("abort", leave, { once: true });
  });
}

/**
 * Tells every caller of `key` to wait `ms` from now (a later moment already
 * set stands). A wait longer than the retry budget's time bound is not
 * shared: the caller told it gives up at once, as will each other caller
 * that is told the same, with one request each.
 */
export function holdThrottleGate(key: string, ms: number, now: () => number = Date.now): void {
  if (ms > DEFAULT_RETRY.maxElapsedMs) return;
  const until = now() + ms;
  const gate = gates().get(key);
  if (gate === undefined) gates().set(key, { openAt: until, inFlight: 0, queue: [] });
  else if (until > gate.openAt) gate.openAt = until;
}

/**
 * One request through the gate of `key`, as both clients send: it waits while
 * the gate says so (or until `signal` fires), and an error answer with Retry-After holds the gate before
 * the next caller is let through, so that caller already sees the wait.
 */
export async function throttledSend(key: string, hooks: RetryHooks | undefined, signal: AbortSignal | undefined, sendOne: () => Promise<HttpResponse>): Promise<HttpResponse> {
  const gate = throttleGate(key, hooks, signal);
  const release = gate && (await gate);
  try {
    const res = await sendOne();
    const retryAfterMs = res.status >= 400 ? parseRetryAfter(res.headers["retry-after"]) : undefined;
    if (retryAfterMs) holdThrottleGate(key, retryAfterMs, hooks?.now);
    return res;
  } finally {
    release?.();
  }
}
