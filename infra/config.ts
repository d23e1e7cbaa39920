import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD, tokenExchangeAudience } from "../lib/entra-rules";
import { UsageError } from "../lib/errors";
import { DEFAULT_CONSISTENCY_WINDOW_MS, MAX_CONSISTENCY_WINDOW_MS } from "./providers/inputs";
import { ALLOWED_SCOPES } from "./scope-policy";
import { agentList, hasAgents, scopeList, shorthandAgent, type AgentConfig } from "./config-agents";
import { credentialConfig, type CredentialConfig } from "./config-credential";
import { CONFIG_NAMESPACE, named, quoted, type ConfigKey, type Fail, type RawConfig } from "./config-keys";
import { audience, displayName, domain, guid, guidList, integer, list, text, url } from "./config-values";
import { isGuid, scopeValueProblem } from "../lib/entra-rules";

export { CONFIG_KEYS, CONFIG_NAMESPACE, SECRET_VALUE, type AgentSpec, type ConfigKey, type RawConfig } from "./config-keys";
export type { AgentConfig } from "./config-agents";
export { CREDENTIAL_MODES, type CredentialConfig, type CredentialMode } from "./config-credential";


/** How long a dependent create waits for its parent object to replicate. */
export const DEFAULT_CONSISTENCY_WINDOW_SECONDS = DEFAULT_CONSISTENCY_WINDOW_MS / 1000;


/** Validated configuration: every value here has passed validateConfig. */
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
  /**
   * Opt-in: the API the blueprint exposes for the on-behalf-of flow, its
   * scope (a person's token for the agent asks for `api://{appId}/{scope}`)
   * and the client apps pre-authorized for it; absent when off.
   */
  onBehalfOf?: { scope: string; clients: string[] };
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


/**
 * Checks every key and returns the typed configuration, or throws one
 * ConfigError that lists every problem (each naming its key). Pure: `now`
 * only dates the expiry checks. A problem with one of `secretKeys` (whose
 * values are Pulumi secrets) shows nothing of the value.
 */
export function validateConfig(raw: RawConfig, now: Date = new Date(), source: ConfigSource = STACK_CONFIG, secretKeys: readonly ConfigKey[] = []): KitConfig {
  const problems: ConfigProblem[] = [];
  const fail: Fail = Object.assign((key: ConfigKey, message: string) => void problems.push({ key, message }), { secret: (key: ConfigKey) => secretKeys.includes(key) });

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
  const onBehalfOf = onBehalfOfConfig(raw, agents, fail);

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
    ...(onBehalfOf ? { onBehalfOf } : {}),
  };
}

/**
 * The blueprint's exposed API for the on-behalf-of flow: `onBehalfOfScope`
 * turns it on; an agent's `onBehalfOfScopes` (its consent to act for people)
 * needs it, since no person's token could name the blueprint without it.
 */
function onBehalfOfConfig(raw: RawConfig, agents: readonly AgentConfig[] | undefined, fail: Fail): KitConfig["onBehalfOf"] {
  const scope = text(raw, "onBehalfOfScope", fail);
  const problem = scope === undefined ? undefined : scopeValueProblem(scope);
  if (problem) fail("onBehalfOfScope", `${problem}: one scope name such as access_agent, got ${quoted(fail, "onBehalfOfScope", scope)}`);
  const clients = list(raw, "onBehalfOfClients", fail) ?? [];
  const bad = clients.filter((c) => !isGuid(c));
  if (bad.length > 0) fail("onBehalfOfClients", `must hold client application appIds (GUIDs), not ${bad.map((b) => quoted(fail, "onBehalfOfClients", b)).join(", ")}`);
  if (scope === undefined) {
    if (clients.length > 0) fail("onBehalfOfClients", "pre-authorizes clients for the blueprint's exposed scope: set onBehalfOfScope too");
    const consenting = (agents ?? []).filter((a) => a.onBehalfOfScopes.length > 0).map((a) => named(fail, "agents", a.name));
    if (consenting.length > 0) fail("agents", `${consenting.join(", ")} ${consenting.length === 1 ? "gives" : "give"} onBehalfOfScopes, which need the blueprint's exposed API: set onBehalfOfScope (e.g. access_agent)`);
    return undefined;
  }
  return { scope, clients: [...new Set(clients.map((c) => c.toLowerCase()))] };
}

