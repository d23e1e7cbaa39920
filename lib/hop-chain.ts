import { isReplicationAadsts } from "./aadsts";
import { federatedAssertion } from "./client-auth";
import { ClaimsError, NotJwtError, type ClaimMismatch } from "./errors";
import type { HttpOptions } from "./http";
import { decodeJwtClaims, whyNotJwt, type JwtClaims } from "./jwt";
import { DEFAULT_RETRY, lagTolerant, transientOnly, type RetryHooks, type RetryPolicy } from "./retry";
import { isLoopbackUrl } from "./urls";
import { isGraphResource, isGuid, MAX_TOKEN_LIFETIME_S, MICROSOFT_GRAPH_APP_ID, resourceKey, tokenExchangeAudience } from "./entra-rules";
import { TokenCache, type AbortSignalLike } from "./token-cache";
import { requestToken, tokenEndpoint, TokenEndpointError, type TokenClientOptions, type TokenResult } from "./token-client";
import { blueprintClientAuth, type BlueprintCredential } from "./blueprint-credential";
import { CAE_CAPABILITY, claimsParameter } from "./claims-request";

/**
 * The three token requests that give an agent its own delegated token, with
 * no human sign-in:
 *   hop 1: blueprint → T1 (token-exchange audience, fmi_path = agent identity)
 *   hop 2: agent identity, T1 as assertion → T2
 *   hop 3: agent identity, T1 as assertion, T2 as user FIC, user_fic grant → agent user token
 * Each request's parameters are in docs/protocol.md, "The three hops".
 */

export const HOP_STEPS = {
  1: "hop 1 (blueprint token)",
  2: "hop 2 (agent identity token)",
  3: "hop 3 (agent user token)",
} as const;
export type Hop = keyof typeof HOP_STEPS;

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

export interface AgentUserTokenRequest {
  agentIdentityId: string;
  /** Object id (sent as user_id) or UPN (sent as username). */
  agentUser: string;
  /** Resource the final token is for, e.g. https://graph.microsoft.com. */
  resourceUrl: string;
  /** Bypass every cache, e.g. so newly granted scopes show up. */
  fresh?: boolean;
  /**
   * The claims request of a resource's claims challenge (JSON), sent on hop 3
   * as Entra's `claims` parameter: the final token is minted anew (T1 and T2
   * may come from the cache) and replaces the cached one.
   */
  claims?: string;
  /** Declare the `cp1` client capability (Continuous Access Evaluation); such tokens are cached apart from the others. */
  cae?: boolean;
  /**
   * Mint a new final token although the cached one is still good (a
   * proactive refresh): T1 and T2 still come from the cache, and concurrent
   * renewals share one request.
   */
  renew?: boolean;
}

export interface HopRecord {
  hop: Hop;
  /** Wall time of this hop in this call; 0 when it came from the cache. */
  ms: number;
  /** Seconds until the hop's token expires, as the identity provider said (less time spent in the cache). */
  expiresIn: number;
  cached: boolean;
}

export interface AgentUserToken {
  accessToken: string;
  /** When it expires, epoch ms on the wall clock, for people and AccessToken's expiresOnTimestamp. */
  expiresAt: number;
  /** When it expires on the chain's monotonic clock: what its time in the cache is measured by. */
  deadline: number;
  claims: JwtClaims;
  hops: HopRecord[];
  /** Which minted token this is: the same on every cache hit of one token, a new one for each token minted. */
  identity: TokenIdentity;
}

/**
 * Stands for one minted token, and is all a holder may do with it: key state
 * kept per token (in a WeakMap, such as the token provider's refresh
 * schedule), which then goes when the chain drops the token.
 */
export type TokenIdentity = object;

interface CachedToken {
  token: string;
  /** Wall clock, reported. */
  expiresAt: number;
  /** Monotonic clock, what the cache decides by. */
  deadline: number;
  /** What the minting call measured; reported only for the call that minted it. */
  ms: number;
  /** The final token's claims, checked when it was minted (hop 3 only). */
  claims?: JwtClaims;
}

/**
 * A cache key: the hop and the values its token is for, as a JSON array, so
 * that no two lists of values share a key whatever characters they hold
 * (joined with a separator, "a|b" + "c" and "a" + "b|c" would).
 */
function keyOf(hop: Hop, ...values: string[]): string {
  return JSON.stringify([hop, ...values]);
}

/** The final token's cache key: the agent user compared as Entra does, without case. */
function finalKeyOf({ agentIdentityId, agentUser, resourceUrl, cae }: AgentUserTokenRequest): string {
  return cae ? keyOf(3, agentIdentityId, agentUser.toLowerCase(), resourceUrl, CAE_CAPABILITY) : keyOf(3, agentIdentityId, agentUser.toLowerCase(), resourceUrl);
}

/** Runs the hop chain with per-identity caches and one in-flight request per cache key. */
export class HopChain {
  private readonly config: HopChainConfig;
  private readonly endpoint: string;
  private readonly cache = new TokenCache<CachedToken>();
  private readonly now: () => number;
  private readonly monotonicNow: () => number;
  /** Token-client options without a consistency window: the same for every request of a hop, so built once. */
  private readonly plainOptions: Record<Hop, TokenClientOptions>;

  constructor(config: HopChainConfig) {
    this.config = config;
    this.endpoint = tokenEndpoint(config.authorityUrl, config.tenantId);
    this.now = config.hooks?.now ?? Date.now;
    this.monotonicNow = config.hooks?.monotonicNow ?? (() => performance.now());
    const plain = (hop: Hop): TokenClientOptions => ({ ...config.http, hop, retry: config.retry ?? DEFAULT_RETRY, classify: transientOnly, hooks: config.hooks });
    this.plainOptions = { 1: plain(1), 2: plain(2), 3: plain(3) };
  }

  /**
   * The token minted through the hops (T1 and T2 from their cache), for a
   * caller that already looked in the cache (cachedAgentUserToken) and missed;
   * concurrent callers share one request. Once every caller waiting for a
   * request has a fired `signal`, the request is cancelled, and so are the
   * T1 and T2 requests that no other request waits for.
   */
  async mintAgentUserToken(request: AgentUserTokenRequest, signal?: AbortSignalLike): Promise<AgentUserToken> {
    const hops: HopRecord[] = [];
    const { fresh = false } = request;
    // A claims request is the caller's own: it joins no other request, and none joins it.
    const unshared = fresh || request.claims !== undefined;
    const final = await this.shared(finalKeyOf(request), unshared, hops, 3, (cancel) => this.mintFinal(request, fresh, hops, cancel), signal);
    hops.sort((a, b) => a.hop - b.hop);
    return { accessToken: final.token, expiresAt: final.expiresAt, deadline: final.deadline, claims: final.claims!, hops, identity: final };
  }

  /**
   * The final token from the cache, with no request and no await (its claims
   * were checked when it was minted); undefined when it is not cached, or
   * `fresh` or `renew` is asked. Its identity is the same on every hit of
   * one cached token: the token provider keys its refresh state by it. A
   * caller that needs the time too passes `now` (monotonic, as the hooks'
   * monotonicNow), so a hit reads the clock once (a clock read costs about as
   * much as the rest of a hit here).
   */
  cachedAgentUserToken(request: AgentUserTokenRequest, now: number = this.monotonicNow()): AgentUserToken | undefined {
    if (request.fresh || request.renew || request.claims !== undefined) return undefined;
    const hops: HopRecord[] = [];
    const final = this.hit(finalKeyOf(request), false, hops, 3, now);
    return final && { accessToken: final.token, expiresAt: final.expiresAt, deadline: final.deadline, claims: final.claims!, hops, identity: final };
  }

  /** Forgets every cached token. */
  clear(): void {
    this.cache.clear();
  }

  /** T1 and T2, from the cache or the identity provider, then hop 3. */
  private async mintFinal(request: AgentUserTokenRequest, fresh: boolean, hops: HopRecord[], signal?: AbortSignal): Promise<CachedToken> {
    const { agentIdentityId, agentUser, resourceUrl } = request;
    const k1 = keyOf(1, agentIdentityId);
    const t1 = this.hit(k1, fresh, hops, 1) ?? (await this.shared(k1, fresh, hops, 1, (cancel) => this.hop1(agentIdentityId, cancel), signal));
    const k2 = keyOf(2, agentIdentityId);
    const t2 = this.hit(k2, fresh, hops, 2) ?? (await this.shared(k2, fresh, hops, 2, (cancel) => this.hop2(agentIdentityId, t1.token, cancel), signal));
    const claims = claimsParameter(request.claims, request.cae === true, HOP_STEPS[3]);
    const final = await this.hop3(agentIdentityId, agentUser, resourceUrl, claims, t1.token, t2.token, signal);
    return { ...final, claims: this.checked(final.token, { agentIdentityId, agentUser, resourceUrl }, t1.token) };
  }

  /**
   * The final token's claims, or the error that refuses it. Checked once, as
   * it is minted: a refused token is never cached, and a cache hit decodes
   * nothing.
   */
  private checked(token: string, asked: { agentIdentityId: string; agentUser: string; resourceUrl: string }, t1: string): JwtClaims {
    const claims = decodeJwtClaims(token);
    if (!claims) throw new NotJwtError(HOP_STEPS[3], whyNotJwt(token)!, 3);
    // A tenant named by its domain is checked against the tid Entra put in T1.
    const tidOfT1 = isGuid(this.config.tenantId) ? undefined : decodeJwtClaims(t1)?.tid;
    const mismatches = checkAgentUserClaims(claims, {
      ...asked,
      tenantId: this.config.tenantId,
      tidOfT1: typeof tidOfT1 === "string" ? tidOfT1 : undefined,
      now: this.now(),
    });
    if (mismatches.length > 0) throw new ClaimsError(HOP_STEPS[3], mismatches, 3);
    return claims;
  }

  /** The cached token for `key`, unless `fresh`, recorded as a cached hop. */
  private hit(key: string, fresh: boolean, hops: HopRecord[], hop: Hop, now: number = this.monotonicNow()): CachedToken | undefined {
    if (fresh) return undefined;
    const hit = this.cache.get(key, now);
    if (hit) hops.push({ hop, ms: 0, expiresIn: Math.round((hit.deadline - now) / 1000), cached: true });
    return hit;
  }

  /** Mints the token for `key` (or joins the request in flight for it) through the cache, recorded as a hop. */
  private async shared(key: string, fresh: boolean, hops: HopRecord[], hop: Hop, mint: (signal?: AbortSignal) => Promise<CachedToken>, signal?: AbortSignalLike): Promise<CachedToken> {
    const { token, joined } = await this.cache.mint(key, fresh, mint, signal);
    hops.push({ hop, ms: joined ? 0 : token.ms, expiresIn: Math.round((token.deadline - this.monotonicNow()) / 1000), cached: joined });
    return token;
  }

  private async request(hop: Hop, params: Record<string, string>, signal: AbortSignal | undefined): Promise<CachedToken> {
    const window = this.config.consistencyWindowMs ?? 0;
    if (window <= 0) return this.minted(await requestToken(HOP_STEPS[hop], this.endpoint, params, signal ? { ...this.plainOptions[hop], signal } : this.plainOptions[hop]));
    const notReplicated = (err: unknown): err is TokenEndpointError => err instanceof TokenEndpointError && err.codes.some(isReplicationAadsts);
    const { policy, classify } = lagTolerant(this.config.retry ?? DEFAULT_RETRY, window, notReplicated, this.config.hooks?.now);
    try {
      return this.minted(await requestToken(HOP_STEPS[hop], this.endpoint, params, { ...this.config.http, hop, retry: policy, classify, hooks: this.config.hooks, signal }));
    } catch (err) {
      // The window was given and spent: telling the user to pass it again would send them in a circle.
      if (!notReplicated(err)) throw err;
      throw err.withHint(
        `still not there after the ${Math.round(window / 1000)} s consistency window: check that the object exists and belongs to this chain (\`pulumi refresh\`, then \`pulumi up\`); objects made minutes ago can take longer, so a longer window may still help`,
      );
    }
  }

  private minted(result: TokenResult): CachedToken {
    const lifetimeMs = result.response.expires_in * 1000;
    return { token: result.response.access_token, expiresAt: this.now() + lifetimeMs, deadline: this.monotonicNow() + lifetimeMs, ms: Math.round(result.ms) };
  }

  /** The audience hops 1 and 2 and the managed identity's token are for. */
  private get exchangeAudience(): string {
    return this.config.tokenExchangeAudience ?? tokenExchangeAudience(this.config.authorityUrl);
  }

  private async hop1(agentIdentityId: string, signal: AbortSignal | undefined): Promise<CachedToken> {
    const { blueprintAppId, credential, http, retry } = this.config;
    const auth = await blueprintClientAuth(credential, { ...http, signal }, retry ?? DEFAULT_RETRY, this.exchangeAudience);
    return this.request(1, { grant_type: "client_credentials", client_id: blueprintAppId, scope: `${this.exchangeAudience}/.default`, fmi_path: agentIdentityId, ...auth(blueprintAppId, this.endpoint) }, signal);
  }

  private hop2(agentIdentityId: string, t1: string, signal: AbortSignal | undefined): Promise<CachedToken> {
    return this.request(2, { grant_type: "client_credentials", client_id: agentIdentityId, scope: `${this.exchangeAudience}/.default`, ...federatedAssertion(t1)(agentIdentityId, this.endpoint) }, signal);
  }

  private hop3(agentIdentityId: string, agentUser: string, resourceUrl: string, claims: string | undefined, t1: string, t2: string, signal: AbortSignal | undefined): Promise<CachedToken> {
    return this.request(3, {
      grant_type: "user_fic",
      client_id: agentIdentityId,
      scope: `${resourceUrl.replace(/\/+$/, "")}/.default`,
      ...federatedAssertion(t1)(agentIdentityId, this.endpoint),
      user_federated_identity_credential: t2,
      // A UPN in user_id fails with AADSTS50000: UPNs go in username.
      ...(isGuid(agentUser) ? { user_id: agentUser } : { username: agentUser }),
      ...(claims === undefined ? {} : { claims }),
    }, signal);
  }
}

export interface ExpectedIdentity {
  agentIdentityId: string;
  agentUser: string;
  /** A GUID, or a verified domain: then `tidOfT1` stands in for it. */
  tenantId: string;
  /** The resource asked for: `aud` must be it, or (for an appId-named resource) its GUID. */
  resourceUrl?: string;
  /** The `tid` of the T1 the chain used, which a domain-named tenant is checked against. */
  tidOfT1?: string;
  /** Now, in ms, for the `exp` check. */
  now?: number;
}

/** What must hold of an agent user token; an empty list means it is the token that was asked for. */
export function checkAgentUserClaims(claims: JwtClaims, expected: ExpectedIdentity): ClaimMismatch[] {
  const mismatches: ClaimMismatch[] = [];
  const expect = (claim: string, want: string, actual: unknown) => {
    if (typeof actual !== "string" || actual.toLowerCase() !== want.toLowerCase()) {
      mismatches.push({ claim, expected: want, actual: typeof actual === "string" ? actual : undefined });
    }
  };
  expect("idtyp", "user", claims.idtyp);
  if (isGuid(expected.agentUser)) expect("oid", expected.agentUser, claims.oid);
  else expect("upn", expected.agentUser, claims.upn);
  expect(claims.azp !== undefined ? "azp" : "appid", expected.agentIdentityId, claims.azp ?? claims.appid);
  const tenant = isGuid(expected.tenantId) ? expected.tenantId : expected.tidOfT1;
  if (tenant !== undefined) expect("tid", tenant, claims.tid);
  if (expected.resourceUrl !== undefined && !audienceMatches(claims.aud, expected.resourceUrl)) {
    mismatches.push({ claim: "aud", expected: expected.resourceUrl, actual: typeof claims.aud === "string" ? claims.aud : undefined });
  }
  if (expected.now !== undefined) {
    const now = expected.now;
    const latest = now + MAX_TOKEN_LIFETIME_S * 1000;
    const exp = claims.exp;
    if (!(typeof exp === "number" && exp * 1000 > now && exp * 1000 <= latest)) {
      mismatches.push({ claim: "exp", expected: "a time after now, at most 7 days ahead", actual: timeClaimText(exp) });
    }
    // Entra's nbf and iat are minutes before the token was minted; one a week away is no token of a chain run now.
    for (const claim of ["nbf", "iat"] as const) {
      const value = claims[claim];
      if (value !== undefined && !(typeof value === "number" && Math.abs(value * 1000 - now) <= MAX_TOKEN_LIFETIME_S * 1000)) {
        mismatches.push({ claim, expected: "a time within 7 days of now", actual: timeClaimText(value) });
      }
    }
  }
  return mismatches;
}

/** The largest time a Date holds, in ms either side of 1970 (ECMA-262's time value range). */
const MAX_DATE_MS = 8.64e15;

/** A time claim (seconds since 1970) as a mismatch shows it: its date when it has one, else the number itself. */
function timeClaimText(seconds: unknown): string | undefined {
  if (typeof seconds !== "number") return undefined;
  return Number.isFinite(seconds) && Math.abs(seconds * 1000) <= MAX_DATE_MS ? new Date(seconds * 1000).toISOString() : String(seconds);
}

/**
 * Entra names the audience by the resource's URL or by its appId. Graph's
 * appId is known, so a Graph token must name Graph either way; another API's
 * appId is not known here, so its token may carry any appId (a GUID) but no
 * other API's URL.
 */
function audienceMatches(aud: unknown, resourceUrl: string): boolean {
  if (typeof aud !== "string") return false;
  const want = resourceKey(resourceUrl);
  const got = resourceKey(aud);
  if (got === want || `api://${got}` === want) return true;
  // The local emulator serves Graph at its own loopback origin, and a token asked for it is Graph's.
  if (isLoopbackUrl(want) && isGraphResource(got)) return true;
  return isGraphResource(want) ? got === MICROSOFT_GRAPH_APP_ID : isGuid(got);
}
