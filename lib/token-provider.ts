import type { BlueprintCredential } from "./blueprint-credential";
import { abortable, type AbortSignalLike } from "./abort";
import { AbortError, UsageError } from "./errors";
import type { HopChainConfig } from "./token-source";
import { checkRetryPolicy, DEFAULT_RETRY, NO_CONSISTENCY_WINDOW_MS, type RetryHooks } from "./retry";
import { shownValue } from "./option-checks";
import { PUBLIC_CLOUD } from "./entra-rules";
import { isObject, ownProperties } from "./json-value";
import {
  checkOptions,
  requestProblem,
  STEP,
  type AgentAppTokenRequestOptions,
  type AgentOnBehalfOfTokenRequestOptions,
  type AgentUserAccessToken,
  type AgentUserTokenProviderOptions,
  type AgentUserTokenRequestOptions,
  type GetAgentUserTokenOptions,
} from "./provider-options";
import { optionsFromEnvironment, optionsFromStackOutputs, withOverrides } from "./provider-factories";
import { DEFAULT_REFRESH_WINDOW_MS, RefreshSchedule } from "./refresh-schedule";
import { AGENT_USER_FLOW, APP_FLOW, ON_BEHALF_OF_FLOW, type Flow, type FlowRequest } from "./token-flows";
import { TokenSource, type MintedToken } from "./token-source";

export type { AbortSignalLike };
export type { AgentUserAccessToken, AgentUserTokenProviderOptions, AgentUserTokenRequestOptions, AgentAppTokenRequestOptions, AgentOnBehalfOfTokenRequestOptions, GetAgentUserTokenOptions };
export { DEFAULT_REFRESH_WINDOW_MS };

/** The steps errors of the app and on-behalf-of methods name. */
const APP_STEP = "agent app token";
const OBO_STEP = "on-behalf-of token";

/** What every method reads from its request before it asks a flow. */
interface Started {
  request: AgentUserTokenRequestOptions & AgentAppTokenRequestOptions & Partial<AgentOnBehalfOfTokenRequestOptions>;
  base: FlowRequest;
  signal?: AbortSignalLike;
}

/**
 * An agent's tokens, as an agent embeds it: its agent user's delegated token
 * (getToken: blueprint → agent identity → agent user), its agent identity's
 * own app token (getAppToken) and a token for a signed-in user who called it
 * (getOnBehalfOfToken). Each tenant's tokens are cached by one token source,
 * where T1 is shared by the three flows; concurrent callers share one
 * request, and agent user and app tokens are refreshed in the background
 * before they expire.
 */
export class AgentUserTokenProvider {
  /** The tenant the provider mints in unless a request names another: its GUID or domain, as given. */
  readonly tenantId: string;
  /** The provider's tenant's source, and the sources of other tenants asked for, by lowercased tenant. */
  private readonly source: TokenSource;
  private readonly sources = new Map<string, TokenSource>();
  private readonly chainConfig: HopChainConfig;
  private readonly defaults: { agentIdentityId?: string; agentUser?: string; resource: string };
  /** The clock tokens age on: refresh moments are on it, as the cache's deadlines are. */
  private readonly monotonicNow: () => number;
  private readonly refreshes: RefreshSchedule;

  constructor(given: AgentUserTokenProviderOptions) {
    if (!isObject(given)) throw new UsageError(`the options must be an object, got ${shownValue(given)}`);
    // Own properties only, here and in every object below: a polluted Object.prototype must not choose the authority or the credential.
    const options = ownProperties(given) as AgentUserTokenProviderOptions;
    if (isObject(options.credential)) options.credential = ownProperties(options.credential) as BlueprintCredential;
    const authorityUrl = checkOptions(options);
    const hooks: RetryHooks = ownProperties(isObject(options.hooks) ? (options.hooks as RetryHooks) : {});
    this.monotonicNow = hooks.monotonicNow ?? (() => performance.now());
    this.refreshes = new RefreshSchedule(options.refreshWindowMs ?? DEFAULT_REFRESH_WINDOW_MS, this.monotonicNow, hooks.random ?? Math.random);
    this.defaults = {
      agentIdentityId: options.agentIdentityId,
      agentUser: options.agentUser,
      resource: options.resource ?? PUBLIC_CLOUD.resourceUrl,
    };
    this.chainConfig = {
      authorityUrl,
      tenantId: options.tenantId,
      blueprintAppId: options.blueprintAppId,
      credential: options.credential,
      // Every key given, undefined or not: the chain's own reads then never reach the prototype either.
      http: { timeoutMs: options.timeoutMs, dispatcher: options.dispatcher, maxBodyBytes: undefined, hop: undefined, signal: undefined },
      retry: checkRetryPolicy("retry", options.retry ?? DEFAULT_RETRY).policy,
      consistencyWindowMs: options.consistencyWindowMs ?? options.replicationWindowMs ?? NO_CONSISTENCY_WINDOW_MS,
      hooks: { sleep: hooks.sleep, random: hooks.random, now: hooks.now, monotonicNow: hooks.monotonicNow, onRetry: hooks.onRetry },
      tokenExchangeAudience: options.tokenExchangeAudience,
    };
    this.tenantId = options.tenantId;
    this.source = new TokenSource(this.chainConfig);
    this.sources.set(options.tenantId.toLowerCase(), this.source);
  }

  /** The source that mints in `tenantId`; the provider's own when absent. */
  private sourceFor(tenantId: string | undefined): TokenSource {
    if (tenantId === undefined) return this.source;
    const key = tenantId.toLowerCase();
    let source = this.sources.get(key);
    if (!source) {
      source = new TokenSource({ ...this.chainConfig, tenantId });
      this.sources.set(key, source);
    }
    return source;
  }

  /**
   * A provider from the parsed JSON of `pulumi stack output --json
   * --show-secrets`. `overrides.agent` picks one agent of a fleet's `agents`
   * map; other overrides replace what the outputs say.
   */
  static fromStackOutputs(outputs: unknown, overrides: Partial<AgentUserTokenProviderOptions> & { agent?: string } = {}): AgentUserTokenProvider {
    const { agent, ...rest } = ownProperties(overrides);
    return new AgentUserTokenProvider(withOverrides(optionsFromStackOutputs(outputs, agent), rest));
  }

  /** A provider from the AGENT_USER_* environment variables the `agent-user` command reads. */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AgentUserTokenProviderOptions> = {}): AgentUserTokenProvider {
    return new AgentUserTokenProvider(withOverrides(optionsFromEnvironment(env), overrides));
  }

  /** A token for the agent user, from the cache while it is good, checked against what was asked for. */
  getToken(given: AgentUserTokenRequestOptions = {}, options?: GetAgentUserTokenOptions): Promise<AgentUserAccessToken> {
    const started = this.started(given, options, "getToken()", STEP);
    if (started instanceof Error) return Promise.reject(started);
    const agentUser = started.request.agentUser ?? this.defaults.agentUser;
    if (agentUser === undefined) return Promise.reject(new UsageError("no agent user: pass agentUser to getToken() or to the provider", undefined, STEP));
    return this.get(AGENT_USER_FLOW, { ...started.base, agentUser }, started, STEP);
  }

  /**
   * The agent identity's own app-only token for the resource (the
   * autonomous app flow: T1, then client credentials as the agent identity),
   * its `roles` the app roles assigned to the identity; checked against what
   * was asked for, `roles` included when given.
   */
  getAppToken(given: AgentAppTokenRequestOptions = {}, options?: GetAgentUserTokenOptions): Promise<AgentUserAccessToken> {
    const started = this.started(given, options, "getAppToken()", APP_STEP);
    if (started instanceof Error) return Promise.reject(started);
    const { roles } = started.request;
    return this.get(APP_FLOW, roles === undefined ? started.base : { ...started.base, roles: [...roles] }, started, APP_STEP);
  }

  /**
   * A delegated token for the signed-in user whose token (`userAssertion`,
   * issued for the blueprint) the agent was given: the on-behalf-of flow as
   * the agent identity. The same assertion shares one token until it is
   * spent; a new token needs the caller's current assertion, so these tokens
   * are never renewed in the background.
   */
  getOnBehalfOfToken(given: AgentOnBehalfOfTokenRequestOptions, options?: GetAgentUserTokenOptions): Promise<AgentUserAccessToken> {
    const started = this.started(given, options, "getOnBehalfOfToken()", OBO_STEP);
    if (started instanceof Error) return Promise.reject(started);
    const { userAssertion } = started.request;
    if (userAssertion === undefined) {
      return Promise.reject(new UsageError("no user assertion: pass the signed-in user's access token as userAssertion to getOnBehalfOfToken()", undefined, OBO_STEP));
    }
    return this.get(ON_BEHALF_OF_FLOW, { ...started.base, userAssertion }, started, OBO_STEP);
  }

  /** Forgets every cached token. */
  clear(): void {
    for (const source of this.sources.values()) source.clear();
    this.refreshes.clear();
  }

  /** A method's request read and checked, with the agent identity and resource every flow needs; or the error that refuses it. */
  private started(given: unknown, options: GetAgentUserTokenOptions | undefined, method: string, step: string): Started | Error {
    // Only its own fields: a key it lacks reads as undefined, never as a member put on Object.prototype.
    const request = (isObject(given) ? ownProperties(given) : given) as Started["request"];
    const problem = requestProblem(request, method);
    if (problem) return new UsageError(problem, undefined, step);
    const agentIdentityId = request.agentIdentityId ?? this.defaults.agentIdentityId;
    if (agentIdentityId === undefined) return new UsageError(`no agent identity: pass agentIdentityId to ${method} or to the provider`, undefined, step);
    const signal = isObject(options) ? (ownProperties(options) as GetAgentUserTokenOptions).abortSignal : undefined;
    if (signal?.aborted) return new AbortError(step);
    const base: FlowRequest = { agentIdentityId, resourceUrl: request.resource ?? this.defaults.resource, fresh: request.fresh === true };
    if (request.claims !== undefined) base.claims = request.claims;
    if (request.enableCae === true) base.cae = true;
    return { request, base, signal };
  }

  /** A flow's token from the cache, or minted; served with its refresh moment. */
  private get<R extends FlowRequest>(flow: Flow<R>, request: R, started: Started, step: string): Promise<AgentUserAccessToken> {
    const source = this.sourceFor(started.request.tenantId);
    // A cache hit, the hot path (`npm run bench`, hit through the provider), is served with no await of its own
    // and one read of the clock.
    const now = this.monotonicNow();
    const cached = source.cached(flow, request, now);
    if (cached) return Promise.resolve(this.serve(source, flow, request, cached, now));
    return abortable(source.mint(flow, request, started.signal), started.signal, step).then((minted) => this.serve(source, flow, request, minted, this.monotonicNow()));
  }

  private serve<R extends FlowRequest>(source: TokenSource, flow: Flow<R>, request: R, minted: MintedToken, now: number): AgentUserAccessToken {
    // A renewal goes without the challenge's claims, which were for that one token.
    const renew = request.fresh ? undefined : () => source.mint(flow, { ...request, claims: undefined, renew: true });
    return this.refreshes.serve(minted, now, flow.renewable, renew);
  }
}
