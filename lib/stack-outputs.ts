import { listed, quoteValue } from "./printable";
import { UsageError } from "./errors";
import { isObject, jsonKind, ownProperties } from "./json-value";

/**
 * The stack outputs of infra/, which are also what `agent-user token --outputs`
 * reads and what the emulator writes for its seeded tenant: one list of names.
 */
export interface StackOutputs {
  tenantId: string;
  authorityUrl: string;
  graphUrl: string;
  resourceUrl: string;
  /** Hop 1's audience and the blueprint's federated credential's; the authority's cloud's when absent. */
  tokenExchangeAudience?: string;
  blueprintAppId?: string;
  blueprintObjectId?: string;
  blueprintPrincipalId?: string;
  /** Only in `secret` credential mode; a Pulumi secret. */
  blueprintClientSecret?: string;
  /** Only in `managedIdentity` credential mode. */
  managedIdentityClientId?: string;
  agentIdentityId?: string;
  agentUserId?: string;
  agentUserPrincipalName?: string;
  grantId?: string;
  grantScopes?: string;
  /** Only with the on-behalf-of exposure: the blueprint's identifier URI, the audience a user's token for the agent names. */
  blueprintIdentifierUri?: string;
  /** Only with the on-behalf-of exposure: the scope the blueprint exposes (a user's token for the agent asks for `{blueprintIdentifierUri}/{it}`). */
  blueprintScope?: string;
  /** The app roles the (first) agent identity holds, per resource; absent when it holds none. */
  appRoles?: AppRoleOutputs[];
  /** The delegated consent of the (first) agent identity for any user on the resource: its grant id and scopes. */
  onBehalfOfGrantId?: string;
  onBehalfOfScopes?: string;
  /** A fleet stack's agents by name; the top-level agent keys describe the first of them. */
  agents?: Record<string, FleetAgentOutputs>;
}

/** The app roles an agent identity holds on one resource API. */
export interface AppRoleOutputs {
  /** The resource API's appId, e.g. Microsoft Graph's 00000003-0000-0000-c000-000000000000. */
  resource: string;
  /** The app role values, e.g. ["User.Read.All"]. */
  roles: string[];
}

/** One agent of a fleet stack: a value of the `agents` output. */
export interface FleetAgentOutputs {
  agentIdentityId: string;
  agentUserId: string;
  agentUserPrincipalName: string;
  grantId?: string;
  grantScopes?: string;
  appRoles?: AppRoleOutputs[];
  onBehalfOfGrantId?: string;
  onBehalfOfScopes?: string;
}

export const FLEET_AGENT_KEYS = ["agentIdentityId", "agentUserId", "agentUserPrincipalName", "grantId", "grantScopes", "onBehalfOfGrantId", "onBehalfOfScopes"] as const satisfies ReadonlyArray<
  keyof FleetAgentOutputs
>;

export const STACK_OUTPUT_KEYS = [
  "tenantId",
  "authorityUrl",
  "graphUrl",
  "resourceUrl",
  "tokenExchangeAudience",
  "blueprintAppId",
  "blueprintObjectId",
  "blueprintPrincipalId",
  "blueprintClientSecret",
  "managedIdentityClientId",
  "agentIdentityId",
  "agentUserId",
  "agentUserPrincipalName",
  "grantId",
  "grantScopes",
  "blueprintIdentifierUri",
  "blueprintScope",
  "onBehalfOfGrantId",
  "onBehalfOfScopes",
] as const satisfies ReadonlyArray<keyof StackOutputs>;

/** The outputs only a stack with an opt-in feature has: on-behalf-of's exposed API and consent (`appRoles` is structured, and apart). */
export const OPT_IN_OUTPUT_KEYS = ["blueprintIdentifierUri", "blueprintScope", "onBehalfOfGrantId", "onBehalfOfScopes"] as const satisfies ReadonlyArray<(typeof STACK_OUTPUT_KEYS)[number]>;

const PULUMI_HINT = "write the file with `pulumi stack output --json --show-secrets`";

function stringField(value: unknown, where: string, source: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "[secret]") throw new UsageError(`${source}: ${where} is "[secret]"`, PULUMI_HINT);
  // Never quote the value: it may be the blueprint secret.
  if (typeof value !== "string") throw new UsageError(`${source}: ${where} is ${jsonKind(value)}, not a string`, PULUMI_HINT);
  return value;
}

/** An `appRoles` output: a list of `{ resource, roles }`, checked for its shape. */
function appRolesField(value: unknown, where: string, source: string): AppRoleOutputs[] | undefined {
  if (value === undefined || value === null) return undefined;
  const entries = Array.isArray(value) ? value : undefined;
  const valid = entries?.every((e: unknown) => isObject(e) && typeof e.resource === "string" && Array.isArray(e.roles) && e.roles.every((r) => typeof r === "string"));
  if (!entries || !valid) throw new UsageError(`${source}: ${where} is not a list of { resource, roles }`, PULUMI_HINT);
  return (entries as AppRoleOutputs[]).map((e) => ({ resource: e.resource, roles: [...e.roles] }));
}

/**
 * Checks parsed stack outputs (the JSON of `pulumi stack output --json
 * --show-secrets`, or the emulator's `--outputs` file) key by key. `source`
 * names where they came from in errors, e.g. "--outputs outputs.json".
 */
export function parseStackOutputs(given: unknown, source: string): Partial<StackOutputs> {
  if (!isObject(given)) throw new UsageError(`${source} is not a JSON object of stack outputs`, PULUMI_HINT);
  // Own keys only, and no prototype on what is returned: a key missing from the file is missing, whatever
  // other code put on Object.prototype.
  const json = ownProperties(given);
  const out: Partial<Record<string, unknown>> = Object.create(null) as Partial<Record<string, unknown>>;
  for (const key of STACK_OUTPUT_KEYS) {
    const value = stringField(json[key], key, source);
    if (value !== undefined) out[key] = value;
  }
  const appRoles = appRolesField(json.appRoles, "appRoles", source);
  if (appRoles !== undefined) out.appRoles = appRoles;
  if (json.agents !== undefined && json.agents !== null) {
    if (!isObject(json.agents)) throw new UsageError(`${source}: agents is not a map from agent name to its outputs`, PULUMI_HINT);
    // No prototype: an agent named "__proto__" (an own key of the parsed JSON) is stored as one, not made the map's prototype.
    const agents: Record<string, FleetAgentOutputs> = Object.create(null) as Record<string, FleetAgentOutputs>;
    for (const [name, given] of Object.entries(json.agents)) {
      if (!isObject(given)) throw new UsageError(`${source}: agents.${name} is not an object`, PULUMI_HINT);
      const entry = ownProperties(given);
      const agent: Partial<Record<string, string>> = Object.create(null) as Partial<Record<string, string>>;
      for (const key of FLEET_AGENT_KEYS) {
        const value = stringField(entry[key], `agents.${name}.${key}`, source);
        if (value !== undefined) agent[key] = value;
      }
      const roles = appRolesField(entry.appRoles, `agents.${name}.appRoles`, source);
      if (roles !== undefined) (agent as Partial<Record<string, unknown>>).appRoles = roles;
      for (const key of ["agentIdentityId", "agentUserId", "agentUserPrincipalName"] as const) {
        if (!agent[key]) throw new UsageError(`${source}: agents.${name}.${key} is missing`, PULUMI_HINT);
      }
      agents[name] = agent as unknown as FleetAgentOutputs;
    }
    out.agents = agents;
  }
  return out as Partial<StackOutputs>;
}

/** The agent names of a fleet's outputs, in the stack's order; empty for a one-agent stack. */
export function agentNames(outputs: Partial<StackOutputs>): string[] {
  return Object.keys(outputs.agents ?? {});
}

/** How errors name the option that picks an agent of a fleet: the library's `agent` override unless a caller (the CLI) says otherwise. */
export interface AgentOptionNames {
  pick: string;
  name: string;
}

const AGENT_OVERRIDE: AgentOptionNames = { pick: "the agent override ({ agent: NAME })", name: "the agent override" };

/**
 * The outputs seen from one agent: its `agents` entry over the top-level keys.
 * With several agents and no name, or an unknown name, a usage error lists the names.
 */
export function selectAgent(outputs: Partial<StackOutputs>, name: string | undefined, source: string, option: AgentOptionNames = AGENT_OVERRIDE): Partial<StackOutputs> {
  const names = agentNames(outputs);
  const { agents, ...base } = outputs;
  if (name === undefined) {
    if (names.length > 1) throw new UsageError(`${source} describes ${names.length} agents; pick one with ${option.pick}`, `agents: ${listedNames(names)}`);
    return names.length === 1 ? ownProperties({ ...base, ...agents![names[0]!] }) : base;
  }
  // Without an agents map the outputs are a one-agent fleet, and the name `token --all` shows for it selects it.
  if (agents === undefined && name === oneAgentName(base)) return base;
  // An own key only: `constructor`, `toString` or `__proto__` must not find Object.prototype's members.
  const agent = agents !== undefined && Object.hasOwn(agents, name) ? agents[name] : undefined;
  if (!agent) {
    throw new UsageError(
      `${source} has no agent named ${quoteValue(name)}`,
      names.length > 0 ? `agents: ${listedNames(names)}` : `this stack has no agents map; leave ${option.name} out`,
    );
  }
  // A fleet agent's grant and app role fields are its own: never let the first agent's show through.
  return ownProperties({ ...base, grantId: undefined, grantScopes: undefined, appRoles: undefined, onBehalfOfGrantId: undefined, onBehalfOfScopes: undefined, ...agent });
}

/** One agent `token --all` mints for: its name in the outputs and the ids its token is asked for. */
export interface FleetAgent {
  name: string;
  agentIdentityId: string;
  /** The agent user's object id, or its UPN when the outputs have no id. */
  agentUser: string;
  /** The app roles the outputs say its identity holds. */
  appRoles?: AppRoleOutputs[];
}

/**
 * Every agent of the outputs, in the stack's order. Outputs without an
 * `agents` map are a one-agent fleet (the top-level agent keys, named by the
 * UPN's local part), so one CI step checks any stack; an empty map is a usage error.
 */
export function fleetAgents(outputs: Partial<StackOutputs>, source: string): FleetAgent[] {
  if (outputs.agents !== undefined) {
    const agents = Object.entries(outputs.agents).map(([name, agent]) => ({ name, agentIdentityId: agent.agentIdentityId, agentUser: agent.agentUserId, appRoles: agent.appRoles }));
    if (agents.length === 0) throw new UsageError(`${source}: the agents map is empty; there is no agent to mint for`, PULUMI_HINT);
    return agents;
  }
  const { agentIdentityId, agentUserId, agentUserPrincipalName } = outputs;
  const agentUser = agentUserId ?? agentUserPrincipalName;
  if (!agentIdentityId || !agentUser) {
    throw new UsageError(`${source} names no agent: it has no "agents" map, and no top-level "agentIdentityId" with "agentUserId" or "agentUserPrincipalName"`, PULUMI_HINT);
  }
  return [{ name: oneAgentName(outputs)!, agentIdentityId, agentUser, appRoles: outputs.appRoles }];
}

/** The name of the one agent of outputs without an `agents` map: its UPN's local part, else its object id. */
function oneAgentName({ agentUserPrincipalName, agentUserId }: Partial<StackOutputs>): string | undefined {
  return agentUserPrincipalName?.split("@")[0] || agentUserId || agentUserPrincipalName;
}

/** How many agent names a hint lists before "and N more": a fleet of thousands is no hint. */
const LISTED_NAMES = 20;

/** The names a hint lists: the first LISTED_NAMES, escaped (they come from the file). */
const listedNames = (names: readonly string[]) => listed(names, LISTED_NAMES);
