import { AgentUserError } from "./errors";
import { isObject } from "./json-value";
import { millisecondsProblem, shownValue } from "./option-checks";

/** Bounds on one retried operation: both the count and the total time are capped. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** No attempt starts later than this after the first one. */
  maxElapsedMs: number;
  /** First backoff step; each later step doubles, capped at maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The consistency window when none is given: a "not replicated yet" answer
 * fails at once, with a hint to give one. Waiting is the caller's choice,
 * since only the caller knows the objects are new (right after `pulumi up`).
 */
export const NO_CONSISTENCY_WINDOW_MS = 0;

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, maxElapsedMs: 30_000, baseDelayMs: 200, maxDelayMs: 5_000 };

/**
 * The most attempts one operation makes, whatever its policy says: with no
 * backoff at all, this many requests is the worst one call can send.
 */
export const MAX_ATTEMPTS = 100;

/**
 * A retry policy given as an option, checked field by field: a field left
 * out takes DEFAULT_RETRY's value; only own properties count, so a polluted
 * Object.prototype adds nothing. The policy, or the problems naming each field.
 */
export function checkRetryPolicy(name: string, value: unknown): { policy: RetryPolicy; problems: string[] } {
  if (!isObject(value)) return { policy: DEFAULT_RETRY, problems: [`${name} must be an object { maxAttempts, maxElapsedMs, baseDelayMs, maxDelayMs }, got ${shownValue(value)}`] };
  const field = <K extends keyof RetryPolicy>(key: K): unknown => (Object.hasOwn(value, key) && value[key] !== undefined ? value[key] : DEFAULT_RETRY[key]);
  const policy = { maxAttempts: field("maxAttempts"), maxElapsedMs: field("maxElapsedMs"), baseDelayMs: field("baseDelayMs"), maxDelayMs: field("maxDelayMs") };
  const { maxAttempts } = policy;
  const problems = [
    !(Number.isInteger(maxAttempts) && (maxAttempts as number) >= 1 && (maxAttempts as number) <= MAX_ATTEMPTS) &&
      `${name}.maxAttempts must be a whole number from 1 to ${MAX_ATTEMPTS}, got ${shownValue(maxAttempts)}`,
    millisecondsProblem(`${name}.maxElapsedMs`, policy.maxElapsedMs, true),
    millisecondsProblem(`${name}.baseDelayMs`, policy.baseDelayMs, true),
    millisecondsProblem(`${name}.maxDelayMs`, policy.maxDelayMs, true),
  ].filter((problem): problem is string => typeof problem === "string");
  return { policy: policy as RetryPolicy, problems };
}

/** For a request inside an operation whose own loop retries: retry layers must not multiply. */
export const ONE_ATTEMPT: RetryPolicy = { maxAttempts: 1, maxElapsedMs: 0, baseDelayMs: 0, maxDelayMs: 0 };

/** What a failed attempt says about trying again. */
export interface RetryDecision {
  retry: boolean;
  /** The server's Retry-After, which overrides the computed backoff. */
  afterMs?: number;
}

export type Classifier = (err: unknown) => RetryDecision;

/** Retries what AgentUserError marks transient, honouring a carried Retry-After. */
export const transientOnly: Classifier = (err) =>
  err instanceof AgentUserError && err.transient ? { retry: true, afterMs: (err as { retryAfterMs?: number }).retryAfterMs } : { retry: false };

/**
 * Right after a create, the next step can meet "not replicated yet" answers
 * for a while. This keeps retrying the failures `lagging` matches while
 * `windowMs` lasts from now, with enough attempts and time in the policy to
 * cover the window. Transient failures keep the base policy's own bounds
 * (its attempts, and no retry starting past its maxElapsedMs, counting the
 * wait before it: the Retry-After, else the longest backoff), so a window
 * never turns one request into sixty tries against a failing service.
 */
export function lagTolerant(
  base: RetryPolicy,
  windowMs: number,
  lagging: (err: unknown) => boolean,
  now: () => number = Date.now,
): { policy: RetryPolicy; classify: Classifier } {
  const started = now();
  let transientRetries = 0;
  return {
    policy: { ...base, maxAttempts: Math.max(base.maxAttempts, 60), maxElapsedMs: Math.max(base.maxElapsedMs, windowMs) },
    classify: (err) => {
      if (lagging(err)) return { retry: now() - started < windowMs };
      const decision = transientOnly(err);
      const wait = decision.afterMs ?? base.maxDelayMs;
      if (!decision.retry || !(++transientRetries < base.maxAttempts) || !(now() - started + wait <= base.maxElapsedMs)) return { retry: false };
      return decision;
    },
  };
}

/** "Full jitter" exponential backoff: uniform in [0, min(max, base * 2^n)]. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

export interface RetryHooks {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The wall clock, epoch milliseconds: what a token's reported expiry and its `exp` check are read on. */
  now?: () => number;
  /**
   * A monotonic clock in milliseconds, performance.now() by default: how long
   * a cached token lives (its expires_in) is measured on it, so a step of the
   * wall clock neither extends nor cuts that life. Tests move it to age tokens.
   */
  monotonicNow?: () => number;
  /** Called before each wait, e.g. to log "retrying hop 1 in 400 ms". */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits `ms` (through `sleep` when given), or less: the wait ends as soon as
 * `signal` fires, and the real timer is cleared with it, so a backoff nobody
 * waits for any more keeps no process alive.
 */
export function pause(ms: number, sleep: RetryHooks["sleep"], signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return (sleep ?? realSleep)(ms);
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    if (sleep) void sleep(ms).then(done, done);
    else timer = setTimeout(done, ms);
  });
}

/**
 * Runs `op` until it succeeds, the classifier calls a failure final, the
 * policy's count or time budget would be exceeded, or `signal` fires (no one
 * waits for the result any more); then the last error is rethrown unchanged
 * so the caller sees the real cause.
 */
export async function withRetry<T>(
  op: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  classify: Classifier = transientOnly,
  hooks: RetryHooks = {},
  signal?: AbortSignal,
): Promise<T> {
  const now = hooks.now ?? Date.now;
  const started = now();
  // Written as "stop unless within bounds": a NaN in a policy (or from a clock) then stops the loop, never keeps it going.
  const maxAttempts = Math.min(policy.maxAttempts, MAX_ATTEMPTS);
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (err) {
      const decision = classify(err);
      if (!decision.retry || !(attempt < maxAttempts)) throw err;
      // Retry-After: 0 (or a negative one, read as 0) would retry at once, every time: the backoff stands instead.
      const delay = decision.afterMs !== undefined && decision.afterMs > 0 ? decision.afterMs : backoffMs(attempt, policy, hooks.random);
      if (!(now() - started + delay <= policy.maxElapsedMs)) throw err;
      if (signal?.aborted) throw err;
      hooks.onRetry?.(err, attempt, delay);
      await pause(delay, hooks.sleep, signal);
      if (signal?.aborted) throw err;
    }
  }
}
