import type { AbortSignalLike } from "./abort";
import { HopChain, requestRefusal, type CachedToken, type HopChainConfig, type HopTokens } from "./hop-chain";
import type { JwtClaims } from "./jwt";
import { TokenCache } from "./token-cache";
import type { Flow, FlowRequest, HopRecord } from "./token-flows";

export type { HopChainConfig };

/**
 * One tenant's tokens: the cache in front of the hop chain. A final token is
 * served from the cache while it is good, else minted through the chain once
 * for every caller that asks for it at the same time; the chain takes its
 * earlier hops' tokens from the same cache, so T1 is requested once per agent
 * identity whichever flows use it.
 */

/** A flow's final token as the source hands it out. */
export interface MintedToken {
  accessToken: string;
  /** When it expires, epoch ms on the wall clock, for people and AccessToken's expiresOnTimestamp. */
  expiresAt: number;
  /** When it expires on the monotonic clock: what its time in the cache is measured by. */
  deadline: number;
  claims: JwtClaims;
  hops: HopRecord[];
  /** Which minted token this is: the same on every cache hit of one token, a new one for each token minted. */
  identity: TokenIdentity;
}

/**
 * Stands for one minted token, and is all a holder may do with it: key state
 * kept per token (in a WeakMap, such as the token provider's refresh
 * schedule), which then goes when the cache drops the token.
 */
export type TokenIdentity = object;

export class TokenSource implements HopTokens {
  private readonly cache = new TokenCache<CachedToken>();
  private readonly chain: HopChain;
  private readonly monotonicNow: () => number;

  constructor(config: HopChainConfig) {
    this.chain = new HopChain(config);
    this.monotonicNow = config.hooks?.monotonicNow ?? (() => performance.now());
  }

  /**
   * The final token from the cache, with no request and no await (its claims
   * were checked when it was minted, what this request asks beyond its key
   * here); undefined when it is not cached, lacks what this request asks, or
   * `fresh`, `renew` or a claims challenge is asked. A caller that needs the
   * time too passes `now` (monotonic), so a hit reads the clock once (a
   * clock read costs about as much as the rest of a hit here).
   */
  cached<R extends FlowRequest>(flow: Flow<R>, request: R, now: number = this.monotonicNow()): MintedToken | undefined {
    if (request.fresh || request.renew || request.claims !== undefined) return undefined;
    const token = this.cache.get(flow.key(request), now);
    // A token that lacks what this request asks beyond its key (an app role) is not served: mint() asks
    // anew, since the token may predate an assignment made since, and refuses the new one if it lacks it too.
    if (!token || requestRefusal(flow, request, token.claims!)) return undefined;
    return served(token, [finalHop(flow, token, now)]);
  }

  /**
   * The final token minted through the chain; concurrent callers share one
   * request. Once every caller waiting for a request has a fired `signal`,
   * the request is cancelled, and so are the earlier hops' requests that no
   * other request waits for.
   */
  async mint<R extends FlowRequest>(flow: Flow<R>, request: R, signal?: AbortSignalLike): Promise<MintedToken> {
    // A claims request is the caller's own: it joins no other request, and none joins it.
    const unshared = request.fresh === true || request.claims !== undefined;
    const { token, joined } = await this.cache.mint(flow.key(request), unshared, (cancel) => this.chain.run(flow, request, this, cancel), signal);
    const now = this.monotonicNow();
    this.cache.sweep(now);
    // Checked per caller, not in the shared request: one caller's roles must not fail another's token.
    const refused = requestRefusal(flow, request, token.claims!);
    if (refused) throw refused;
    return served(token, joined ? [finalHop(flow, token, now)] : token.hops!);
  }

  async through(key: string, fresh: boolean, mint: (signal?: AbortSignal) => Promise<CachedToken>, signal?: AbortSignalLike): Promise<{ token: CachedToken; cached: boolean; joined: boolean }> {
    const hit = fresh ? undefined : this.cache.get(key, this.monotonicNow());
    if (hit) return { token: hit, cached: true, joined: false };
    const { token, joined } = await this.cache.mint(key, fresh, mint, signal);
    return { token, cached: false, joined };
  }

  /** Forgets every cached token. */
  clear(): void {
    this.cache.clear();
  }
}

/** The final hop of a token that came from the cache, or from another caller's request. */
function finalHop<R extends FlowRequest>(flow: Flow<R>, token: CachedToken, now: number): HopRecord {
  const last = flow.hops[flow.hops.length - 1]!;
  return { hop: last.hop, step: last.step, ms: 0, expiresIn: Math.round((token.deadline - now) / 1000), cached: true };
}

function served(token: CachedToken, hops: HopRecord[]): MintedToken {
  return { accessToken: token.token, expiresAt: token.expiresAt, deadline: token.deadline, claims: token.claims!, hops, identity: token };
}
