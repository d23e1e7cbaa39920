import type { AgentUserToken, AgentUserTokenRequest, HopChain, TokenIdentity } from "./hop-chain";
import type { AgentUserAccessToken } from "./provider-options";
import { EXPIRY_MARGIN_MS } from "./token-cache";

export const DEFAULT_REFRESH_WINDOW_MS = 10 * 60 * 1000;

/** Per cached final token: when to refresh it, and the refresh under way. */
interface RefreshState {
  refreshAt: number;
  running?: Promise<unknown>;
}

/**
 * When each cached token is renewed in the background, and the renewals
 * under way. A token's refresh moment is drawn at random inside the window
 * once, when it is first served, so a fleet's tokens minted together are not
 * refreshed in the same second. Times are on the monotonic clock the chain's
 * deadlines are on.
 */
export class RefreshSchedule {
  /** By the token's identity, which the chain hands out on every hit: a token the chain has replaced takes its state with it. */
  private states = new WeakMap<TokenIdentity, RefreshState>();

  constructor(
    private readonly windowMs: number,
    private readonly monotonicNow: () => number,
    private readonly random: () => number,
  ) {}

  /** The token as served, with a background refresh started once its refresh moment (`now` is monotonic) has come. */
  serve(chain: HopChain, minted: AgentUserToken, request: AgentUserTokenRequest, now: number): AgentUserAccessToken {
    const state = this.stateOf(minted, now);
    if (!request.fresh && !state.running && now >= state.refreshAt) {
      // Serve the valid token now; the renewal (without the challenge's claims, which were for that one token) fills the cache for the next caller.
      state.running = chain.mintAgentUserToken({ ...request, claims: undefined, renew: true }).then(
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
    const refreshAfterTimestamp = minted.expiresAt - (minted.deadline - state.refreshAt);
    return { token: minted.accessToken, expiresOnTimestamp: minted.expiresAt, refreshAfterTimestamp, tokenType: "Bearer", claims: minted.claims, hops: minted.hops };
  }

  /** Forgets every token's schedule. */
  clear(): void {
    this.states = new WeakMap();
  }

  /** The refresh moment of a token, drawn once per token. */
  private stateOf(token: AgentUserToken, now: number): RefreshState {
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
