import { checkImdsEndpoint, type BlueprintCredential } from "./blueprint-credential";
import { AbortError, AgentUserError, UsageError } from "./errors";
import { HopChain, type AgentUserToken, type AgentUserTokenRequest, type HopChainConfig, type HopRecord } from "./hop-chain";
import { claimsParameter } from "./claims-request";
import { EXPIRY_MARGIN_MS, type AbortSignalLike } from "./token-cache";
import type { Dispatcher } from "undici";
import type { JwtClaims } from "./jwt";
import { checkRetryPolicy, DEFAULT_RETRY, type RetryHooks, type RetryPolicy } from "./retry";
import { millisecondsProblem, shownValue } from "./option-checks";
import { resolveConnection, type ConnectionSettings, type InputNames } from "./settings";
import { baseUrlProblem, isDomainName, isGuid, isUpn, PUBLIC_CLOUD, tokenExchangeAudienceProblem } from "./entra-rules";
import { isObject, jsonKind, ownProperties } from "./json-value";
import { parseStackOutputs, selectAgent } from "./stack-outputs";

/** How an AgentUserTokenProvider reaches Entra, and the defaults of its requests. */
export interface AgentUserTokenProviderOptions {
  /** Tenant of the agent identity: its GUID or a verified domain. */
  tenantId: string;
  /** The blueprint's appId (hop 1's client_id). */
  blueprintAppId: string;
  /** How the blueprint proves itself in hop 1. */
  credential: BlueprintCredential;
  /**
   * Identity provider base URL (no path); default https://login.microsoftonline.com.
   * https, or plain http only to a loopback host such as the emulator's: the blueprint credential is sent there.
   */
  authorityUrl?: string;
  /**
   * The token-exchange audience of hops 1 and 2 and of a managed identity's
   * token; default: the authority's cloud's (api://AzureADTokenExchange, or
   * api://AzureADTokenExchangeUSGov / api://AzureADTokenExchangeChina). That
   * these two follow the cloud is an assumption no Microsoft source confirms.
   */
  tokenExchangeAudience?: string;
  /** Default agent identity of getToken(). */
  agentIdentityId?: string;
  /** Default agent user of getToken(): object id (sent as user_id) or UPN (sent as username). */
  agentUser?: string;
  /** Default resource of getToken(), e.g. https://graph.microsoft.com (the default). */
  resource?: string;
  /** Per-request timeout in milliseconds, more than 0 and at most 2,000,000,000; default 15,000. */
  timeoutMs?: number;
  /** How long to keep retrying "not replicated yet" answers (AADSTS700016, 65001, 50034) right after provisioning; default 0. */
  replicationWindowMs?: number;
  /**
   * How long before a cached token stops being served (5 minutes before its
   * expiry) a background refresh may start; default 10 minutes. Each token's
   * refresh moment is drawn at random inside this window, so tokens minted
   * together are not all refreshed in the same second.
   */
  refreshWindowMs?: number;
  /**
   * Retry bounds of each token request; default 5 attempts within 30 s.
   * maxAttempts is a whole number from 1 to 100; the times are milliseconds
   * from 0 to 2,000,000,000. A field left out keeps its default.
   */
  retry?: Partial<RetryPolicy>;
  /** Observe retries (onRetry) or replace the clock and sleep in tests. */
  hooks?: RetryHooks;
  /** undici dispatcher (proxy, TLS settings); the global one by default. */
  dispatcher?: Dispatcher;
}

/** What getToken() is asked for; every field defaults to the provider's own. */
export interface AgentUserTokenRequestOptions {
  resource?: string;
  agentIdentityId?: string;
  agentUser?: string;
  /** Bypass every cache, e.g. so newly granted scopes show up. */
  fresh?: boolean;
  /**
   * The tenant to mint in: its GUID or a verified domain; the provider's
   * tenantId by default. Each tenant has its own cache.
   */
  tenantId?: string;
  /**
   * A claims request (JSON) from a resource's claims challenge, sent on hop 3
   * as Entra's `claims` parameter; the token is minted anew, not served from
   * the cache, and replaces the cached one.
   */
  claims?: string;
  /** Declare the `cp1` client capability (Continuous Access Evaluation), as MSAL does; these tokens are cached apart. */
  enableCae?: boolean;
}

export type { AbortSignalLike };

export interface GetAgentUserTokenOptions {
  /**
   * Stops waiting for the token. A request other callers still wait for goes
   * on and fills the cache; one that no caller waits for any more is cancelled.
   */
  abortSignal?: AbortSignalLike;
}

/**
 * A checked agent user token: an @azure/core-auth AccessToken (the same
 * fields, epoch milliseconds rather than Dates) with what the chain checked.
 */
export interface AgentUserAccessToken {
  token: string;
  /** When the token expires, in epoch milliseconds (Entra's expires_in from the moment it was minted). */
  expiresOnTimestamp: number;
  /** When a caller holding this token should ask again, in epoch milliseconds: its refresh moment (see refreshWindowMs). */
  refreshAfterTimestamp: number;
  tokenType: "Bearer";
  claims: JwtClaims;
  hops: HopRecord[];
}

export const DEFAULT_REFRESH_WINDOW_MS = 10 * 60 * 1000;

/** What fromEnvironment's and fromStackOutputs' errors name: the variables or the outputs keys they read, never the CLI's flags. */
const ENVIRONMENT_NAMES: InputNames = {
  flags: false,
  env: true,
  missingHint: "set these AGENT_USER_* variables, or build it from `pulumi stack output --json --show-secrets` with fromStackOutputs()",
};
const STACK_OUTPUT_NAMES: InputNames = { flags: false, env: false, outputs: "the stack outputs", missingHint: "pass the parsed JSON of `pulumi stack output --json --show-secrets`" };

/** Per cached final token: when to refresh it, and the refresh under way. */
interface RefreshState {
  refreshAt: number;
  running?: Promise<unknown>;
}

const STEP = "agent user token";

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
  private readonly refreshWindowMs: number;
  /** The clock tokens age on: refresh moments are on it, as the chain's deadlines are. */
  private readonly monotonicNow: () => number;
  private readonly random: () => number;
  /**
   * By the cached token's claims object, which the hop chain hands out on
   * every hit of that token: the lookup builds no key, and a token the chain
   * has replaced takes its state with it.
   */
  private refreshes = new WeakMap<JwtClaims, RefreshState>();

  constructor(given: AgentUserTokenProviderOptions) {
    if (!isObject(given)) throw new UsageError(`the options must be an object, got ${shownValue(given)}`);
    // Own properties only, here and in every object below: a polluted Object.prototype must not choose the authority or the credential.
    const options = ownProperties(given) as AgentUserTokenProviderOptions;
    if (isObject(options.credential)) options.credential = ownProperties(options.credential) as BlueprintCredential;
    const authorityUrl = checkOptions(options);
    const hooks: RetryHooks = ownProperties(isObject(options.hooks) ? (options.hooks as RetryHooks) : {});
    this.monotonicNow = hooks.monotonicNow ?? (() => performance.now());
    this.random = hooks.random ?? Math.random;
    this.refreshWindowMs = options.refreshWindowMs ?? DEFAULT_REFRESH_WINDOW_MS;
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
      replicationWindowMs: options.replicationWindowMs ?? 0,
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
    const source = "stack outputs";
    const selected = selectAgent(parseStackOutputs(outputs, source), agent, source, { pick: "the agent override ({ agent: NAME })", name: "the agent override" });
    return new AgentUserTokenProvider({ ...optionsOf(resolveConnection({}, {}, selected, process.cwd(), false, STACK_OUTPUT_NAMES)), ...rest });
  }

  /** A provider from the AGENT_USER_* environment variables the `agent-user` command reads. */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AgentUserTokenProviderOptions> = {}): AgentUserTokenProvider {
    return new AgentUserTokenProvider({ ...optionsOf(resolveConnection({}, env, {}, process.cwd(), false, ENVIRONMENT_NAMES)), ...overrides });
  }

  /** A token for the agent user, from the cache while it is good, checked against what was asked for. */
  getToken(given: AgentUserTokenRequestOptions = {}, options?: GetAgentUserTokenOptions): Promise<AgentUserAccessToken> {
    const request = ownRequest(given);
    const problem = requestProblem(request);
    if (problem) return Promise.reject(new UsageError(problem, undefined, STEP));
    const agentIdentityId = request.agentIdentityId ?? this.defaults.agentIdentityId;
    const agentUser = request.agentUser ?? this.defaults.agentUser;
    if (agentIdentityId === undefined) return Promise.reject(new UsageError("no agent identity: pass agentIdentityId to getToken() or to the provider", undefined, STEP));
    if (agentUser === undefined) return Promise.reject(new UsageError("no agent user: pass agentUser to getToken() or to the provider", undefined, STEP));
    const signal = options !== undefined && options !== null && Object.hasOwn(options, "abortSignal") ? options.abortSignal : undefined;
    if (signal?.aborted) return Promise.reject(new AbortError(STEP));
    const chainRequest: AgentUserTokenRequest = { agentIdentityId, agentUser, resourceUrl: request.resource ?? this.defaults.resource, fresh: request.fresh === true };
    if (request.claims !== undefined) chainRequest.claims = request.claims;
    if (request.enableCae === true) chainRequest.cae = true;
    const chain = this.chainFor(request.tenantId);
    // A cache hit, the hot path (`npm run bench`, hit through the provider), is served with no await of its own
    // and one read of the clock.
    const now = this.monotonicNow();
    const cached = chain.cachedAgentUserToken(chainRequest, now);
    if (cached) return Promise.resolve(this.serve(chain, cached, chainRequest, now));
    return abortable(chain.mintAgentUserToken(chainRequest, signal), signal).then((minted) => this.serve(chain, minted, chainRequest, this.monotonicNow()));
  }

  /** The token as served, with a background refresh started once its refresh moment (monotonic, as `now`) has come. */
  private serve(chain: HopChain, minted: AgentUserToken, chainRequest: AgentUserTokenRequest, now: number): AgentUserAccessToken {
    const state = this.refreshState(minted, now);
    if (!chainRequest.fresh && !state.running && now >= state.refreshAt) {
      // Serve the valid token now; the renewal (without the challenge's claims, which were for that one token) fills the cache for the next caller.
      state.running = chain.mintAgentUserToken({ ...chainRequest, claims: undefined, renew: true }).then(
        (renewed) => void this.refreshState(renewed, this.monotonicNow()),
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

  /** Forgets every cached token. */
  clear(): void {
    for (const chain of this.chains.values()) chain.clear();
    this.refreshes = new WeakMap();
  }

  /** The refresh moment of a token on the monotonic clock, drawn once per token. */
  private refreshState(token: AgentUserToken, now: number): RefreshState {
    const known = this.refreshes.get(token.claims);
    if (known) return known;
    const servedUntil = token.deadline - EXPIRY_MARGIN_MS;
    // A short-lived token refreshes in the second half of its served life at the earliest, never right after minting.
    const window = Math.min(this.refreshWindowMs, Math.max(0, (servedUntil - now) / 2));
    const state: RefreshState = { refreshAt: servedUntil - this.random() * window };
    this.refreshes.set(token.claims, state);
    return state;
  }
}

/** The rule for an agent identity id, an agent user and a resource, the same in the options and in a request. */
const AGENT_RULES = {
  agentIdentityId: (value: unknown) => (isGuid(value) ? undefined : "must be the agent identity's object id (a GUID)"),
  agentUser: (value: unknown) => (isGuid(value) || isUpn(value) ? undefined : "must be the agent user's object id (a GUID) or its UPN"),
  resource: (value: unknown) => (typeof value === "string" && value.trim() !== "" ? undefined : "must be a non-empty string such as https://graph.microsoft.com"),
};

/** What is wrong with `value` as agent option `name`, e.g. "agentUser must be …, got …". */
function agentOptionProblem(name: keyof typeof AGENT_RULES, value: unknown, where = ""): string | undefined {
  const problem = AGENT_RULES[name](value);
  return problem && `${name}${where} ${problem}, got ${shownValue(value)}`;
}

/** The fields of a getToken() request that are its own (none for what is no object, which requestProblem refuses). */
function ownRequest(request: AgentUserTokenRequestOptions): AgentUserTokenRequestOptions {
  if (!isObject(request as unknown)) return request;
  const own = <K extends keyof AgentUserTokenRequestOptions>(key: K): AgentUserTokenRequestOptions[K] => (Object.hasOwn(request, key) ? request[key] : undefined);
  return {
    agentIdentityId: own("agentIdentityId"),
    agentUser: own("agentUser"),
    resource: own("resource"),
    fresh: own("fresh"),
    tenantId: own("tenantId"),
    claims: own("claims"),
    enableCae: own("enableCae"),
  };
}

/** What is wrong with a getToken() request: each field it names is checked as the provider's own option is. */
function requestProblem(request: AgentUserTokenRequestOptions): string | undefined {
  if (!isObject(request)) return `the request of getToken() must be an object, got ${shownValue(request)}`;
  const problems = (["agentIdentityId", "agentUser", "resource"] as const)
    .filter((name) => request[name] !== undefined)
    .map((name) => agentOptionProblem(name, request[name], " of getToken()"))
    .filter((problem): problem is string => problem !== undefined);
  for (const flag of ["fresh", "enableCae"] as const) {
    if (request[flag] !== undefined && typeof request[flag] !== "boolean") problems.push(`${flag} of getToken() must be true or false, got ${shownValue(request[flag])}`);
  }
  const { tenantId, claims } = request as Partial<Record<keyof AgentUserTokenRequestOptions, unknown>>;
  if (tenantId !== undefined && !isGuid(tenantId) && !(typeof tenantId === "string" && isDomainName(tenantId))) {
    problems.push(`tenantId of getToken() must be the tenant's GUID or a domain, got ${shownValue(tenantId)}`);
  }
  if (claims !== undefined) {
    if (typeof claims !== "string") problems.push(`claims of getToken() must be a JSON string, got ${shownValue(claims)}`);
    else {
      try {
        claimsParameter(claims, false, STEP);
      } catch (err) {
        problems.push(err instanceof AgentUserError ? err.detail : String(err));
      }
    }
  }
  return problems.length > 0 ? problems.join("; ") : undefined;
}

/** What is wrong with the blueprint credential; never its secret or key. */
function credentialProblems(credential: unknown): string[] {
  if (credential === undefined || credential === null) return ["credential is missing"];
  if (!isObject(credential)) return [`credential must be an object, got ${jsonKind(credential)}`];
  switch (credential.kind) {
    case "secret":
      return typeof credential.secret === "string" && credential.secret.trim() !== "" ? [] : ["credential.secret must be a non-empty string"];
    case "certificate": {
      const { certificate } = credential;
      const loaded = isObject(certificate) && typeof certificate.thumbprintS256 === "string" && isObject(certificate.key) && certificate.key.type === "private";
      return loaded ? [] : ['credential.certificate must be what loadCertificate() returns: loadCertificate({ certificatePem, privateKeyPem }, "blueprint")'];
    }
    case "managedIdentity": {
      const problems = (["clientId", "tokenFile", "imdsEndpoint"] as const)
        .filter((key) => credential[key] !== undefined && typeof credential[key] !== "string")
        .map((key) => `credential.${key} must be a string, got ${jsonKind(credential[key])}`);
      if (problems.length === 0 && typeof credential.imdsEndpoint === "string") {
        try {
          checkImdsEndpoint(credential.imdsEndpoint);
        } catch (err) {
          problems.push(`credential.imdsEndpoint: ${err instanceof AgentUserError ? err.detail : String(err)}`);
        }
      }
      return problems;
    }
    default:
      return [`credential.kind must be "secret", "certificate" or "managedIdentity", got ${shownValue(credential.kind)}`];
  }
}

/**
 * The provider's options, checked before any request as the CLI checks its
 * flags: a mistake is a UsageError naming each wrong option, not a TypeError
 * from the first getToken(), and the blueprint credential goes to an
 * authority over https, or over plain http only to this machine (the
 * emulator). Returns the authority URL's origin, the one spelling the CLI uses.
 */
function checkOptions(options: AgentUserTokenProviderOptions): string {
  const { tenantId, blueprintAppId, agentIdentityId, agentUser, timeoutMs, replicationWindowMs, refreshWindowMs, resource, retry, tokenExchangeAudience } = options as Partial<Record<keyof AgentUserTokenProviderOptions, unknown>>;
  const authorityUrl = options.authorityUrl ?? PUBLIC_CLOUD.authorityUrl;
  const authorityProblem = typeof authorityUrl === "string" ? baseUrlProblem(authorityUrl) : `must be a string, got ${jsonKind(authorityUrl)}`;
  const problems = [
    !isGuid(tenantId) && !(typeof tenantId === "string" && isDomainName(tenantId)) && `tenantId must be the tenant's GUID or a domain, got ${shownValue(tenantId)}`,
    !isGuid(blueprintAppId) && `blueprintAppId must be the blueprint's appId (a GUID), got ${shownValue(blueprintAppId)}`,
    ...credentialProblems(options.credential),
    authorityProblem && `authorityUrl ${authorityProblem}`,
    timeoutMs !== undefined && millisecondsProblem("timeoutMs", timeoutMs, false),
    replicationWindowMs !== undefined && millisecondsProblem("replicationWindowMs", replicationWindowMs, true),
    refreshWindowMs !== undefined && millisecondsProblem("refreshWindowMs", refreshWindowMs, true),
    ...(retry !== undefined ? checkRetryPolicy("retry", retry).problems : []),
    agentIdentityId !== undefined && agentOptionProblem("agentIdentityId", agentIdentityId),
    agentUser !== undefined && agentOptionProblem("agentUser", agentUser),
    resource !== undefined && agentOptionProblem("resource", resource),
    tokenExchangeAudience !== undefined &&
      tokenExchangeAudienceProblem(tokenExchangeAudience) !== undefined &&
      `tokenExchangeAudience ${tokenExchangeAudienceProblem(tokenExchangeAudience)}, got ${shownValue(tokenExchangeAudience)}`,
  ].filter((problem): problem is string => typeof problem === "string");
  if (problems.length > 0) throw new UsageError(problems.join("; "));
  return new URL(authorityUrl).origin;
}

/** The provider for settings the CLI resolved (flags, environment, --outputs). */
export function providerFor(settings: ConnectionSettings, hooks?: RetryHooks): AgentUserTokenProvider {
  return new AgentUserTokenProvider({ ...optionsOf(settings), hooks });
}

function optionsOf(settings: ConnectionSettings): AgentUserTokenProviderOptions {
  return {
    tenantId: settings.tenantId,
    blueprintAppId: settings.blueprintAppId,
    credential: settings.credential,
    authorityUrl: settings.authorityUrl,
    agentIdentityId: settings.agentIdentityId,
    agentUser: settings.agentUser,
    resource: settings.resourceUrl,
    timeoutMs: settings.timeoutMs,
    replicationWindowMs: settings.replicationWindowMs,
    tokenExchangeAudience: settings.tokenExchangeAudience,
  };
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
