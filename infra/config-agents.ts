import { quoteValue } from "../lib/printable";
import { displayNameProblem, isGuid, upnLocalPartProblem } from "../lib/entra-rules";
import type { AppRoleOutputs } from "../lib/stack-outputs";
import { isObject } from "../lib/json-value";
import { didYouMean } from "../lib/did-you-mean";
import { DEFAULT_SCOPES } from "./scope-policy";
import { CONFIG_NAMESPACE, fieldName, named, quoted, type AgentSpec, type ConfigKey, type Fail, type RawConfig } from "./config-keys";
import { displayName, isSet, list, upnLocalPart } from "./config-values";

/** The agents of a stack: the one-agent keys or the `agents` list, and the scopes they are granted. */

/** A validated agent. */
export interface AgentConfig {
  name: string;
  identityName: string;
  userName: string;
  /** `userName@userDomain`. */
  userPrincipalName: string;
  scopes: string[];
  /** The app roles its identity holds, by resource appId; empty for none. */
  appRoles: AppRoleOutputs[];
  /** The delegated scopes its identity may use for any person; empty for none. */
  onBehalfOfScopes: string[];
}

const AGENT_FIELDS = ["name", "identityName", "userName", "scopes", "appRoles", "onBehalfOfScopes"];

/** An app role value, as Graph's appRole.value: letters, digits and . _ - (no spaces). */
const ROLE = /^[A-Za-z0-9._-]+$/;

/**
 * An agent's `appRoles`, normalized (resource appIds lower-cased, entries of
 * one resource merged, roles unique), or the problem with it, the value at
 * fault shown by `quote`. One rule for the validator and for a component's
 * layout, which names a resource per role.
 */
export function appRoleList(value: unknown, quote: (value: unknown) => string = quoteValue): { appRoles: AppRoleOutputs[] } | { problem: string } {
  if (value === undefined) return { appRoles: [] };
  const form = "must be a list of { resource, roles }: resource the API's appId (a GUID), roles its app role values";
  if (!Array.isArray(value)) return { problem: form };
  const byResource = new Map<string, string[]>();
  for (const entry of value) {
    if (!isObject(entry) || !isGuid(entry.resource) || !Array.isArray(entry.roles) || entry.roles.length === 0) return { problem: form };
    const bad = entry.roles.find((role) => typeof role !== "string" || !ROLE.test(role));
    if (bad !== undefined) return { problem: `holds the role ${quote(bad)}: an app role value is letters, digits and . _ -` };
    const resource = entry.resource.toLowerCase();
    byResource.set(resource, [...new Set([...(byResource.get(resource) ?? []), ...(entry.roles as string[])])]);
  }
  return { appRoles: [...byResource].map(([resource, roles]) => ({ resource, roles })) };
}

const SCOPE = /^[A-Za-z0-9._-]+$/;

/** The single-agent keys: one agent, whose resources keep their pre-fleet names. */
export function shorthandAgent(raw: RawConfig, userDomain: string | undefined, scopes: string[], fail: Fail): AgentConfig[] | undefined {
  const identityName = displayName(raw, "agentIdentityName", fail);
  const userName = upnLocalPart(raw, fail);
  if (identityName === undefined || userName === undefined) return undefined;
  return [{ name: userName, identityName, userName, userPrincipalName: `${userName}@${userDomain}`, scopes, appRoles: [], onBehalfOfScopes: [] }];
}

/** Pulumi.yaml's default for `agents` is [], which means the one-agent shorthand. */
export function hasAgents(raw: RawConfig): boolean {
  const value = raw.agents;
  if (value === undefined) return false;
  if (typeof value === "string") return !/^\s*(\[\s*\])?\s*$/.test(value);
  return !(Array.isArray(value) && value.length === 0);
}

/** An agent's name names its resources and its `--agent`: letters, digits and dashes. */
const AGENT_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})$/;

/** The `agents` list: every agent checked, every problem naming the agent and its field. */
export function agentList(raw: RawConfig, userDomain: string | undefined, scopes: string[], allowed: readonly string[], fail: Fail): AgentConfig[] | undefined {
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
  const shown = scopeNames(fail, "agents");
  const seenNames = new Set<string>();
  const seenUsers = new Set<string>();
  items.forEach((item: unknown, index) => {
    const at = (field: string, message: string) => fail("agents", `[${index}]${typeof (item as AgentSpec)?.name === "string" ? ` (${quoted(fail, "agents", (item as AgentSpec).name)})` : ""}.${field} ${message}`);
    if (!isObject(item)) {
      fail("agents", `[${index}] must be an object { name, identityName?, userName, scopes? }`);
      return;
    }
    const spec = item as Record<string, unknown>;
    for (const key of Object.keys(spec)) if (!AGENT_FIELDS.includes(key)) at(fieldName(key), `is not an agent field (${AGENT_FIELDS.join(", ")})`);
    const name = typeof spec.name === "string" ? spec.name.trim() : undefined;
    if (!name || !AGENT_NAME.test(name)) at("name", `is required: 1 to 63 letters, digits and dashes (got ${quoted(fail, "agents", spec.name)})`);
    else if (seenNames.has(name.toLowerCase())) at("name", "is used by another agent");
    const identityName = spec.identityName === undefined ? name : typeof spec.identityName === "string" ? spec.identityName.trim() : undefined;
    const identityProblem = identityName === undefined || identityName === "" ? "must be a non-empty string" : displayNameProblem(identityName);
    if (spec.identityName !== undefined && identityProblem) at("identityName", identityProblem);
    const userName = typeof spec.userName === "string" ? spec.userName.trim() : undefined;
    const userProblem = !userName ? "is required: the agent user's mail nickname" : upnLocalPartProblem(userName, (v) => quoted(fail, "agents", v));
    if (userProblem) at("userName", userProblem);
    else if (seenUsers.has(userName!.toLowerCase())) at("userName", "is used by another agent (one agent user per agent identity)");
    const agentScopes = spec.scopes === undefined ? scopes : (allowedList(spec.scopes, allowed, shown, (message) => at("scopes", message)) ?? scopes);
    const roles = appRoleList(spec.appRoles, (v) => quoted(fail, "agents", v));
    if ("problem" in roles) at("appRoles", roles.problem);
    const oboScopes = spec.onBehalfOfScopes === undefined ? [] : allowedList(spec.onBehalfOfScopes, allowed, shown, (message) => at("onBehalfOfScopes", message));
    if (name) seenNames.add(name.toLowerCase());
    if (userName) seenUsers.add(userName.toLowerCase());
    if (name && AGENT_NAME.test(name) && identityName && !identityProblem && userName && !userProblem && "appRoles" in roles && oboScopes) {
      agents.push({ name, identityName, userName, userPrincipalName: `${userName}@${userDomain}`, scopes: agentScopes, appRoles: roles.appRoles, onBehalfOfScopes: oboScopes });
    }
  });
  return agents.length === items.length ? agents : undefined;
}


/** A non-empty list of scope names, each in the allow-list; undefined (with the problem reported) otherwise. */
function allowedList(value: unknown, allowed: readonly string[], shown: ScopeNames, fail: (message: string) => void): string[] | undefined {
  const list = Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]).map((v) => v.trim()).filter(Boolean) : undefined;
  if (!list || list.length === 0) {
    fail("must be a non-empty list of scope names");
    return undefined;
  }
  const refused = list.filter((v) => !SCOPE.test(v) || !allowed.includes(v));
  if (refused.length > 0) {
    fail(`holds ${shown(refused, allowed)}, not in the allow-list (${allowed.join(", ")})`);
    return undefined;
  }
  return [...new Set(list)];
}

/** How a problem with `key` lists refused scope names. */
type ScopeNames = (refused: readonly string[], allowed: readonly string[]) => string;

/**
 * Refused scope names, each printable with the allowed one it most likely
 * misspells: `User.Reed (did you mean User.Read?)`. A guess would tell of a
 * secret value: a secret's names are shown as SECRET_VALUE, with no guess.
 */
function scopeNames(fail: Fail, key: ConfigKey): ScopeNames {
  return (refused, allowed) =>
    refused
      .map((scope) => {
        const guess = fail.secret(key) ? undefined : didYouMean(scope, allowed);
        const name = named(fail, key, scope);
        return guess ? `${name} (did you mean ${guess}?)` : name;
      })
      .join(", ");
}

export function scopeList(raw: RawConfig, allowed: readonly string[], fail: Fail): string[] {
  const values = list(raw, "scopes", fail) ?? [...DEFAULT_SCOPES];
  if (values.length === 0) {
    fail("scopes", "needs at least one delegated scope");
    return values;
  }
  const malformed = values.filter((value) => !SCOPE.test(value));
  if (malformed.length > 0) fail("scopes", `holds malformed scope names: ${malformed.map((m) => quoted(fail, "scopes", m)).join(", ")}`);
  const refused = values.filter((value) => SCOPE.test(value) && !allowed.includes(value));
  if (refused.length > 0) {
    fail("scopes", `holds ${scopeNames(fail, "scopes")(refused, allowed)}, not in the allow-list (${allowed.join(", ")}); add them to ${CONFIG_NAMESPACE}:allowedScopes only if the agent user must have them`);
  }
  return [...new Set(values)];
}

