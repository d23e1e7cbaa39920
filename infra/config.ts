import { X509Certificate } from "node:crypto";
import { quoteValue } from "../lib/printable";
import {
  baseUrlOf,
  baseUrlProblem,
  displayNameProblem,
  isGuid,
  isPlaceholderGuid,
  LIMITS,
  MICROSOFT_GRAPH_APP_ID,
  PUBLIC_CLOUD,
  tokenExchangeAudience,
  tokenExchangeAudienceProblem,
  upnDomainProblem,
  upnLocalPartProblem,
} from "../lib/entra-rules";
import { UsageError } from "../lib/errors";
import { isObject } from "../lib/json-value";
import { didYouMean } from "../lib/did-you-mean";
import { DEFAULT_CONSISTENCY_WINDOW_MS, MAX_CONSISTENCY_WINDOW_MS } from "./providers/inputs";
import { ALLOWED_SCOPES, DEFAULT_SCOPES } from "./scope-policy";

/** The project's configuration namespace: keys are `agent-user-kit:<key>`. */
export const CONFIG_NAMESPACE = "agent-user-kit";

/** How long a dependent create waits for its parent object to replicate. */
export const DEFAULT_CONSISTENCY_WINDOW_SECONDS = DEFAULT_CONSISTENCY_WINDOW_MS / 1000;

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
  "tokenExchangeAudience",
  "consistencyWindowSeconds",
  "agents",
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Configuration as Pulumi hands it over (lists arrive JSON-encoded), or as a test writes it. */
export type RawConfig = Partial<Record<ConfigKey, string | readonly string[] | number | readonly AgentSpec[]>>;

/** One agent of a fleet: its identity, its agent user and their grant. */
export interface AgentSpec {
  /** The agent's name: its key in the `agents` stack output and in `--agent`, and part of its resources' names. */
  name: string;
  /** Display name of the agent identity; the agent's name by default. */
  identityName?: string;
  /** Mail nickname of the agent user and the part of its UPN before the @. */
  userName: string;
  /** Delegated scopes of its grant; the stack's `scopes` by default. */
  scopes?: string[];
}

export const CREDENTIAL_MODES = ["secret", "managedIdentity", "certificate"] as const;
export type CredentialMode = (typeof CREDENTIAL_MODES)[number];

/** How the blueprint proves itself in hop 1. */
export type CredentialConfig =
  | { mode: "secret"; endDate?: string }
  | { mode: "managedIdentity"; existingPrincipalId: string }
  | { mode: "managedIdentity"; newIdentity: { resourceGroupName: string; location: string } }
  | { mode: "certificate"; certificatePem: string; endDate: string };

/** A validated agent. */
export interface AgentConfig {
  name: string;
  identityName: string;
  userName: string;
  /** `userName@userDomain`. */
  userPrincipalName: string;
  scopes: string[];
}

/** Validated configuration: every value here has passed the checks below. */
export interface KitConfig {
  userDomain: string;
  blueprintName: string;
  /** Lower-cased, unique object ids. */
  sponsors: string[];
  /** One or more; the first is the one the top-level stack outputs describe. */
  agents: AgentConfig[];
  /** The agents came from the one-agent keys (agentIdentityName, agentUserName, scopes). */
  shorthand: boolean;
  allowedScopes: string[];
  resourceAppId: string;
  credential: CredentialConfig;
  graphUrl: string;
  authorityUrl: string;
  /** Hop 1's audience and the blueprint's federated credential's: as configured, else the authority's cloud's. */
  tokenExchangeAudience: string;
  consistencyWindowMs: number;
}

export interface ConfigProblem {
  key: ConfigKey;
  message: string;
}

/** Where configuration came from, for the messages: the stack's keys, or a component's arguments. */
export interface ConfigSource {
  /** Put before each key, e.g. "agent-user-kit:" or 'AgentUserKit "kit": '. */
  prefix: string;
  hint: string;
  /** Agents come only from `agents` (a component has no one-agent keys). */
  agentsOnly?: boolean;
}

export const STACK_CONFIG: ConfigSource = {
  prefix: `${CONFIG_NAMESPACE}:`,
  hint: `fix with \`pulumi config set ${CONFIG_NAMESPACE}:<key> <value>\` (lists as JSON, e.g. '["id1","id2"]'); Pulumi.yaml describes every key`,
};

/** Configuration is invalid; raised before any resource is registered, so preview fails, not `up` halfway. */
export class ConfigError extends UsageError {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[], source: ConfigSource = STACK_CONFIG) {
    super(problems.map((p) => `${source.prefix}${p.key} ${p.message}`).join("; "), source.hint);
    this.problems = problems;
  }
}

const SCOPE = /^[A-Za-z0-9._-]+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks every key and returns the typed configuration, or throws one
 * ConfigError that lists every problem (each naming its key). Pure: `now`
 * only dates the expiry checks.
 */
export function validateConfig(raw: RawConfig, now: Date = new Date(), source: ConfigSource = STACK_CONFIG): KitConfig {
  const problems: ConfigProblem[] = [];
  const fail = (key: ConfigKey, message: string) => void problems.push({ key, message });

  const userDomain = domain(raw, fail);
  const blueprintName = displayName(raw, "blueprintName", fail);
  const sponsors = guidList(raw, "sponsors", fail);
  const allowedScopes = list(raw, "allowedScopes", fail) ?? [...ALLOWED_SCOPES];
  const scopes = scopeList(raw, allowedScopes, fail);
  const fleet = source.agentsOnly === true || hasAgents(raw);
  const agents = fleet ? agentList(raw, userDomain, scopes, allowedScopes, fail) : shorthandAgent(raw, userDomain, scopes, fail);
  const resourceAppId = guid(raw, "resourceAppId", fail) ?? MICROSOFT_GRAPH_APP_ID;
  const credential = credentialConfig(raw, now, fail);
  const graphUrl = url(raw, "graphUrl", PUBLIC_CLOUD.graphUrl, fail);
  const authorityUrl = url(raw, "authorityUrl", PUBLIC_CLOUD.authorityUrl, fail);
  const exchangeAudience = audience(raw, "tokenExchangeAudience", fail) ?? tokenExchangeAudience(authorityUrl);
  const consistencyWindowSeconds = integer(raw, "consistencyWindowSeconds", DEFAULT_CONSISTENCY_WINDOW_SECONDS, 0, MAX_CONSISTENCY_WINDOW_MS / 1000, fail);

  if (problems.length > 0) throw new ConfigError(problems, source);
  return {
    userDomain: userDomain!,
    blueprintName: blueprintName!,
    sponsors: sponsors!,
    agents: agents!,
    shorthand: !fleet,
    allowedScopes,
    resourceAppId,
    credential: credential!,
    graphUrl,
    authorityUrl,
    tokenExchangeAudience: exchangeAudience,
    consistencyWindowMs: consistencyWindowSeconds * 1000,
  };
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
  const problem = upnDomainProblem(value);
  if (problem) fail("userDomain", problem);
  return problem ? undefined : value;
}

function displayName(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = required(raw, key, fail);
  const problem = value === undefined ? undefined : displayNameProblem(value);
  if (problem) fail(key, problem);
  return problem ? undefined : value;
}

function upnLocalPart(raw: RawConfig, fail: Fail): string | undefined {
  const value = required(raw, "agentUserName", fail);
  const problem = value === undefined ? undefined : upnLocalPartProblem(value);
  if (problem) fail("agentUserName", problem);
  return problem ? undefined : value;
}

/** The single-agent keys: one agent, whose resources keep their pre-fleet names. */
function shorthandAgent(raw: RawConfig, userDomain: string | undefined, scopes: string[], fail: Fail): AgentConfig[] | undefined {
  const identityName = displayName(raw, "agentIdentityName", fail);
  const userName = upnLocalPart(raw, fail);
  if (identityName === undefined || userName === undefined) return undefined;
  return [{ name: userName, identityName, userName, userPrincipalName: `${userName}@${userDomain}`, scopes }];
}

/** Pulumi.yaml's default for `agents` is [], which means the one-agent shorthand. */
function hasAgents(raw: RawConfig): boolean {
  const value = raw.agents;
  if (value === undefined) return false;
  if (typeof value === "string") return !/^\s*(\[\s*\])?\s*$/.test(value);
  return !(Array.isArray(value) && value.length === 0);
}

/** An agent's name names its resources and its `--agent`: letters, digits and dashes. */
const AGENT_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})$/;

/** The `agents` list: every agent checked, every problem naming the agent and its field. */
function agentList(raw: RawConfig, userDomain: string | undefined, scopes: string[], allowed: readonly string[], fail: Fail): AgentConfig[] | undefined {
  for (const key of ["agentIdentityName", "agentUserName"] as const) {
    if (isSet(raw, key)) fail(key, "is the one-agent shorthand; with agents set, give each agent's names in agents instead");
  }
  let items: unknown = raw.agents;
  if (typeof items === "string") {
    try {
      items = JSON.parse(items);
    } catch {
      fail("agents", "is not a valid JSON list of agents");
      return undefined;
    }
  }
  if (!Array.isArray(items) || items.length === 0) {
    fail("agents", "must be a non-empty list of { name, identityName?, userName, scopes? }");
    return undefined;
  }
  const agents: AgentConfig[] = [];
  const seenNames = new Set<string>();
  const seenUsers = new Set<string>();
  items.forEach((item: unknown, index) => {
    const at = (field: string, message: string) => fail("agents", `[${index}]${typeof (item as AgentSpec)?.name === "string" ? ` (${quoteValue((item as AgentSpec).name)})` : ""}.${field} ${message}`);
    if (!isObject(item)) {
      fail("agents", `[${index}] must be an object { name, identityName?, userName, scopes? }`);
      return;
    }
    const spec = item as Record<string, unknown>;
    for (const key of Object.keys(spec)) if (!["name", "identityName", "userName", "scopes"].includes(key)) at(key, "is not an agent field (name, identityName, userName, scopes)");
    const name = typeof spec.name === "string" ? spec.name.trim() : undefined;
    if (!name || !AGENT_NAME.test(name)) at("name", `is required: 1 to 63 letters, digits and dashes (got ${quoteValue(spec.name)})`);
    else if (seenNames.has(name.toLowerCase())) at("name", "is used by another agent");
    const identityName = spec.identityName === undefined ? name : typeof spec.identityName === "string" ? spec.identityName.trim() : undefined;
    const identityProblem = identityName === undefined || identityName === "" ? "must be a non-empty string" : displayNameProblem(identityName);
    if (spec.identityName !== undefined && identityProblem) at("identityName", identityProblem);
    const userName = typeof spec.userName === "string" ? spec.userName.trim() : undefined;
    const userProblem = !userName ? "is required: the agent user's mail nickname" : upnLocalPartProblem(userName);
    if (userProblem) at("userName", userProblem);
    else if (seenUsers.has(userName!.toLowerCase())) at("userName", "is used by another agent (one agent user per agent identity)");
    let agentScopes = scopes;
    if (spec.scopes !== undefined) {
      const list = Array.isArray(spec.scopes) && spec.scopes.every((v) => typeof v === "string") ? (spec.scopes as string[]).map((v) => v.trim()).filter(Boolean) : undefined;
      if (!list || list.length === 0) at("scopes", "must be a non-empty list of scope names");
      else {
        const refused = list.filter((v) => !SCOPE.test(v) || !allowed.includes(v));
        if (refused.length > 0) at("scopes", `holds ${namedWithGuesses(refused, allowed)}, not in the allow-list (${allowed.join(", ")})`);
        agentScopes = [...new Set(list)];
      }
    }
    if (name) seenNames.add(name.toLowerCase());
    if (userName) seenUsers.add(userName.toLowerCase());
    if (name && AGENT_NAME.test(name) && identityName && !identityProblem && userName && !userProblem) {
      agents.push({ name, identityName, userName, userPrincipalName: `${userName}@${userDomain}`, scopes: agentScopes });
    }
  });
  return agents.length === items.length ? agents : undefined;
}

const placeholder = (value: string) => `is the placeholder ${value} of the example stack file, never a real id; set yours`;

function guid(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  if (value === undefined) return undefined;
  if (isPlaceholderGuid(value)) {
    fail(key, placeholder(value));
    return undefined;
  }
  if (!isGuid(value)) {
    fail(key, `must be an object id or app id (a GUID), got ${quoteValue(value)}`);
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
  const dummy = values.find((value) => isPlaceholderGuid(value));
  if (dummy) {
    fail(key, placeholder(dummy));
    return undefined;
  }
  const bad = values.filter((value) => !isGuid(value));
  if (bad.length > 0) {
    fail(key, `must hold user object ids (GUIDs), not ${bad.map((b) => quoteValue(b)).join(", ")}; a UPN is not accepted`);
    return undefined;
  }
  const unique = [...new Set(values.map((value) => value.toLowerCase()))];
  if (unique.length > LIMITS.sponsors) {
    fail(key, `lists ${unique.length} sponsors; Entra allows at most ${LIMITS.sponsors}`);
    return undefined;
  }
  return unique;
}

/** Refused scope names, each with the allowed one it most likely misspells: `User.Reed (did you mean User.Read?)`. */
function namedWithGuesses(refused: readonly string[], allowed: readonly string[]): string {
  return refused
    .map((scope) => {
      const guess = didYouMean(scope, allowed);
      return guess ? `${scope} (did you mean ${guess}?)` : scope;
    })
    .join(", ");
}

function scopeList(raw: RawConfig, allowed: readonly string[], fail: Fail): string[] {
  const values = list(raw, "scopes", fail) ?? [...DEFAULT_SCOPES];
  if (values.length === 0) {
    fail("scopes", "needs at least one delegated scope");
    return values;
  }
  const malformed = values.filter((value) => !SCOPE.test(value));
  if (malformed.length > 0) fail("scopes", `holds malformed scope names: ${malformed.map((m) => quoteValue(m)).join(", ")}`);
  const refused = values.filter((value) => SCOPE.test(value) && !allowed.includes(value));
  if (refused.length > 0) {
    fail("scopes", `holds ${namedWithGuesses(refused, allowed)}, not in the allow-list (${allowed.join(", ")}); add them to ${CONFIG_NAMESPACE}:allowedScopes only if the agent user must have them`);
  }
  return [...new Set(values)];
}

function credentialConfig(raw: RawConfig, now: Date, fail: Fail): CredentialConfig | undefined {
  const mode = text(raw, "credential", fail) ?? "secret";
  if (!(CREDENTIAL_MODES as readonly string[]).includes(mode)) {
    fail("credential", `must be one of ${CREDENTIAL_MODES.join(", ")}, got ${quoteValue(mode)}`);
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
    fail(key, `must be an RFC 3339 date such as 2027-01-31T00:00:00Z, got ${quoteValue(value)}`);
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
  const problem = baseUrlProblem(value);
  if (problem) {
    fail(key, problem);
    return fallback;
  }
  return baseUrlOf(value);
}

function audience(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  const problem = value === undefined ? undefined : tokenExchangeAudienceProblem(value);
  if (problem) fail(key, `${problem}, got ${quoteValue(value)}`);
  return problem ? undefined : value;
}

function integer(raw: RawConfig, key: ConfigKey, fallback: number, min: number, max: number, fail: Fail): number {
  const value = text(raw, key, fail);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    fail(key, `must be a whole number from ${min} to ${max}, got ${quoteValue(value)}`);
    return fallback;
  }
  return number;
}
