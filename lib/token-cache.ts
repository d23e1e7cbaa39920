import type { AbortSignalLike } from "./abort";
import { AbortError } from "./errors";

/** One request for a key, and who still waits for it. */
interface Flight<T> {
  promise: Promise<T>;
  /** Aborts the request; absent once a waiter that cannot go (no signal) has joined: then it always runs to its end. */
  cancel: AbortController | undefined;
  /** Waiters with a signal that has not fired yet. */
  waiting: number;
}

/** Cached tokens are used until this long before they expire. */
export const EXPIRY_MARGIN_MS = 5 * 60 * 1000;

/** A sweep looks for spent tokens once the cache holds this many, and then whenever it has doubled since. */
const FIRST_SWEEP = 1024;

/**
 * Tokens by key, each used until EXPIRY_MARGIN_MS before its `deadline`,
 * with one request in flight per key so that concurrent callers share it:
 * the cache of the token sources and of the provisioner. It holds no clock:
 * callers pass `now`, on the clock their deadlines are on (the token
 * sources' is monotonic), so tests and the token provider keep theirs.
 */
export class TokenCache<T extends { deadline: number }> {
  private readonly tokens: Map<string, T>;
  private readonly inFlight: Map<string, Flight<T>>;
  private sweepAt: number;

  constructor() {
    // Assigned here, not as field initializers: the provisioner's cache travels through Pulumi's closure
    // serializer, which keeps a constructor's body but drops a class's field initializers.
    this.tokens = new Map();
    this.inFlight = new Map();
    this.sweepAt = FIRST_SWEEP;
  }

  /**
   * The token for `key` while `now` is more than the margin before its
   * deadline. Synchronous: a hit costs no await (on the warm path of
   * `npm run bench` the awaits cost more than the lookups).
   */
  get(key: string, now: number): T | undefined {
    const token = this.tokens.get(key);
    return token !== undefined && token.deadline - EXPIRY_MARGIN_MS > now ? token : undefined;
  }

  /**
   * Mints the token for `key`, or joins the request already in flight for it
   * (`joined`), then caches it. A `fresh` caller starts its own request and
   * shares it with no one, so it never gets an older grant's token. A failed
   * request is not cached: the next call asks again.
   *
   * `signal` is the caller's: once every waiter of a request has a fired
   * signal, nobody needs its token, so the request is cancelled (`mint` is
   * handed the signal that does it) and forgotten; a waiter without a signal
   * keeps it going for everyone. A caller whose signal has already fired
   * starts nothing.
   */
  async mint(key: string, fresh: boolean, mint: (signal?: AbortSignal) => Promise<T>, signal?: AbortSignalLike): Promise<{ token: T; joined: boolean }> {
    if (signal?.aborted) throw new AbortError("token request");
    let flight = fresh ? undefined : this.inFlight.get(key);
    const joined = flight !== undefined;
    if (!flight) {
      const cancel = signal ? new AbortController() : undefined;
      flight = { promise: mint(cancel?.signal), cancel, waiting: 0 };
      if (!fresh) this.inFlight.set(key, flight);
    } else if (!signal) {
      flight.cancel = undefined;
    }
    const leave = signal && this.waitWith(key, flight, signal);
    let token: T;
    try {
      token = await flight.promise;
    } finally {
      leave?.();
      // The first waiter to resume forgets the settled request; a later request for the key may be in its place by then.
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
    }
    this.tokens.set(key, token);
    return { token, joined };
  }

  /** Counts a waiter with a signal; when the last such waiter's signal fires, the request is cancelled. Returns the clean-up. */
  private waitWith(key: string, flight: Flight<T>, signal: AbortSignalLike): () => void {
    flight.waiting++;
    const gone = () => {
      if (--flight.waiting > 0 || !flight.cancel) return;
      flight.cancel.abort(new AbortError("token request"));
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
    };
    signal.addEventListener("abort", gone, { once: true });
    return () => signal.removeEventListener("abort", gone);
  }

  /**
   * Forgets the tokens no longer served at `now`, once the cache has grown
   * past its sweep mark: keys that are never asked for again (an
   * on-behalf-of token per user assertion) would otherwise stay for the
   * life of the process.
   */
  sweep(now: number): void {
    if (this.tokens.size < this.sweepAt) return;
    for (const [key, token] of this.tokens) if (token.deadline - EXPIRY_MARGIN_MS <= now) this.tokens.delete(key);
    this.sweepAt = Math.max(FIRST_SWEEP, 2 * this.tokens.size);
  }

  /** Forgets every cached token; a request in flight is still shared until it settles. */
  clear(): void {
    this.tokens.clear();
  }
}
