import { isObject, ownProperties } from "./json-value";
import type { AgentUserTokenProviderOptions } from "./provider-options";
import { resolveConnection, type ConnectionSettings, type InputNames } from "./settings";
import { parseStackOutputs, selectAgent } from "./stack-outputs";

/*
 * Where AgentUserTokenProvider.fromStackOutputs and .fromEnvironment find
 * their options: the same readers the `agent-user` command uses, with errors
 * that name the variables or the outputs keys read, never the CLI's flags.
 */

const ENVIRONMENT_NAMES: InputNames = {
  flags: false,
  env: true,
  missingHint: "set these AGENT_USER_* variables, or build it from `pulumi stack output --json --show-secrets` with fromStackOutputs()",
};
const STACK_OUTPUT_NAMES: InputNames = { flags: false, env: false, outputs: "the stack outputs", missingHint: "pass the parsed JSON of `pulumi stack output --json --show-secrets`" };

/** The options the parsed JSON of `pulumi stack output --json --show-secrets` gives, for the agent named (the only or first one when absent). */
export function optionsFromStackOutputs(outputs: unknown, agent: string | undefined): AgentUserTokenProviderOptions {
  const source = "stack outputs";
  const selected = selectAgent(parseStackOutputs(outputs, source), agent, source, { pick: "the agent override ({ agent: NAME })", name: "the agent override" });
  return optionsOf(resolveConnection({}, {}, selected, process.cwd(), false, STACK_OUTPUT_NAMES));
}

/** The options the AGENT_USER_* environment variables give. */
export function optionsFromEnvironment(env: NodeJS.ProcessEnv): AgentUserTokenProviderOptions {
  return optionsOf(resolveConnection({}, env, {}, process.cwd(), false, ENVIRONMENT_NAMES));
}

/**
 * The options read, then the caller's overrides over them. An override's
 * deprecated replicationWindowMs replaces the window read, as
 * consistencyWindowMs would: it is the same option under its old name.
 */
export function withOverrides(read: AgentUserTokenProviderOptions, overrides: Partial<AgentUserTokenProviderOptions> | undefined): AgentUserTokenProviderOptions {
  const given = isObject(overrides) ? (ownProperties(overrides) as Partial<AgentUserTokenProviderOptions>) : {};
  const { consistencyWindowMs, ...rest } = read;
  return Object.hasOwn(given, "replicationWindowMs") ? { ...rest, ...given } : { ...rest, consistencyWindowMs, ...given };
}

/** Resolved connection settings as the provider's options. */
export function optionsOf(settings: ConnectionSettings): AgentUserTokenProviderOptions {
  return {
    tenantId: settings.tenantId,
    blueprintAppId: settings.blueprintAppId,
    credential: settings.credential,
    authorityUrl: settings.authorityUrl,
    agentIdentityId: settings.agentIdentityId,
    agentUser: settings.agentUser,
    resource: settings.resourceUrl,
    timeoutMs: settings.timeoutMs,
    consistencyWindowMs: settings.consistencyWindowMs,
    tokenExchangeAudience: settings.tokenExchangeAudience,
  };
}
