import { isObject, ownProperties } from "./json-value";
import { environmentPlace, resolveConnection, stackOutputsPlace } from "./option-sources";
import type { AgentUserTokenProviderOptions } from "./provider-options";
import { parseStackOutputs, selectAgent } from "./stack-outputs";

/*
 * Where AgentUserTokenProvider.fromStackOutputs and .fromEnvironment find
 * their options: the same resolution the `agent-user` command uses, with
 * errors that name the variables or the outputs keys read.
 */

const STACK_OUTPUTS = "the stack outputs";

/** The options the parsed JSON of `pulumi stack output --json --show-secrets` gives, for the agent named (the only or first one when absent). */
export function optionsFromStackOutputs(outputs: unknown, agent: string | undefined): AgentUserTokenProviderOptions {
  const source = "stack outputs";
  const selected = selectAgent(parseStackOutputs(outputs, source), agent, source);
  const missingHint = "pass the parsed JSON of `pulumi stack output --json --show-secrets`";
  return resolveConnection([stackOutputsPlace(selected, STACK_OUTPUTS)], process.cwd(), { agentRequired: false, missingHint }).options;
}

/** The options the AGENT_USER_* environment variables give. */
export function optionsFromEnvironment(env: NodeJS.ProcessEnv): AgentUserTokenProviderOptions {
  const missingHint = "set these AGENT_USER_* variables, or build it from `pulumi stack output --json --show-secrets` with fromStackOutputs()";
  return resolveConnection([environmentPlace(env)], process.cwd(), { agentRequired: false, missingHint }).options;
}

/** The options read, then the caller's overrides over them. */
export function withOverrides(read: AgentUserTokenProviderOptions, overrides: Partial<AgentUserTokenProviderOptions> | undefined): AgentUserTokenProviderOptions {
  const given = isObject(overrides) ? (ownProperties(overrides) as Partial<AgentUserTokenProviderOptions>) : {};
  return { ...read, ...given };
}
