import { quoteValue } from "./printable";
import { secureUrlProblem } from "./urls";

/**
 * Entra's rules for the ids and names this kit writes and reads, and the ids
 * and URLs Entra fixes for every tenant. The stack
 * config, the components, the dynamic providers, the CLI and the emulator all
 * check with these, so they never disagree. No Pulumi import: the providers
 * carry this module through Pulumi's closure serializer, and the CLI and the
 * emulator load it without the SDK.
 */

/** Microsoft Graph's appId: its service principal is a grant's resource for Graph scopes. */
export const MICROSOFT_GRAPH_APP_ID = "00000003-0000-0000-c000-000000000000";
/** The audience of hop 1 and of the managed identity's assertion, and of the blueprint's federated credential. */
export const TOKEN_EXCHANGE_AUDIENCE = "api://AzureADTokenExchange";
/**
 * The token-exchange audience of each sovereign cloud, by its authority's
 * host: Microsoft documents these as the federated credential audiences of
 * those clouds (Entra workload identity federation: Fairfax, Mooncake), and
 * MSAL.NET's cloud settings pair them with the same hosts. That hop 1's scope
 * and the IMDS resource follow them too is an assumption no Microsoft source
 * confirms; a setting overrides it (HopChainConfig.tokenExchangeAudience).
 */
const SOVEREIGN_EXCHANGE_AUDIENCES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)(microsoftonline\.us|usgovcloudapi\.net)$/, "api://AzureADTokenExchangeUSGov"],
  [/(^|\.)(microsoftonline\.cn|chinacloudapi\.cn)$/, "api://AzureADTokenExchangeChina"],
];

/** The token-exchange audience of the authority's cloud; the public cloud's for any other host (the emulator's too). */
export function tokenExchangeAudience(authorityUrl: string): string {
  let host: string;
  try {
    host = new URL(authorityUrl).hostname.toLowerCase();
  } catch {
    return TOKEN_EXCHANGE_AUDIENCE;
  }
  return SOVEREIGN_EXCHANGE_AUDIENCES.find(([pattern]) => pattern.test(host))?.[1] ?? TOKEN_EXCHANGE_AUDIENCE;
}

/**
 * Why a token-exchange audience given as a setting is refused, or undefined:
 * an `api://` identifier, as every audience Microsoft lists for the clouds is.
 */
export function tokenExchangeAudienceProblem(value: unknown): string | undefined {
  if (typeof value === "string" && /^api:\/\/\S+$/.test(value)) return undefined;
  return "must be an api:// identifier such as api://AzureADTokenExchangeUSGov";
}

/** The appId behind TOKEN_EXCHANGE_AUDIENCE: the `aud` of T1 and of a managed identity's token for it. */
export const TOKEN_EXCHANGE_APP_ID = "fb60f99c-7a34-4190-8149-302f77469936";

/** A resource as Entra compares it in a scope or an `aud`: trimmed, no trailing slash, without case. */
export const resourceKey = (resource: string): string => resource.trim().replace(/\/+$/, "").toLowerCase();

/**
 * Whether a resource (a URL or an appId) names Microsoft Graph: its public
 * identifier URI, its appId, or the Graph base URL in use (another cloud's).
 */
export function isGraphResource(resource: string, graphUrl?: string): boolean {
  const r = resourceKey(resource);
  return r === MICROSOFT_GRAPH_APP_ID || r === resourceKey(PUBLIC_CLOUD.resourceUrl) || (graphUrl !== undefined && r === resourceKey(graphUrl));
}

/** The public cloud's endpoints: the defaults of every base URL the kit takes. */
export const PUBLIC_CLOUD = {
  authorityUrl: "https://login.microsoftonline.com",
  graphUrl: "https://graph.microsoft.com",
  /** Graph's identifier URI, the resource of the agent user's token by default. */
  resourceUrl: "https://graph.microsoft.com",
} as const;

/**
 * The longest an access token from Entra lives, in seconds: 60 to 90 minutes
 * by default, up to 28 hours under continuous access evaluation
 * (learn.microsoft.com/entra/identity-platform/app-resilience-continuous-access-evaluation).
 * A lifetime (`expires_in`) or a time claim (`exp`, `nbf`, `iat`) further
 * from now than this is not a token Entra minted; a week leaves room for
 * clock skew and for longer lifetimes to come, and keeps every time the kit
 * computes from one a valid date.
 */
export const MAX_TOKEN_LIFETIME_S = 7 * 24 * 3600;

/**
 * The longest person's token the on-behalf-of flow sends, in characters (a
 * token is ASCII: one byte each). No access token Entra issues comes near
 * it: Entra keeps a token small enough for an Authorization header, a few
 * KB, and puts an overage claim in place of a user's groups past 200 of
 * them; and servers refuse request headers past 8 to 16 KiB by default
 * (Node's is 16 KiB), so no API a person's token is for would take one.
 * A longer value is something else (a file, a log), refused before it is
 * sent.
 */
export const MAX_USER_ASSERTION_CHARS = 64 * 1024;

/** What is wrong with the length of a person's token, as the words after "is" or "holds"; undefined when no Entra token is longer. */
export function userAssertionLengthProblem(length: number): string | undefined {
  if (length <= MAX_USER_ASSERTION_CHARS) return undefined;
  return `${length.toLocaleString("en-US")} characters, more than any access token Entra issues (at most ${MAX_USER_ASSERTION_CHARS.toLocaleString("en-US")}, 64 KiB)`;
}

/**
 * Entra's documented limits. displayName: 256 for applications (so blueprints)
 * and users (so agent users); Graph documents no limit for service principals,
 * so an agent identity gets the limit of the blueprint it is made from.
 * mailNickname: 64. UPN (learn.microsoft.com/entra/identity/authentication/
 * concept-sspr-policy#username-policies): at most 64 characters before the @
 * and 48 after it (113 in all, which those two bounds already imply).
 * Sponsors (agentidentity-post-sponsors, agentidentityblueprint-post-sponsors):
 * at most 100 per object, of which at most 5 groups.
 */
export const LIMITS = { displayName: 256, mailNickname: 64, upnLocalPart: 64, upnDomain: 48, sponsors: 100, sponsorGroups: 5 } as const;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The all-zero GUID of example files: no tenant, application or user has it. */
const PLACEHOLDER_GUID = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;
/** The username policy's characters: A-Z a-z 0-9 ' . - _ ! # ^ ~. */
const UPN_LOCAL = /^[A-Za-z0-9'._!#^~-]+$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** An object id, app id or tenant id, in either case. */
export function isGuid(value: unknown): value is string {
  return typeof value === "string" && GUID.test(value);
}

export function isPlaceholderGuid(value: string): boolean {
  return PLACEHOLDER_GUID.test(value.trim());
}

/**
 * A delegated permission's value (permissionScope.value, the scope a token's
 * `scp` carries), as Microsoft's page for permissionScope gives it
 * (microsoft-graph-docs-contrib api-reference/v1.0/resources/permissionscope.md,
 * "value"): at most 120 characters, each a letter, a digit or one of
 * : ! # $ % & ' ( ) * + , - . / ; < = > ? @ [ ] ^ _ ` { | } ~ (every printable
 * ASCII character but the space, `"` and `\`: no control character), and,
 * as Graph's metadata for the property adds, not starting with a dot.
 */
const SCOPE_VALUE = /^[!#-[\]-~]+$/;
export const SCOPE_VALUE_MAX = 120;

/** Why a permission scope value would be refused, or undefined; the value itself is left to the caller to quote. */
export function scopeValueProblem(value: string): string | undefined {
  if (value.length === 0) return "must not be empty";
  if (value.length > SCOPE_VALUE_MAX) return `is ${value.length} characters; Entra allows at most ${SCOPE_VALUE_MAX} in a scope value`;
  if (!SCOPE_VALUE.test(value)) return "may hold only letters, digits and : ! # $ % & ' ( ) * + , - . / ; < = > ? @ [ ] ^ _ ` { | } ~ (no space, quote, backslash or control character)";
  if (value.startsWith(".")) return "must not start with '.'";
  return undefined;
}

/** Why a display name would be refused, or undefined. */
export function displayNameProblem(value: string): string | undefined {
  if (value.length > LIMITS.displayName) return `is ${value.length} characters; Entra allows at most ${LIMITS.displayName} in a display name`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return "contains a control character";
  return undefined;
}

/**
 * Why the part of a UPN before the @ (an agent user's mail nickname too) would
 * be refused, or undefined. `quote` shows the value (a caller whose value is a
 * secret shows none of it), as in each rule below that quotes one.
 */
export function upnLocalPartProblem(value: string, quote: (value: string) => string = quoteValue): string | undefined {
  if (value.length > LIMITS.upnLocalPart) {
    return `is ${value.length} characters; it is the mail nickname and the UPN before the @, both limited to ${LIMITS.mailNickname}`;
  }
  // The policy refuses a period right before the @, which is the end of this part.
  if (!UPN_LOCAL.test(value) || value.endsWith(".")) {
    return `may hold only A-Z a-z 0-9 ' . - _ ! # ^ ~ and must not end with a period (got ${quote(value)})`;
  }
  return undefined;
}

/** A DNS name of two or more labels ending in letters, such as contoso.onmicrosoft.com. */
export function isDomainName(value: string): boolean {
  const labels = value.split(".");
  return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label)) && /^[a-z]{2,}$/i.test(labels[labels.length - 1]!);
}

/** Why the part of a UPN after the @ would be refused, or undefined. Graph also requires it to be a verified domain of the tenant. */
export function upnDomainProblem(value: string, quote: (value: string) => string = quoteValue): string | undefined {
  if (!isDomainName(value)) {
    return `must be a domain name such as contoso.onmicrosoft.com (got ${quote(value)}); Graph also requires it to be verified in the tenant`;
  }
  if (value.length > LIMITS.upnDomain) return `is ${value.length} characters; a UPN allows at most ${LIMITS.upnDomain} after the @`;
  return undefined;
}

/** Why a whole UPN would be refused, or undefined. */
export function upnProblem(value: string): string | undefined {
  const at = value.lastIndexOf("@");
  if (at < 0) return `must be local@domain, got ${quoteValue(value)}`;
  const local = upnLocalPartProblem(value.slice(0, at));
  if (local) return `before the @ ${local}`;
  const domain = upnDomainProblem(value.slice(at + 1));
  return domain ? `after the @ ${domain}` : undefined;
}

export function isUpn(value: unknown): value is string {
  return typeof value === "string" && upnProblem(value) === undefined;
}

/**
 * The one spelling of a base URL that baseUrlProblem accepts: its origin
 * (lower-case host, no default port, no trailing slash). The stack config,
 * the providers and the CLI all keep it so, and a provider compares stored
 * ones so: a spelling never shows as a change, let alone a replacement.
 */
export function baseUrlOf(value: string): string {
  return new URL(value).origin;
}

/**
 * Why a Graph or authority base URL would be refused, or undefined. Paths are
 * appended to it (`/v1.0/...`, `/{tenant}/oauth2/v2.0/token`, the federated
 * credential's issuer): a base that already has a path, query or fragment would
 * make every one of them wrong. Plain http only on loopback (the emulator).
 */
export function baseUrlProblem(value: string, quote: (value: string) => string = quoteValue): string | undefined {
  const problem = secureUrlProblem(value, quote);
  if (problem) return problem;
  const url = new URL(value);
  if (url.pathname.replace(/\/+$/, "") !== "" || url.search || url.hash) {
    const origin = `${url.protocol}//${url.host}`;
    // The example is the value's own origin: shown only where `quote` shows the value.
    const example = quote(origin) === quoteValue(origin) ? origin : "its origin alone";
    return `must be a base URL with no path, query or fragment, such as ${example} (got ${quote(`${url.origin}${url.pathname}`)})`;
  }
  return undefined;
}
