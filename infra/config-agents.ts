import { quoteValue } from "../lib/printable";
import { displayNameProblem, upnLocalPartProblem } from "../lib/entra-rules";
import { isObject } from "../lib/json-value";
import { didYouMean } from "../lib/did-you-mean";
import { DEFAULT_SCOPES } from "./scope-policy";
import { CONFIG_NAMESPACE, type AgentSpec, type Fail, type RawConfig } from "./config-keys";
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
}

const SCOPE = /^[A-Za-z0-9._-]+$/;

/** The single-agent keys: one agent, whose resources keep their pre-fleet names. */
export function shorthandAgent(raw: RawConfig, userDomain: string | undefined, scopes: string[], fail: Fail): AgentConfig[] | undefined {
  const identityName = displayName(raw, "agentIdentityName", fail);
  const userName = upnLocalPart(raw, fail);
  if (identityName === undefined || userName === undefined) return undefined;
  return [{ name: userName, identityName, userName, userPrincipalName: `${userName}@${userDomain}`, scopes }];
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


/** Refused scope names, each with the allowed one it most likely misspells: `User.Reed (did you mean User.Read?)`. */
function namedWithGuesses(refused: readonly string[], allowed: readonly string[]): string {
  return refused
    .map((scope) => {
      const guess = didYouMean(scope, allowed);
      return guess ? `${scope} (did you mean ${guess}?)` : scope;
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
  if (malformed.length > 0) fail("scopes", `holds malformed scope names: ${malformed.map((m) => quoteValue(m)).join(", ")}`);
  const refused = values.filter((value) => SCOPE.test(value) && !allowed.includes(value));
  if (refused.length > 0) {
    fail("scopes", `holds ${namedWithGuesses(refused, allowed)}, not in the allow-list (${allowed.join(", ")}); add them to ${CONFIG_NAMESPACE}:allowedScopes only if the agent user must have them`);
  }
  return [...new Set(values)];
}

