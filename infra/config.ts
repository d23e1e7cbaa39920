import { X509Certificate } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { UsageError } from "../lib/errors";
import { assertSecureUrl } from "../lib/urls";
import { DEFAULT_CONSISTENCY_WINDOW_MS, MAX_CONSISTENCY_WINDOW_MS } from "./providers/inputs";
import { ALLOWED_SCOPES, DEFAULT_SCOPES } from "./scope-policy";

/** The project's configuration namespace: keys are `agent-user-kit:<key>`. */
export const CONFIG_NAMESPACE = "agent-user-kit";

/** Microsoft Graph's appId, the same in every tenant: the default resource of the grant. */
import { MICROSOFT_GRAPH_APP_ID } from "../lib/well-known";
export { MICROSOFT_GRAPH_APP_ID };

export const DEFAULT_GRAPH_URL = "https://graph.microsoft.com";
export const DEFAULT_AUTHORITY_URL = "https://login.microsoftonline.com";
/** How long a dependent create waits for its parent object to replicate. */
export const DEFAULT_CONSISTENCY_WINDOW_SECONDS = DEFAULT_CONSISTENCY_WINDOW_MS / 1000;

/**
 * Entra's documented limits. displayName: 256 for applications (so blueprints)
 * and users (so agent users); Graph documents no limit for service principals,
 * so an agent identity gets the limit of the blueprint it is made from.
 * mailNickname: 64. UPN (learn.microsoft.com/entra/identity/authentication/
 * concept-sspr-policy#username-policies): at most 64 characters before the @
 * and 48 after it (113 in all, which those two bounds already imply), only
 * A-Z a-z 0-9 ' . - _ ! # ^ ~, and no period right before the @.
 */
export const LIMITS = { displayName: 256, mailNickname: 64, upnLocalPart: 64, upnDomain: 48, sponsors: 100 } as const;

export const CONFIG_KEYS = [
  "userDomain",
  "blueprintName",
  "agentIdentityName",
  "agentUserName",
  "sponsors",
  "scopes",
  "allowedScopes",
  "resourceAppId",
  "credential",
  "managedIdentityPrincipalId",
  "resourceGroupName",
  "location",
  "certificatePem",
  "secretEndDate",
  "graphUrl",
  "authorityUrl",
  "consistencyWindowSeconds",
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Configuration as Pulumi hands it over (lists arrive JSON-encoded), or as a test writes it. */
export type RawConfig = Partial<Record<ConfigKey, string | readonly string[] | number>>;

export const CREDENTIAL_MODES = ["secret", "managedIdentity", "certificate"] as const;
export type CredentialMode = (typeof CREDENTIAL_MODES)[number];

/** How the blueprint proves itself in hop 1. */
export type CredentialConfig =
  | { mode: "secret"; endDate?: string }
  | { mode: "managedIdentity"; existingPrincipalId: string }
  | { mode: "managedIdentity"; newIdentity: { resourceGroupName: string; location: string } }
  | { mode: "certificate"; certificatePem: string; endDate: string };

/** Validated configuration: every value here has passed the checks below. */
export interface KitConfig {
  userDomain: string;
  blueprintName: string;
  agentIdentityName: string;
  agentUserName: string;
  /** `agentUserName@userDomain`. */
  userPrincipalName: string;
  /** Lower-cased, unique object ids. */
  sponsors: string[];
  scopes: string[];
  allowedScopes: string[];
  resourceAppId: string;
  credential: CredentialConfig;
  graphUrl: string;
  authorityUrl: string;
  consistencyWindowMs: number;
}

export interface ConfigProblem {
  key: ConfigKey;
  message: string;
}

/** Configuration is invalid; raised before any resource is registered, so preview fails, not `up` halfway. */
export class ConfigError extends UsageError {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super(
      problems.map((p) => `${CONFIG_NAMESPACE}:${p.key} ${p.message}`).join("; "),
      `fix with \`pulumi config set ${CONFIG_NAMESPACE}:<key> <value>\` (lists as JSON, e.g. '["id1","id2"]'); Pulumi.yaml describes every key`,
    );
    this.problems = problems;
  }
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const UPN_LOCAL = /^[A-Za-z0-9'._!#^~-]+$/;
const SCOPE = /^[A-Za-z0-9._-]+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export function isGuid(value: string): boolean {
  return GUID.test(value);
}

/**
 * Checks every key and returns the typed configuration, or throws one
 * ConfigError that lists every problem (each naming its key). Pure: `now`
 * only dates the expiry checks.
 */
export function validateConfig(raw: RawConfig, now: Date = new Date()): KitConfig {
  const problems: ConfigProblem[] = [];
  const fail = (key: ConfigKey, message: string) => void problems.push({ key, message });

  const userDomain = domain(raw, fail);
  const blueprintName = displayName(raw, "blueprintName", fail);
  const agentIdentityName = displayName(raw, "agentIdentityName", fail);
  const agentUserName = upnLocalPart(raw, fail);
  const sponsors = guidList(raw, "sponsors", fail);
  const allowedScopes = list(raw, "allowedScopes", fail) ?? [...ALLOWED_SCOPES];
  const scopes = scopeList(raw, allowedScopes, fail);
  const resourceAppId = guid(raw, "resourceAppId", fail) ?? MICROSOFT_GRAPH_APP_ID;
  const credential = credentialConfig(raw, now, fail);
  const graphUrl = url(raw, "graphUrl", DEFAULT_GRAPH_URL, fail);
  const authorityUrl = url(raw, "authorityUrl", DEFAULT_AUTHORITY_URL, fail);
  const consistencyWindowSeconds = integer(raw, "consistencyWindowSeconds", DEFAULT_CONSISTENCY_WINDOW_SECONDS, 0, MAX_CONSISTENCY_WINDOW_MS / 1000, fail);

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    userDomain: userDomain!,
    blueprintName: blueprintName!,
    agentIdentityName: agentIdentityName!,
    agentUserName: agentUserName!,
    userPrincipalName: `${agentUserName}@${userDomain}`,
    sponsors: sponsors!,
    scopes,
    allowedScopes,
    resourceAppId,
    credential: credential!,
    graphUrl,
    authorityUrl,
    consistencyWindowMs: consistencyWindowSeconds * 1000,
  };
}

/** Reads `agent-user-kit:*` from the stack and validates it. */
export function readConfig(): KitConfig {
  const config = new pulumi.Config(CONFIG_NAMESPACE);
  const raw: RawConfig = {};
  for (const key of CONFIG_KEYS) {
    const value = config.get(key);
    if (value !== undefined) raw[key] = value;
  }
  return validateConfig(raw);
}

type Fail = (key: ConfigKey, message: string) => void;

/** Pulumi reports an unset key as undefined, a blanked one as "": both mean "not set". */
function isSet(raw: RawConfig, key: ConfigKey): boolean {
  const value = raw[key];
  return value !== undefined && !(typeof value === "string" && value.trim() === "");
}

function text(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") {
    fail(key, "must be a single value, not a list");
    return undefined;
  }
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

function required(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  // A list in place of a value was already reported by text().
  if (value === undefined && typeof raw[key] !== "object") fail(key, "is required");
  return value;
}

/** A list given as a JSON array, or as words separated by spaces or commas. */
function list(raw: RawConfig, key: ConfigKey, fail: Fail): string[] | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  let items: unknown;
  if (typeof value === "string" && value.trim().startsWith("[")) {
    try {
      items = JSON.parse(value);
    } catch {
      fail(key, "is not a valid JSON list");
      return undefined;
    }
  } else {
    items = typeof value === "string" ? value.split(/[\s,]+/) : value;
  }
  if (!Array.isArray(items) || items.some((item) => typeof item !== "string")) {
    fail(key, "must be a list of strings");
    return undefined;
  }
  return (items as string[]).map((item) => item.trim()).filter((item) => item !== "");
}

function domain(raw: RawConfig, fail: Fail): string | undefined {
  const value = required(raw, "userDomain", fail)?.toLowerCase();
  if (value === undefined) return undefined;
  const labels = value.split(".");
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label)) || !/^[a-z]{2,}$/.test(labels[labels.length - 1]!)) {
    fail("userDomain", `must be a domain name such as contoso.onmicrosoft.com (got ${JSON.stringify(value)}); Graph also requires it to be verified in the tenant`);
    return undefined;
  }
  if (value.length > LIMITS.upnDomain) {
    fail("userDomain", `is ${value.length} characters; a UPN allows at most ${LIMITS.upnDomain} after the @`);
    return undefined;
  }
  return value;
}

function displayName(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = required(raw, key, fail);
  if (value === undefined) return undefined;
  if (value.length > LIMITS.displayName) {
    fail(key, `is ${value.length} characters; Entra allows at most ${LIMITS.displayName} in a display name`);
    return undefined;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    fail(key, "contains a control character");
    return undefined;
  }
  return value;
}

function upnLocalPart(raw: RawConfig, fail: Fail): string | undefined {
  const value = required(raw, "agentUserName", fail);
  if (value === undefined) return undefined;
  if (value.length > LIMITS.upnLocalPart) {
    fail("agentUserName", `is ${value.length} characters; it is the mail nickname and the UPN before the @, both limited to ${LIMITS.mailNickname}`);
    return undefined;
  }
  if (!UPN_LOCAL.test(value) || value.endsWith(".")) {
    fail("agentUserName", `may hold only A-Z a-z 0-9 ' . - _ ! # ^ ~ and must not end with a period (got ${JSON.stringify(value)})`);
    return undefined;
  }
  return value;
}

function guid(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  if (value === undefined) return undefined;
  if (!isGuid(value)) {
    fail(key, `must be an object id or app id (a GUID), got ${JSON.stringify(value)}`);
    return undefined;
  }
  return value.toLowerCase();
}

function guidList(raw: RawConfig, key: ConfigKey, fail: Fail): string[] | undefined {
  const values = list(raw, key, fail);
  if (values === undefined) {
    if (raw[key] === undefined) fail(key, "is required: at least one user object id (Entra refuses a blueprint or agent identity with no sponsor)");
    return undefined;
  }
  if (values.length === 0) {
    fail(key, "needs at least one user object id (Entra refuses a blueprint or agent identity with no sponsor)");
    return undefined;
  }
  const bad = values.filter((value) => !isGuid(value));
  if (bad.length > 0) {
    fail(key, `must hold user object ids (GUIDs), not ${bad.map((b) => JSON.stringify(b)).join(", ")}; a UPN is not accepted`);
    return undefined;
  }
  const unique = [...new Set(values.map((value) => value.toLowerCase()))];
  if (unique.length > LIMITS.sponsors) {
    fail(key, `lists ${unique.length} sponsors; Entra allows at most ${LIMITS.sponsors}`);
    return undefined;
  }
  return unique;
}

function scopeList(raw: RawConfig, allowed: readonly string[], fail: Fail): string[] {
  const values = list(raw, "scopes", fail) ?? [...DEFAULT_SCOPES];
  if (values.length === 0) {
    fail("scopes", "needs at least one delegated scope");
    return values;
  }
  const malformed = values.filter((value) => !SCOPE.test(value));
  if (malformed.length > 0) fail("scopes", `holds malformed scope names: ${malformed.map((m) => JSON.stringify(m)).join(", ")}`);
  const refused = values.filter((value) => SCOPE.test(value) && !allowed.includes(value));
  if (refused.length > 0) {
    fail("scopes", `holds ${refused.join(", ")}, not in the allow-list (${allowed.join(", ")}); add them to ${CONFIG_NAMESPACE}:allowedScopes only if the agent user must have them`);
  }
  return [...new Set(values)];
}

function credentialConfig(raw: RawConfig, now: Date, fail: Fail): CredentialConfig | undefined {
  const mode = text(raw, "credential", fail) ?? "secret";
  if (!(CREDENTIAL_MODES as readonly string[]).includes(mode)) {
    fail("credential", `must be one of ${CREDENTIAL_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
    return undefined;
  }
  // A key of another mode is a sign of a half-made switch; naming it beats silently ignoring it.
  const onlyFor: Array<[ConfigKey, CredentialMode]> = [
    ["secretEndDate", "secret"],
    ["managedIdentityPrincipalId", "managedIdentity"],
    ["resourceGroupName", "managedIdentity"],
    ["location", "managedIdentity"],
    ["certificatePem", "certificate"],
  ];
  for (const [key, owner] of onlyFor) {
    if (owner !== mode && isSet(raw, key)) fail(key, `is used only when credential is ${owner} (credential is ${mode}); remove it or change credential`);
  }
  if (mode === "secret") {
    const endDate = futureDate(raw, "secretEndDate", now, fail);
    return endDate === undefined ? { mode } : { mode, endDate };
  }
  if (mode === "managedIdentity") {
    if (isSet(raw, "managedIdentityPrincipalId")) {
      for (const key of ["resourceGroupName", "location"] as const) {
        if (isSet(raw, key)) fail(key, "is not used when managedIdentityPrincipalId names an existing identity; remove one of them");
      }
      const existingPrincipalId = guid(raw, "managedIdentityPrincipalId", fail);
      return existingPrincipalId === undefined ? undefined : { mode, existingPrincipalId };
    }
    const resourceGroupName = text(raw, "resourceGroupName", fail);
    const location = text(raw, "location", fail);
    const missing = "is required to create a user-assigned managed identity when managedIdentityPrincipalId is not set";
    if (resourceGroupName === undefined) fail("resourceGroupName", missing);
    if (location === undefined) fail("location", missing);
    return resourceGroupName && location ? { mode, newIdentity: { resourceGroupName, location } } : undefined;
  }
  return certificate(raw, now, fail);
}

function certificate(raw: RawConfig, now: Date, fail: Fail): CredentialConfig | undefined {
  const pem = text(raw, "certificatePem", fail);
  if (pem === undefined) {
    fail("certificatePem", "is required when credential is certificate: the public certificate (PEM) to upload to the blueprint");
    return undefined;
  }
  if (/PRIVATE KEY-----/.test(pem)) {
    fail("certificatePem", "contains a private key; give only the public certificate, the key never leaves the machine that signs assertions");
    return undefined;
  }
  let validTo: Date;
  try {
    validTo = new Date(new X509Certificate(pem).validTo);
  } catch {
    fail("certificatePem", "is not a PEM X.509 certificate (-----BEGIN CERTIFICATE-----)");
    return undefined;
  }
  if (Number.isNaN(validTo.getTime()) || validTo <= now) {
    fail("certificatePem", "has expired; issue a new certificate");
    return undefined;
  }
  return { mode: "certificate", certificatePem: pem, endDate: validTo.toISOString() };
}

function futureDate(raw: RawConfig, key: ConfigKey, now: Date, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(date.getTime())) {
    fail(key, `must be an RFC 3339 date such as 2027-01-31T00:00:00Z, got ${JSON.stringify(value)}`);
    return undefined;
  }
  if (date <= now) {
    fail(key, "is in the past");
    return undefined;
  }
  return date.toISOString();
}

function url(raw: RawConfig, key: ConfigKey, fallback: string, fail: Fail): string {
  const value = text(raw, key, fail);
  if (value === undefined) return fallback;
  try {
    const parsed = assertSecureUrl(`${CONFIG_NAMESPACE}:${key}`, value);
    // Paths are appended to it (`/v1.0/...`, `/{tenant}/oauth2/v2.0/token`, the federated credential's issuer):
    // a base that already has a path, query or fragment would make every one of them wrong.
    if (parsed.pathname.replace(/\/+$/, "") !== "" || parsed.search || parsed.hash) {
      fail(key, `must be a base URL with no path, query or fragment, such as ${fallback} (got ${JSON.stringify(`${parsed.origin}${parsed.pathname}`)})`);
      return fallback;
    }
    return parsed.origin;
  } catch (err) {
    fail(key, (err as Error).message.replace(/^configuration: \S+ /, ""));
    return fallback;
  }
}

function integer(raw: RawConfig, key: ConfigKey, fallback: number, min: number, max: number, fail: Fail): number {
  const value = text(raw, key, fail);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    fail(key, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    return fallback;
  }
  return number;
}
