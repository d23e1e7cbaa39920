import { imdsEndpointProblem, type BlueprintCredential } from "./blueprint-credential";
import { AgentUserError, UsageError } from "./errors";
import type { HopRecord } from "./token-flows";
import { claimsParameter } from "./claims-request";
import type { AbortSignalLike } from "./abort";
import type { Dispatcher } from "undici";
import type { JwtClaims } from "./jwt";
import { checkRetryPolicy, type RetryHooks, type RetryPolicy } from "./retry";
import { millisecondsProblem, shownValue } from "./option-checks";
import { baseUrlProblem, isDomainName, isGuid, isUpn, PUBLIC_CLOUD, tokenExchangeAudienceProblem, userAssertionLengthProblem } from "./entra-rules";
import { isObject, jsonKind, ownProperties } from "./json-value";

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

/** What getAppToken() is asked for: the agent identity's own app-only token; every field defaults to the provider's own. */
export interface AgentAppTokenRequestOptions extends Omit<AgentUserTokenRequestOptions, "agentUser"> {
  /**
   * App roles the token must hold (its `roles` claim), e.g. ["User.Read.All"]:
   * a missing one fails with a ClaimsError that names the app role
   * assignment to make. Unchecked when absent.
   */
  roles?: string[];
}

/** What getOnBehalfOfToken() is asked for: a token for the signed-in user whose token the agent was given. */
export interface AgentOnBehalfOfTokenRequestOptions extends Omit<AgentUserTokenRequestOptions, "agentUser"> {
  /**
   * The signed-in user's access token, issued for the blueprint (its
   * audience is the blueprint's appId or identifier URI): the on-behalf-of
   * assertion. Required. Each new token is minted from the assertion of the
   * call that asks for it; the kit keeps only its hash, as a cache key.
   */
  userAssertion: string;
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

/** What a request of each of the provider's methods may hold, for the checks of requestProblem. */
type AnyTokenRequest = Partial<Record<keyof AgentUserTokenRequestOptions | "roles" | "userAssertion", unknown>>;

/**
 * The one rule of each connection option: what is wrong with a value, as the
 * words that follow its name ("must be …, got …"), or undefined. The
 * provider's options, a getToken() request, and every reader of variables,
 * stack outputs or flags name the input their own way and check it here.
 */
const OPTION_RULES = {
  tenantId: (value: unknown) => (isGuid(value) || (typeof value === "string" && isDomainName(value)) ? undefined : `must be the tenant's GUID or a domain, got ${shownValue(value)}`),
  blueprintAppId: (value: unknown) => (isGuid(value) ? undefined : `must be the blueprint's appId (a GUID), got ${shownValue(value)}`),
  agentIdentityId: (value: unknown) => (isGuid(value) ? undefined : `must be the agent identity's object id (a GUID), got ${shownValue(value)}`),
  agentUser: (value: unknown) => (isGuid(value) || isUpn(value) ? undefined : `must be the agent user's object id (a GUID) or its UPN, got ${shownValue(value)}`),
  resource: (value: unknown) => (typeof value === "string" && value.trim() !== "" ? undefined : `must be a non-empty string such as ${PUBLIC_CLOUD.resourceUrl}, got ${shownValue(value)}`),
  authorityUrl: baseUrlRule,
  tokenExchangeAudience: (value: unknown) => {
    const problem = tokenExchangeAudienceProblem(value);
    return problem && `${problem}, got ${shownValue(value)}`;
  },
  "credential.imdsEndpoint": (value: unknown) => (typeof value === "string" ? imdsEndpointProblem(value) : `must be a string, got ${jsonKind(value)}`),
} satisfies Record<string, (value: unknown) => string | undefined>;

/** The rule of a Graph or authority base URL, for a value of any type. */
export function baseUrlRule(value: unknown): string | undefined {
  return typeof value === "string" ? baseUrlProblem(value) : `must be a string, got ${jsonKind(value)}`;
}

export type CheckedOption = keyof typeof OPTION_RULES;

/**
 * How errors name each input: the library by its option (the default), a
 * reader by the variable, the outputs key or the flag the value came from.
 */
export type InputName = (option: CheckedOption) => string;

const optionName: InputName = (option) => option;

/** What is wrong with `value` as option `option`, named by `name`; undefined when nothing is. */
export function optionProblem(option: CheckedOption, value: unknown, name: string = option): string | undefined {
  const problem = OPTION_RULES[option](value);
  return problem && `${name} ${problem}`;
}

/**
 * What is wrong with a request of `method` (getToken(), getAppToken(),
 * getOnBehalfOfToken()): each field it names is checked as the provider's
 * own option is.
 */
export function requestProblem(given: unknown, method = "getToken()"): string | undefined {
  if (!isObject(given)) return `the request of ${method} must be an object, got ${shownValue(given)}`;
  const request = given as AnyTokenRequest;
  const checked = (name: "agentIdentityId" | "agentUser" | "resource" | "tenantId") =>
    request[name] === undefined ? undefined : optionProblem(name, request[name], `${name} of ${method}`);
  const problems = [checked("agentIdentityId"), checked("agentUser"), checked("resource")];
  for (const flag of ["fresh", "enableCae"] as const) {
    if (request[flag] !== undefined && typeof request[flag] !== "boolean") problems.push(`${flag} of ${method} must be true or false, got ${shownValue(request[flag])}`);
  }
  problems.push(checked("tenantId"));
  const { claims, roles, userAssertion } = request;
  if (claims !== undefined) {
    if (typeof claims !== "string") problems.push(`claims of ${method} must be a JSON string, got ${shownValue(claims)}`);
    else {
      try {
        claimsParameter(claims, false, STEP);
      } catch (err) {
        problems.push(err instanceof AgentUserError ? err.detail : String(err));
      }
    }
  }
  if (roles !== undefined && !(Array.isArray(roles) && roles.every((role) => typeof role === "string" && /^\S+$/.test(role)))) {
    problems.push(`roles of ${method} must be a list of app role values such as "User.Read.All", got ${shownValue(roles)}`);
  }
  // Never the assertion itself: it is a user's token.
  if (userAssertion !== undefined && !(typeof userAssertion === "string" && /^[\x21-\x7e]+$/.test(userAssertion))) {
    problems.push(`userAssertion of ${method} must be the user's access token, one line without spaces, got ${typeof userAssertion === "string" ? `a string of ${userAssertion.length} characters` : jsonKind(userAssertion)}`);
  } else if (typeof userAssertion === "string") {
    const tooLong = userAssertionLengthProblem(userAssertion.length);
    if (tooLong) problems.push(`userAssertion of ${method} is ${tooLong}: pass the person's access token alone`);
  }
  const found = problems.filter((problem): problem is string => problem !== undefined);
  return found.length > 0 ? found.join("; ") : undefined;
}

/** What is wrong with the blueprint credential; never its secret or key. */
function credentialProblems(given: unknown, name: InputName): string[] {
  if (given === undefined || given === null) return ["credential is missing"];
  if (!isObject(given)) return [`credential must be an object, got ${jsonKind(given)}`];
  const credential = ownProperties(given);
  switch (credential.kind) {
    case "secret":
      return typeof credential.secret === "string" && credential.secret.trim() !== "" ? [] : ["credential.secret must be a non-empty string"];
    case "certificate": {
      const { certificate } = credential;
      const loaded = isObject(certificate) && typeof certificate.thumbprintS256 === "string" && isObject(certificate.key) && certificate.key.type === "private";
      return loaded ? [] : ['credential.certificate must be what loadCertificate() returns: loadCertificate({ certificatePem, privateKeyPem }, "blueprint")'];
    }
    case "managedIdentity": {
      const problems = (["clientId", "tokenFile"] as const)
        .filter((key) => credential[key] !== undefined && typeof credential[key] !== "string")
        .map((key) => `credential.${key} must be a string, got ${jsonKind(credential[key])}`);
      const imds = credential.imdsEndpoint !== undefined && optionProblem("credential.imdsEndpoint", credential.imdsEndpoint, name("credential.imdsEndpoint"));
      return imds ? [...problems, imds] : problems;
    }
    default:
      return [`credential.kind must be "secret", "certificate" or "managedIdentity", got ${shownValue(credential.kind)}`];
  }
}

/** The fix of a wrong token-exchange audience: the authority's cloud's is nearly always the right one. */
function audienceHint(audience: unknown): string | undefined {
  return audience !== undefined && OPTION_RULES.tokenExchangeAudience(audience) ? "leave the token-exchange audience out to use the authority's cloud's" : undefined;
}

/** The options that OPTION_RULES check when given; tenantId and blueprintAppId are checked given or not. */
const OPTIONAL_CHECKED = ["agentIdentityId", "agentUser", "resource", "tokenExchangeAudience"] as const;

/**
 * Every problem of the provider's options, each named by `name`: a reader of
 * variables, stack outputs or flags names the place a value came from, the
 * library the option. Never a secret or a key.
 */
function optionProblems(options: AgentUserTokenProviderOptions, name: InputName): string[] {
  // Own properties only: an option some other code put on Object.prototype is none of the caller's.
  const given = ownProperties(options) as Partial<Record<keyof AgentUserTokenProviderOptions, unknown>>;
  const { timeoutMs, consistencyWindowMs, replicationWindowMs, refreshWindowMs, retry } = given;
  const problems = [
    optionProblem("tenantId", given.tenantId, name("tenantId")),
    optionProblem("blueprintAppId", given.blueprintAppId, name("blueprintAppId")),
    ...credentialProblems(given.credential, name),
    optionProblem("authorityUrl", given.authorityUrl ?? PUBLIC_CLOUD.authorityUrl, name("authorityUrl")),
    timeoutMs !== undefined && millisecondsProblem("timeoutMs", timeoutMs, false),
    consistencyWindowMs !== undefined && millisecondsProblem("consistencyWindowMs", consistencyWindowMs, true),
    replicationWindowMs !== undefined && millisecondsProblem("replicationWindowMs", replicationWindowMs, true),
    consistencyWindowMs !== undefined && replicationWindowMs !== undefined && "give consistencyWindowMs only: replicationWindowMs is its deprecated spelling",
    refreshWindowMs !== undefined && millisecondsProblem("refreshWindowMs", refreshWindowMs, true),
    ...(retry !== undefined ? checkRetryPolicy("retry", retry).problems : []),
    ...OPTIONAL_CHECKED.map((option) => given[option] !== undefined && optionProblem(option, given[option], name(option))),
  ];
  return problems.filter((problem): problem is string => typeof problem === "string");
}

/**
 * The provider's options, checked before any request: a mistake is a
 * UsageError naming each wrong option (as `name` names it), not a TypeError
 * from the first getToken(), and the blueprint credential goes to an
 * authority over https, or over plain http only to this machine (the
 * emulator). `others` are a reader's problems with inputs beside the options
 * (the CLI's Graph URL), refused with them. Returns the authority URL's
 * origin, the one spelling the kit keeps.
 */
export function checkOptions(options: AgentUserTokenProviderOptions, name: InputName = optionName, others: readonly string[] = []): string {
  const problems = [...optionProblems(options, name), ...others];
  if (problems.length > 0) throw new UsageError(problems.join("; "), audienceHint(options.tokenExchangeAudience));
  return new URL(options.authorityUrl ?? PUBLIC_CLOUD.authorityUrl).origin;
}
