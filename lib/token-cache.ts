/** Cached tokens are used until this long before they expire. */
export const EXPIRY_MARGIN_MS = 5 * 60 * 1000;

/**
 * Tokens by key, each used until EXPIRY_MARGIN_MS before it expires, with
 * one request in flight per key so that concurrent callers share it: the
 * cache of the hop chain and of the provisioner. It holds no clock: callers
 * pass `now`, so tests and the token provider keep theirs.
 */
export class TokenCache<T extends { expiresAt: number }> {
  private readonly tokens: Map<string, T>;
  private readonly inFlight: Map<string, Promise<T>>;

  constructor() {
    // Assigned here, not as field initializers: the provisioner's cache travels through Pulumi's closure
    // serializer, which keeps a constructor's body but drops a class's field initializers.
    this.tokens = new Map();
    this.inFlight = new Map();
  }

  /**
   * The token for `key` while `now` is more than the margin before its
   * expiry. Synchronous: a hit costs no await (on the warm path of
   * `npm run bench` the awaits cost more than the lookups).
   */
  get(key: string, now: number): T | undefined {
    const token = this.tokens.get(key);
    return token !== undefined && token.expiresAt - EXPIRY_MARGIN_MS > now ? token : undefined;
  }

  /**
   * Mints the token for `key`, or joins the request already in flight for it
   * (`joined`), then caches it. A `fresh` caller starts its own request and
   * shares it with no one, so it never gets an older grant's token. A failed
   * request is not cached: the next call asks again.
   */
  async mint(key: string, fresh: boolean, mint: () => Promise<T>): Promise<{ token: T; joined: boolean }> {
    let flight = fresh ? undefined : this.inFlight.get(key);
    const joined = flight !== undefined;
    const owns = !joined && !fresh;
    if (!flight) {
      flight = mint();
      if (owns) this.inFlight.set(key, flight);
    }
    let token: T;
    try {
      token = await flight;
    } finally {
      // The caller that started the request awaited it first, so it resumes (and forgets it) before any joiner.
      if (owns) this.inFlight.delete(key);
    }
    this.tokens.set(key, token);
    return { token, joined };
  }

  /** Forgets every cached token; a request in flight is still shared until it settles. */
  clear(): void {
    this.tokens.clear();
  }
}
