import type { BlueprintCredential } from "./blueprint-credential";
import { AbortError, UsageError } from "./errors";
import { HopChain, type AgentUserTokenRequest, type HopChainConfig } from "./hop-chain";
import type { AbortSignalLike } from "./token-cache";
import { checkRetryPolicy, DEFAULT_RETRY, type RetryHooks } from "./retry";
import { shownValue } from "./option-checks";
import { PUBLIC_CLOUD } from "./entra-rules";
import { isObject, ownProperties } from "./json-value";
import {
  checkOptions,
  requestProblem,
  STEP,
  type AgentUserAccessToken,
  type AgentUserTokenProviderOptions,
  type AgentUserTokenRequestOptions,
  type GetAgentUserTokenOptions,
} from "./provider-options";
import { optionsFromEnvironment, optionsFromStackOutputs, withOverrides } from "./provider-factories";
import { DEFAULT_REFRESH_WINDOW_MS, RefreshSchedule } from "./refresh-schedule";

export type { AbortSignalLike };
export type { AgentUserAccessToken, AgentUserTokenProviderOptions, AgentUserTokenRequestOptions, GetAgentUserTokenOptions };
export { DEFAULT_REFRESH_WINDOW_MS };

/**
 * Delegated tokens for agent users, as an agent embeds it: three token
 * requests (blueprint → agent identity → agent user), cached per agent
 * identity and per agent user and resource, with concurrent callers sharing
 * one request, and refreshed in the background before they expire.
 */
export class AgentUserTokenProvider {
  /** The tenant the provider mints in unless a request names another: its GUID or domain, as given. */
  readonly tenantId: string;
  /** The provider's tenant's chain, and the chains of other tenants asked for, by lowercased tenant. */
  private readonly chain: HopChain;
  private readonly chains = new Map<string, HopChain>();
  private readonly chainConfig: HopChainConfig;
  private readonly defaults: { agentIdentityId?: string; agentUser?: string; resource: string };
  /** The clock tokens age on: refresh moments are on it, as the chain's deadlines are. */
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
      consistencyWindowMs: options.consistencyWindowMs ?? options.replicationWindowMs ?? 0,
      hooks: { sleep: hooks.sleep, random: hooks.random, now: hooks.now, monotonicNow: hooks.monotonicNow, onRetry: hooks.onRetry },
      tokenExchangeAudience: options.tokenExchangeAudience,
    };
    this.tenantId = options.tenantId;
    this.chain = new HopChain(this.chainConfig);
    this.chains.set(options.tenantId.toLowerCase(), this.chain);
  }

  /** The chain that mints in `tenantId`; the provider's own when absent. */
  private chainFor(tenantId: string | undefined): HopChain {
    if (tenantId === undefined) return this.chain;
    const key = tenantId.toLowerCase();
    let chain = this.chains.get(key);
    if (!chain) {
      chain = new HopChain({ ...this.chainConfig, tenantId });
      this.chains.set(key, chain);
    }
    return chain;
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
    // Only its own fields: a key it lacks reads as undefined, never as a member put on Object.prototype.
    const request = isObject(given) ? (ownProperties(given) as AgentUserTokenRequestOptions) : given;
    const problem = requestProblem(request);
    if (problem) return Promise.reject(new UsageError(problem, undefined, STEP));
    const agentIdentityId = request.agentIdentityId ?? this.defaults.agentIdentityId;
    const agentUser = request.agentUser ?? this.defaults.agentUser;
    if (agentIdentityId === undefined) return Promise.reject(new UsageError("no agent identity: pass agentIdentityId to getToken() or to the provider", undefined, STEP));
    if (agentUser === undefined) return Promise.reject(new UsageError("no agent user: pass agentUser to getToken() or to the provider", undefined, STEP));
    const signal = isObject(options) ? (ownProperties(options) as GetAgentUserTokenOptions).abortSignal : undefined;
    if (signal?.aborted) return Promise.reject(new AbortError(STEP));
    const chainRequest: AgentUserTokenRequest = { agentIdentityId, agentUser, resourceUrl: request.resource ?? this.defaults.resource, fresh: request.fresh === true };
    if (request.claims !== undefined) chainRequest.claims = request.claims;
    if (request.enableCae === true) chainRequest.cae = true;
    const chain = this.chainFor(request.tenantId);
    // A cache hit, the hot path (`npm run bench`, hit through the provider), is served with no await of its own
    // and one read of the clock.
    const now = this.monotonicNow();
    const cached = chain.cachedAgentUserToken(chainRequest, now);
    if (cached) return Promise.resolve(this.refreshes.serve(chain, cached, chainRequest, now));
    return abortable(chain.mintAgentUserToken(chainRequest, signal), signal).then((minted) => this.refreshes.serve(chain, minted, chainRequest, this.monotonicNow()));
  }

  /** Forgets every cached token. */
  clear(): void {
    for (const chain of this.chains.values()) chain.clear();
    this.refreshes.clear();
  }
}

/** `work`, or an AbortError as soon as `signal` fires; the chain, given the signal too, cancels what no one else waits for. */
function abortable<T>(work: Promise<T>, signal: AbortSignalLike | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError(STEP));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
