import { checkImdsEndpoint, type BlueprintCredential } from "./blueprint-credential";
import { AgentUserError, UsageError } from "./errors";
import type { HopRecord } from "./hop-chain";
import { claimsParameter } from "./claims-request";
import type { AbortSignalLike } from "./token-cache";
import type { Dispatcher } from "undici";
import type { JwtClaims } from "./jwt";
import { checkRetryPolicy, type RetryHooks, type RetryPolicy } from "./retry";
import { millisecondsProblem, shownValue } from "./option-checks";
import { baseUrlProblem, isDomainName, isGuid, isUpn, PUBLIC_CLOUD, tokenExchangeAudienceProblem } from "./entra-rules";
import { isObject, jsonKind } from "./json-value";

/*
 * The token provider's public contract: its options, what getToken() takes
 * and gives, and the checks that refuse a wrong option or request with a
 * UsageError naming it, before any request is sent.
 */

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
  consistencyWindowMs?: number;
  /** @deprecated use `consistencyWindowMs`, of which this is a deprecated spelling. */
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

/** The step a getToken() error names. */
export const STEP = "agent user token";

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

/** What is wrong with a getToken() request: each field it names is checked as the provider's own option is. */
export function requestProblem(request: AgentUserTokenRequestOptions): string | undefined {
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
export function checkOptions(options: AgentUserTokenProviderOptions): string {
  const { tenantId, blueprintAppId, agentIdentityId, agentUser, timeoutMs, consistencyWindowMs, replicationWindowMs, refreshWindowMs, resource, retry, tokenExchangeAudience } = options as Partial<Record<keyof AgentUserTokenProviderOptions, unknown>>;
  const authorityUrl = options.authorityUrl ?? PUBLIC_CLOUD.authorityUrl;
  const authorityProblem = typeof authorityUrl === "string" ? baseUrlProblem(authorityUrl) : `must be a string, got ${jsonKind(authorityUrl)}`;
  const problems = [
    !isGuid(tenantId) && !(typeof tenantId === "string" && isDomainName(tenantId)) && `tenantId must be the tenant's GUID or a domain, got ${shownValue(tenantId)}`,
    !isGuid(blueprintAppId) && `blueprintAppId must be the blueprint's appId (a GUID), got ${shownValue(blueprintAppId)}`,
    ...credentialProblems(options.credential),
    authorityProblem && `authorityUrl ${authorityProblem}`,
    timeoutMs !== undefined && millisecondsProblem("timeoutMs", timeoutMs, false),
    consistencyWindowMs !== undefined && millisecondsProblem("consistencyWindowMs", consistencyWindowMs, true),
    replicationWindowMs !== undefined && millisecondsProblem("replicationWindowMs", replicationWindowMs, true),
    consistencyWindowMs !== undefined && replicationWindowMs !== undefined && "give consistencyWindowMs only: replicationWindowMs is its deprecated spelling",
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
