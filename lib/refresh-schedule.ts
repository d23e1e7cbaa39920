import type { AgentUserAccessToken } from "./provider-options";
import { EXPIRY_MARGIN_MS } from "./token-cache";
import type { MintedToken, TokenIdentity } from "./token-source";

export const DEFAULT_REFRESH_WINDOW_MS = 10 * 60 * 1000;

/** Per cached final token: when to refresh it, and the refresh under way. */
interface RefreshState {
  refreshAt: number;
  running?: Promise<unknown>;
}

/**
 * When each served token is renewed in the background, and the renewals
 * under way. A token's refresh moment is drawn at random inside the window
 * once, when it is first served, so a fleet's tokens minted together are not
 * refreshed in the same second. Times are on the monotonic clock the cache's
 * deadlines are on. It mints nothing itself: whoever serves a token hands
 * over the renewal to start.
 */
export class RefreshSchedule {
  /** By the token's identity, which the cache hands out on every hit: a token the cache has replaced takes its state with it. */
  private states = new WeakMap<TokenIdentity, RefreshState>();

  constructor(
    private readonly windowMs: number,
    private readonly monotonicNow: () => number,
    private readonly random: () => number,
  ) {}

  /**
   * The token as served (`now` is monotonic). A renewable token gets its
   * refresh moment, and `renew` starts once that moment has come (a caller
   * that bypassed the cache passes none); a token that is not renewable is
   * served until the cache stops serving it, when its caller asks anew.
   */
  serve(minted: MintedToken, now: number, renewable: boolean, renew?: () => Promise<MintedToken>): AgentUserAccessToken {
    if (!renewable) return accessToken(minted, minted.expiresAt - EXPIRY_MARGIN_MS);
    const state = this.stateOf(minted, now);
    if (renew && !state.running && now >= state.refreshAt) {
      // Serve the valid token now; the renewal fills the cache for the next caller.
      state.running = renew().then(
        (renewed) => void this.stateOf(renewed, this.monotonicNow()),
        // A failed refresh keeps the valid token; the next call after a short pause tries again.
        () => {
          state.running = undefined;
          const retryAt = this.monotonicNow();
          state.refreshAt = retryAt + Math.min(30_000, Math.max(0, (minted.deadline - EXPIRY_MARGIN_MS - retryAt) / 4));
        },
      );
    }
    // The refresh moment in wall-clock terms, as far before the reported expiry as it is before the deadline.
    return accessToken(minted, minted.expiresAt - (minted.deadline - state.refreshAt));
  }

  /** Forgets every token's schedule. */
  clear(): void {
    this.states = new WeakMap();
  }

  /** The refresh moment of a token, drawn once per token. */
  private stateOf(token: MintedToken, now: number): RefreshState {
    const known = this.states.get(token.identity);
    if (known) return known;
    const servedUntil = token.deadline - EXPIRY_MARGIN_MS;
    // A short-lived token refreshes in the second half of its served life at the earliest, never right after minting.
    const window = Math.min(this.windowMs, Math.max(0, (servedUntil - now) / 2));
    const state: RefreshState = { refreshAt: servedUntil - this.random() * window };
    this.states.set(token.identity, state);
    return state;
  }
}

function accessToken(minted: MintedToken, refreshAfterTimestamp: number): AgentUserAccessToken {
  return { token: minted.accessToken, expiresOnTimestamp: minted.expiresAt, refreshAfterTimestamp, tokenType: "Bearer", claims: minted.claims, hops: minted.hops };
}
