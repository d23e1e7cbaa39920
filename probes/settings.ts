import { resolve } from "node:path";
import { UsageError } from "../lib/errors";
import { DEFAULT_TIMEOUT_MS } from "../lib/http";
import { ownProperties } from "../lib/json-value";
import { environmentPlace, OPTION_SOURCES, resolveConnection, stackOutputsPlace, type Given, type InputPlace, type ReadConnection, type SourcedInput } from "../lib/option-sources";
import { isTimerMs, MAX_TIMER_MS } from "../lib/option-checks";
import { quoteValue } from "../lib/printable";
import type { RetryHooks } from "../lib/retry";
import { fleetAgents, parseStackOutputs, selectAgent, type AgentOptionNames, type FleetAgent, type StackOutputs } from "../lib/stack-outputs";
import { AgentUserTokenProvider } from "../lib/token-provider";
import { readJsonFile } from "../lib/user-files";
import { CONNECTION_INPUTS, type ConnectionFlag, type ConnectionFlags } from "./connection-flags";

/*
 * Where the commands' connection comes from, highest first: flags, AGENT_USER_*
 * environment variables, then the `--outputs` file that `pulumi stack output
 * --json --show-secrets` prints. The flags are mapped onto the library's
 * inputs and resolved with its variables and outputs keys (lib/option-sources.ts),
 * so every value is checked by the provider's own rules, named by its flag,
 * its variable or its outputs key.
 */

/**
 * Connection settings whose agent identity and agent user may be left to each
 * request (a provider for a fleet): the provider's options, as checked, with
 * what only the CLI reads besides.
 */
export type ConnectionSettings = ReadConnection["options"] & {
  /** --timeout, or the library's default: Graph reads take it too. */
  timeoutMs: number;
  graphUrl: string;
  /** Where each input came from (flag, environment variable, --outputs key, default), never a value. */
  sources: Record<string, string>;
};

/** The settings of a command that mints for one agent. */
export type ProbeSettings = ConnectionSettings & { agentIdentityId: string; agentUser: string };

/** What a first run without --outputs is pointed at. */
const OUTPUTS_HINT =
  "after `pulumi up`, `pulumi stack output --json --show-secrets > outputs.json` writes every one of these; pass --outputs outputs.json (or try it on the emulator: `agent-user emulator --outputs outputs.json`)";

/** How errors name the flag that picks an agent of a fleet's --outputs file. */
export const AGENT_FLAG: AgentOptionNames = { pick: "--agent NAME", name: "--agent" };

/** The --outputs file, parsed and checked key by key; every agent of a fleet's map is kept (token --all, doctor --all). */
export function readOutputsFile(path: string, cwd: string): Partial<StackOutputs> {
  const json = readJsonFile(`--outputs ${path}`, resolve(cwd, path), {
    hint: "write the file with `pulumi stack output --json --show-secrets`",
    missingHint: `write it after \`pulumi up\` with \`pulumi stack output --json --show-secrets > ${path}\``,
  });
  return parseStackOutputs(json, `--outputs ${path}`);
}

/** A flag's value in seconds, as milliseconds, held to the library's rule for a timer; undefined when the flag is absent. */
export function seconds(name: string, value: string | undefined, allowZero = true): number | undefined {
  if (value === undefined) return undefined;
  const ms = value.trim() === "" ? NaN : Number(value) * 1000;
  if (!isTimerMs(ms, allowZero)) {
    throw new UsageError(`${name} must be a number of seconds, got ${quoteValue(value)}`, `give ${allowZero ? "0" : "more than 0"} to ${MAX_TIMER_MS / 1000}`);
  }
  return ms;
}

/** --timeout, or the library's default. */
export function timeoutOf(value: string | undefined): number {
  return seconds("--timeout", value, false) ?? DEFAULT_TIMEOUT_MS;
}

/** --consistency-window, or its deprecated spelling --replication-window; both at once is refused, since one would silently win. */
function consistencyWindow(flags: ConnectionFlags): number | undefined {
  const given = flags["consistency-window"];
  const deprecated = flags["replication-window"];
  if (given !== undefined && deprecated !== undefined) {
    throw new UsageError("--consistency-window and --replication-window were both given", "give --consistency-window only: --replication-window is its deprecated spelling");
  }
  return deprecated !== undefined ? seconds("--replication-window", deprecated) : seconds("--consistency-window", given);
}

/** The flag that sets each library input. */
const FLAG_OF = Object.fromEntries(
  Object.entries(CONNECTION_INPUTS).flatMap(([flag, option]) => ("input" in option ? [[option.input, flag]] : [])),
) as Record<SourcedInput, ConnectionFlag>;

/** The flags as a place the library's resolution reads first; an empty credential flag counts as absent, as an empty variable does. */
function flagPlace(flags: ConnectionFlags): InputPlace {
  const flag = (name: ConnectionFlag): Given | undefined => (flags[name] !== undefined ? { value: flags[name], source: `--${name}`, name: `--${name}` } : undefined);
  const part = (name: ConnectionFlag): Given | undefined => (flags[name] ? flag(name) : undefined);
  return {
    get: (input) => flag(FLAG_OF[input]),
    place: (input) => `--${FLAG_OF[input]}`,
    credential: {
      secretFile: part("blueprint-secret-file"),
      certFile: part("blueprint-cert"),
      keyFile: part("blueprint-key"),
      miClientId: part("managed-identity-client-id"),
      miTokenFile: part("managed-identity-token-file"),
    },
    credentialChoices: { certificate: "--blueprint-cert and --blueprint-key", managedIdentity: "--managed-identity-client-id" },
  };
}

/** Flags, variables and outputs (already narrowed to one agent) resolved into the settings of a command. */
function resolveFlags(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, agentRequired: boolean | "identity"): ConnectionSettings {
  const places = [flagPlace(flags), environmentPlace(env), stackOutputsPlace(outputs, "--outputs")];
  const { options, graphUrl, sources } = resolveConnection(places, cwd, { agentRequired, missingHint: flags.outputs === undefined ? OUTPUTS_HINT : undefined });
  return { ...options, timeoutMs: timeoutOf(flags.timeout), consistencyWindowMs: consistencyWindow(flags), graphUrl, sources };
}

/** Resolves and validates every input; throws UsageError naming every missing one, or each bad one. */
export function resolveSettings(flags: ConnectionFlags, env: NodeJS.ProcessEnv, cwd: string): ProbeSettings {
  return resolveAgentSettings(flags, env, cwd).settings;
}

/**
 * As resolveSettings, with the outputs (narrowed to the one agent) the
 * settings were resolved from, so the file is read once. `identityOnly`: a
 * flow that acts as the agent identity itself needs no agent user.
 */
export function resolveAgentSettings(givenFlags: ConnectionFlags, env: NodeJS.ProcessEnv, cwd: string, identityOnly = false): { settings: ProbeSettings; outputs: Partial<StackOutputs> } {
  const flags = ownProperties(givenFlags);
  if (flags.agent !== undefined && flags.outputs === undefined) throw new UsageError("--agent picks an agent of a fleet's --outputs file; give --outputs too");
  const outputs = flags.outputs !== undefined ? selectAgent(readOutputsFile(flags.outputs, cwd), flags.agent, `--outputs ${flags.outputs}`, AGENT_FLAG) : {};
  return { settings: resolveFlags(flags, env, outputs, cwd, identityOnly ? "identity" : true) as ProbeSettings, outputs };
}

/**
 * `token --all`: the connection every agent shares (flags, environment, the
 * file's top-level keys) and the agents of the --outputs file. Each agent's
 * ids come from the file alone, so the agent flags are refused and the
 * agent's variables are not read.
 */
export function resolveFleetSettings(
  givenFlags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { settings: ConnectionSettings; agents: FleetAgent[]; outputs: Partial<StackOutputs> } {
  const flags = ownProperties(givenFlags);
  if (flags.outputs === undefined) throw new UsageError("--all mints for every agent of an --outputs file; give --outputs too");
  for (const flag of ["agent", "agent-identity", "agent-user"] as const) {
    if (flags[flag] !== undefined) throw new UsageError(`--all mints for every agent of --outputs ${flags.outputs}; leave out --${flag}`, "to mint for one agent, drop --all and name it with --agent NAME");
  }
  const outputs = readOutputsFile(flags.outputs, cwd);
  const agents = fleetAgents(outputs, `--outputs ${flags.outputs}`);
  const shared = { ...outputs, agents: undefined, agentIdentityId: undefined, agentUserId: undefined, agentUserPrincipalName: undefined };
  const sharedEnv = { ...env, [OPTION_SOURCES.agentIdentityId.env]: undefined, [OPTION_SOURCES.agentUser.env]: undefined };
  return { settings: resolveFlags(flags, sharedEnv, shared, cwd, false), agents, outputs };
}

/** The provider for settings a command resolved: its options, without the Graph URL and the sources only the CLI reads. */
export function providerFor({ graphUrl: _graphUrl, sources: _sources, ...options }: ConnectionSettings, hooks?: RetryHooks): AgentUserTokenProvider {
  return new AgentUserTokenProvider({ ...options, hooks });
}
