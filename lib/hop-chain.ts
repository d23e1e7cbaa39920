import { isReplicationAadsts } from "./aadsts";
import type { AbortSignalLike } from "./abort";
import { blueprintClientAuth, type BlueprintCredential } from "./blueprint-credential";
import { isGuid, tokenExchangeAudience } from "./entra-rules";
import { ClaimsError, NotJwtError, type ClaimMismatch } from "./errors";
import { tokenOrigin } from "./flow-claims";
import type { HttpOptions } from "./http";
import { decodeJwtClaims, whyNotJwt, type JwtClaims } from "./jwt";
import { DEFAULT_RETRY, lagTolerant, NO_CONSISTENCY_WINDOW_MS, transientOnly, type RetryHooks, type RetryPolicy } from "./retry";
import { requestToken, tokenEndpoint, TokenEndpointError, type TokenClientOptions, type TokenResult } from "./token-client";
import type { Flow, FlowRequest, HopEnv, HopRecord, HopSpec } from "./token-flows";

/**
 * Runs a flow's hops (token-flows.ts) against the token endpoint, in order:
 * each earlier hop's token from the caller's cache (`HopTokens`), or minted
 * once for every caller that waits for it; the final hop minted and its
 * claims checked. It keeps no token of its own: the token source owns the
 * cache, so a token's path reads provider → cache → chain → client.
 */

export interface HopChainConfig {
  authorityUrl: string;
  /** Tenant of the agent identity: GUID or verified domain. */
  tenantId: string;
  blueprintAppId: string;
  credential: BlueprintCredential;
  http?: HttpOptions;
  retry?: RetryPolicy;
  /** How long to keep retrying "not replicated yet" answers (lib/aadsts.ts isReplicationAadsts); 0 fails at once. */
  consistencyWindowMs?: number;
  /** Its `now` is the wall clock (reported expiry, the `exp` check), its `monotonicNow` the one cached tokens age on. */
  hooks?: RetryHooks;
  /**
   * The token-exchange audience: hops 1 and 2 ask for `{it}/.default`, and a
   * managed identity asks IMDS for a token for it. Default: the authority's
   * cloud's (api://AzureADTokenExchange, or the US Government or China one),
   * an assumption no Microsoft source confirms for these two uses.
   */
  tokenExchangeAudience?: string;
}

/** A token as the cache keeps it. */
export interface CachedToken {
  token: string;
  /** Wall clock, reported. */
  expiresAt: number;
  /** Monotonic clock, what the cache decides by. */
  deadline: number;
  /** What the minting call measured; reported only for the call that minted it. */
  ms: number;
  /** A final token's claims, checked when it was minted. */
  claims?: JwtClaims;
  /** The hops a final token took when it was minted. */
  hops?: HopRecord[];
}

/** Where the chain takes the tokens of a flow's earlier hops from: the token source's cache. */
export interface HopTokens {
  /**
   * The token for `key`: cached (`cached`), or minted by `mint` for every
   * caller waiting for it (`joined` when another caller started it). `fresh`
   * skips the cache and shares the request with no one.
   */
  through(key: string, fresh: boolean, mint: (signal?: AbortSignal) => Promise<CachedToken>, signal?: AbortSignalLike): Promise<{ token: CachedToken; cached: boolean; joined: boolean }>;
}

/** The error that refuses a flow's final token for `mismatches`, naming the final hop, what the token is instead and the fix. */
export function claimsRefusal<R extends FlowRequest>(flow: Flow<R>, request: R, claims: JwtClaims, mismatches: readonly ClaimMismatch[]): ClaimsError {
  const last = flow.hops[flow.hops.length - 1]!;
  return new ClaimsError(last.step, mismatches, last.hop, { origin: tokenOrigin(claims), hint: flow.claimsHint(mismatches, request, claims) });
}

/**
 * The error that refuses a final token to `request` for what it asks beyond
 * the token's key (Flow.checkRequest), or undefined when the token holds it:
 * the same error as a token minted for that request alone would get.
 */
export function requestRefusal<R extends FlowRequest>(flow: Flow<R>, request: R, claims: JwtClaims): ClaimsError | undefined {
  // On every cache hit: a flow without such a check costs no call and no array.
  const mismatches = flow.checkRequest?.(claims, request);
  return mismatches !== undefined && mismatches.length > 0 ? claimsRefusal(flow, request, claims, mismatches) : undefined;
}

export class HopChain {
  private readonly config: HopChainConfig;
  private readonly endpoint: string;
  private readonly env: HopEnv;
  private readonly now: () => number;
  private readonly monotonicNow: () => number;

  constructor(config: HopChainConfig) {
    this.config = config;
    this.endpoint = tokenEndpoint(config.authorityUrl, config.tenantId);
    this.now = config.hooks?.now ?? Date.now;
    this.monotonicNow = config.hooks?.monotonicNow ?? (() => performance.now());
    const audience = config.tokenExchangeAudience ?? tokenExchangeAudience(config.authorityUrl);
    const { blueprintAppId, credential, http, retry } = config;
    this.env = {
      endpoint: this.endpoint,
      blueprintAppId,
      exchangeScope: `${audience}/.default`,
      blueprintAuth: async (signal) => (await blueprintClientAuth(credential, { ...http, signal }, retry ?? DEFAULT_RETRY, audience))(blueprintAppId, this.endpoint),
    };
  }

  /**
   * The final token of `flow`, its claims checked, with the hops it took:
   * the earlier hops' tokens through `tokens`, each `signal` passed on so
   * that a request nobody waits for any more is cancelled.
   */
  async run<R extends FlowRequest>(flow: Flow<R>, request: R, tokens: HopTokens, signal?: AbortSignal): Promise<CachedToken> {
    const hops: HopRecord[] = [];
    const earlier: string[] = [];
    const last = flow.hops[flow.hops.length - 1]!;
    for (const spec of flow.hops.slice(0, -1)) {
      const mint = async (cancel?: AbortSignal) => this.request(spec, await spec.form(request, earlier, this.env, cancel), undefined, cancel);
      const { token, cached, joined } = await tokens.through(spec.key!(request), request.fresh === true, mint, signal);
      hops.push({ hop: spec.hop, step: spec.step, ms: cached || joined ? 0 : token.ms, expiresIn: Math.round((token.deadline - this.monotonicNow()) / 1000), cached: cached || joined });
      earlier.push(token.token);
    }
    const final = await this.request(last, await last.form(request, earlier, this.env, signal), flow.hints, signal);
    hops.push({ hop: last.hop, step: last.step, ms: final.ms, expiresIn: Math.round((final.deadline - this.monotonicNow()) / 1000), cached: false });
    return { ...final, claims: this.checked(flow, request, final.token, earlier[0]!, last), hops };
  }

  /**
   * The final token's claims, or the error that refuses it. Checked once, as
   * it is minted: a refused token is never cached, and a cache hit decodes
   * nothing. What a request asks beyond the token's key is checked per
   * caller by the token source (requestRefusal), not here, where one
   * caller's request is shared by others.
   */
  private checked<R extends FlowRequest>(flow: Flow<R>, request: R, token: string, t1: string, last: HopSpec<R>): JwtClaims {
    const claims = decodeJwtClaims(token);
    if (!claims) throw new NotJwtError(last.step, whyNotJwt(token)!, last.hop);
    // A tenant named by its domain is checked against the tid Entra put in T1.
    const tidOfT1 = isGuid(this.config.tenantId) ? undefined : decodeJwtClaims(t1)?.tid;
    const facts = {
      tenantId: this.config.tenantId,
      blueprintAppId: this.config.blueprintAppId,
      resourceUrl: request.resourceUrl,
      tidOfT1: typeof tidOfT1 === "string" ? tidOfT1 : undefined,
      now: this.now(),
    };
    const mismatches = flow.check(claims, request, facts);
    if (mismatches.length > 0) throw claimsRefusal(flow, request, claims, mismatches);
    return claims;
  }

  /**
   * One hop's request, retried as its hop allows: transient failures, and
   * "not replicated yet" answers within the consistency window. A refusal
   * carries the flow's own hint for its code, when it has one.
   */
  private async request<R extends FlowRequest>(spec: HopSpec<R>, form: Record<string, string>, hints: Readonly<Record<number, string>> = {}, signal?: AbortSignal): Promise<CachedToken> {
    const { http, hooks } = this.config;
    const retry = this.config.retry ?? DEFAULT_RETRY;
    const window = this.config.consistencyWindowMs ?? NO_CONSISTENCY_WINDOW_MS;
    const notReplicated = (err: unknown): err is TokenEndpointError => err instanceof TokenEndpointError && err.codes.some(isReplicationAadsts);
    const retrying = window > 0 ? lagTolerant(retry, window, notReplicated, hooks?.now) : { policy: retry, classify: transientOnly };
    const options: TokenClientOptions = { ...http, hop: spec.hop, retry: retrying.policy, classify: retrying.classify, hooks, signal };
    try {
      return this.minted(await requestToken(spec.step, this.endpoint, form, options));
    } catch (err) {
      if (!(err instanceof TokenEndpointError)) throw err;
      // The window was given and spent: telling the user to pass it again would send them in a circle.
      if (window > 0 && notReplicated(err)) {
        throw err.withHint(
          `still not there after the ${Math.round(window / 1000)} s consistency window: check that the object exists and belongs to this chain (\`pulumi refresh\`, then \`pulumi up\`); objects made minutes ago can take longer, so a longer window may still help`,
        );
      }
      const hint = err.codes.map((code) => hints[code]).find(Boolean);
      throw hint ? err.withHint(hint) : err;
    }
  }

  private minted(result: TokenResult): CachedToken {
    const lifetimeMs = result.response.expires_in * 1000;
    return { token: result.response.access_token, expiresAt: this.now() + lifetimeMs, deadline: this.monotonicNow() + lifetimeMs, ms: Math.round(result.ms) };
  }
}
