import { resolve } from "node:path";
import { quoteValue } from "./printable";
import { loadCertificate } from "./client-assertion";
import { CONNECTION_INPUTS, DEFAULT_TIMEOUT_S, type ConnectionFlags, type ResolvedFlag } from "./connection-options";
import { UsageError } from "./errors";
import { MAX_TIMER_MS } from "./option-checks";
import { ownProperties } from "./json-value";
import { readJsonFile, readUserFile, USER_FILE_LIMITS } from "./user-files";
import { baseUrlProblem, isDomainName, isGuid, isUpn, PUBLIC_CLOUD, tokenExchangeAudienceProblem } from "./entra-rules";
import { assertSecureUrl } from "./urls";
import { fleetAgents, parseStackOutputs, selectAgent, type FleetAgent, type StackOutputs } from "./stack-outputs";
import { checkImdsEndpoint, type BlueprintCredential } from "./blueprint-credential";

/**
 * Where the probes' inputs come from, highest first: flags, AGENT_USER_*
 * environment variables, then the `--outputs` file that
 * `pulumi stack output --json --show-secrets` prints.
 */

export interface ProbeSettings {
  tenantId: string;
  authorityUrl: string;
  graphUrl: string;
  resourceUrl: string;
  /** Hop 1's audience when given; the authority's cloud's otherwise (entra-rules' tokenExchangeAudience). */
  tokenExchangeAudience?: string;
  blueprintAppId: string;
  credential: BlueprintCredential;
  agentIdentityId: string;
  agentUser: string;
  timeoutMs: number;
  consistencyWindowMs: number;
  /** Where each input came from (flag, environment variable, --outputs key, default), never a value. */
  sources: Record<string, string>;
}

/**
 * How errors name the places an input is read from: the CLI speaks in its
 * flags, the library (AgentUserTokenProvider.fromEnvironment and
 * fromStackOutputs) in the variables or outputs keys it reads.
 */
export interface InputNames {
  /** Whether the caller has flags to name (`--tenant`). */
  flags: boolean;
  /** Whether the AGENT_USER_* variables are read. */
  env: boolean;
  /** The stack outputs as errors name them ("--outputs", "the stack outputs"); absent where none are read. */
  outputs?: string;
  /** What a first run that misses inputs is pointed at; the CLI's own hint when absent. */
  missingHint?: string;
}

export const CLI_NAMES: InputNames = { flags: true, env: true, outputs: "--outputs" };

/** Each way of giving the blueprint credential, as `names` names them. */
function credentialChoices(names: InputNames): string {
  const choices = [
    names.env && "AGENT_USER_BLUEPRINT_SECRET",
    names.flags ? "--blueprint-cert and --blueprint-key" : names.env && "AGENT_USER_BLUEPRINT_CERT and AGENT_USER_BLUEPRINT_KEY",
    names.flags ? "--managed-identity-client-id" : names.env && "AGENT_USER_MANAGED_IDENTITY_CLIENT_ID",
    names.outputs && `"blueprintClientSecret" or "managedIdentityClientId" in ${names.outputs}`,
  ].filter((choice): choice is string => typeof choice === "string");
  return choices.length > 1 ? `${choices.slice(0, -1).join(", ")}, or ${choices.at(-1)}` : choices.join("");
}

/** The --outputs file, parsed and checked key by key; every agent of a fleet's map is kept (token --all, doctor --all). */
export function readOutputsFile(path: string, cwd: string): Partial<StackOutputs> {
  const json = readJsonFile(`--outputs ${path}`, resolve(cwd, path), {
    hint: "write the file with `pulumi stack output --json --show-secrets`",
    missingHint: `write it after \`pulumi up\` with \`pulumi stack output --json --show-secrets > ${path}\``,
  });
  return parseStackOutputs(json, `--outputs ${path}`);
}

/**
 * A file that holds a credential, named by `source` (a flag or a variable).
 * Its refusal never shows the path: when a secret, a key or a token is
 * pasted where its path belongs, the path is the secret.
 */
function readCredentialFile(source: string, path: string, cwd: string, holds: string): string {
  return readUserFile(`the file ${source} names`, resolve(cwd, path), {
    hint: `${source} takes the path of a file that holds ${holds}, not ${holds} itself`,
    maxBytes: USER_FILE_LIMITS.credential,
  });
}

/** Node's timers hold at most 2^31-1 ms; a longer delay silently becomes 1 ms. */
const MAX_TIMER_S = MAX_TIMER_MS / 1000;

/** A flag's value in seconds, as milliseconds; `fallback` (seconds) when absent. */
export function seconds(name: string, value: string | undefined, fallback: number, allowZero = true): number {
  if (value === undefined) return fallback * 1000;
  const n = value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0) || n > MAX_TIMER_S) {
    throw new UsageError(`${name} must be a number of seconds, got ${quoteValue(value)}`, `give ${allowZero ? "0" : "more than 0"} to ${MAX_TIMER_S}`);
  }
  return n * 1000;
}

/** --consistency-window, or its deprecated spelling --replication-window; both at once is refused, since one would silently win. */
function consistencyWindow(flags: ConnectionFlags): number {
  const given = flags["consistency-window"];
  const deprecated = flags["replication-window"];
  if (given !== undefined && deprecated !== undefined) {
    throw new UsageError("--consistency-window and --replication-window were both given", "give --consistency-window only: --replication-window is its deprecated spelling");
  }
  return deprecated !== undefined ? seconds("--replication-window", deprecated, 0) : seconds("--consistency-window", given, 0);
}

/** The blueprint credential, and where it came from (never its value). */
function pickCredential(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, names: InputNames): { credential: BlueprintCredential; source: string } {
  const certPath = flags["blueprint-cert"] ?? env.AGENT_USER_BLUEPRINT_CERT;
  const certSource = flags["blueprint-cert"] !== undefined ? "--blueprint-cert" : "AGENT_USER_BLUEPRINT_CERT";
  const keyPath = flags["blueprint-key"] ?? env.AGENT_USER_BLUEPRINT_KEY;
  const keySource = flags["blueprint-key"] !== undefined ? "--blueprint-key" : "AGENT_USER_BLUEPRINT_KEY";
  const secretFile = flags["blueprint-secret-file"];
  // Trimmed as the file is: `$(cat secret.txt)` or a CI variable can carry a line break no Entra secret has.
  const secret = (secretFile !== undefined ? readCredentialFile("--blueprint-secret-file", secretFile, cwd, "the client secret") : env.AGENT_USER_BLUEPRINT_SECRET)?.trim();
  if (secretFile !== undefined && !secret) throw new UsageError("the file --blueprint-secret-file names is empty");
  const miClientId = flags["managed-identity-client-id"] ?? env.AGENT_USER_MANAGED_IDENTITY_CLIENT_ID;
  const miTokenFile = flags["managed-identity-token-file"] ?? env.AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE;

  const explicit = [certPath || keyPath ? "certificate" : undefined, secret ? "secret" : undefined, miClientId || miTokenFile ? "managed identity" : undefined].filter(Boolean);
  if (explicit.length > 1) throw new UsageError(`more than one blueprint credential given (${explicit.join(", ")}); give exactly one`);
  if (certPath || keyPath) {
    if (!certPath || !keyPath) {
      throw new UsageError(
        names.flags
          ? "a certificate credential needs both --blueprint-cert and --blueprint-key (AGENT_USER_BLUEPRINT_CERT, AGENT_USER_BLUEPRINT_KEY)"
          : "a certificate credential needs both AGENT_USER_BLUEPRINT_CERT and AGENT_USER_BLUEPRINT_KEY",
      );
    }
    const certificatePem = readCredentialFile(certSource, certPath, cwd, "the certificate");
    const certificate = loadCertificate({ certificatePem, privateKeyPem: readCredentialFile(keySource, keyPath, cwd, "the private key") }, "blueprint");
    return { credential: { kind: "certificate", certificate }, source: `certificate from ${certSource}/${keySource}` };
  }
  if (secret) return { credential: { kind: "secret", secret }, source: `client secret from ${secretFile !== undefined ? "--blueprint-secret-file" : "AGENT_USER_BLUEPRINT_SECRET"}` };
  const imds = env.AGENT_USER_IMDS_ENDPOINT;
  if (miClientId || miTokenFile) {
    const credential: BlueprintCredential = { kind: "managedIdentity", clientId: miClientId, tokenFile: miTokenFile && resolve(cwd, miTokenFile), imdsEndpoint: imds && checkImdsEndpoint(imds) };
    return { credential, source: `managed identity from ${miTokenFile ? "its token file" : "IMDS"} (${flags["managed-identity-client-id"] || flags["managed-identity-token-file"] ? "flag" : "environment"})` };
  }
  if (outputs.blueprintClientSecret) return { credential: { kind: "secret", secret: outputs.blueprintClientSecret }, source: 'client secret from --outputs ("blueprintClientSecret")' };
  if (outputs.managedIdentityClientId) {
    return { credential: { kind: "managedIdentity", clientId: outputs.managedIdentityClientId, imdsEndpoint: imds && checkImdsEndpoint(imds) }, source: 'managed identity from --outputs ("managedIdentityClientId")' };
  }
  if (names.flags) {
    throw new UsageError(
      "no blueprint credential: set AGENT_USER_BLUEPRINT_SECRET, or --blueprint-cert and --blueprint-key, or --managed-identity-client-id, or give --outputs with blueprintClientSecret",
    );
  }
  throw new UsageError(`no blueprint credential: give ${credentialChoices(names)}`);
}

/** An agent identity id is a GUID. */
export function checkAgentIdentityId(value: string): string {
  if (!isGuid(value)) throw new UsageError(`the agent identity id must be a GUID, got ${quoteValue(value)}`);
  return value;
}

/** An agent user is named by its object id (sent as user_id) or its UPN (sent as username). */
export function checkAgentUser(value: string): string {
  if (!isGuid(value) && !isUpn(value)) {
    throw new UsageError(`the agent user must be an object id (GUID) or a UPN, got ${quoteValue(value)}`);
  }
  return value;
}

/** What a first run without --outputs is pointed at. */
const OUTPUTS_HINT =
  "after `pulumi up`, `pulumi stack output --json --show-secrets > outputs.json` writes every one of these; pass --outputs outputs.json (or try it on the emulator: `agent-user emulator --outputs outputs.json`)";

function hasCredential(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>): boolean {
  return [
    flags["blueprint-secret-file"],
    flags["blueprint-cert"],
    flags["managed-identity-client-id"],
    flags["managed-identity-token-file"],
    env.AGENT_USER_BLUEPRINT_SECRET,
    env.AGENT_USER_BLUEPRINT_CERT,
    env.AGENT_USER_MANAGED_IDENTITY_CLIENT_ID,
    env.AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE,
    outputs.blueprintClientSecret,
    outputs.managedIdentityClientId,
  ].some(Boolean);
}

/** The resource, which must not be blank: it names the API the token is for. */
function checkResource(resource: string, names: InputNames): string {
  if (resource.trim()) return resource;
  const places = [names.flags && "--resource", names.env && "AGENT_USER_RESOURCE_URL", !names.flags && names.outputs && `"resourceUrl" in ${names.outputs}`].filter(Boolean).join(", ");
  throw new UsageError(`the resource (${places}) is empty; it names the API the token is for, e.g. https://graph.microsoft.com`);
}

/** Hop 1's audience, named by where it came from (`source`: a flag, a variable or the outputs). */
function checkExchangeAudience(audience: string, source: string, names: InputNames): void {
  const problem = tokenExchangeAudienceProblem(audience);
  if (!problem) return;
  const where = source.startsWith("--outputs") && names.outputs ? `"tokenExchangeAudience" in ${names.outputs}` : source;
  throw new UsageError(`the token-exchange audience (${where}) ${problem}, got ${quoteValue(audience)}`, "leave it out to use the authority's cloud's");
}

/** Resolves and validates every input; throws UsageError naming every missing one, or the first bad one. */
export function resolveSettings(flags: ConnectionFlags, env: NodeJS.ProcessEnv, cwd: string): ProbeSettings {
  return resolveAgentSettings(flags, env, cwd).settings;
}

/** As resolveSettings, with the outputs (narrowed to the one agent) the settings were resolved from, so the file is read once. */
export function resolveAgentSettings(givenFlags: ConnectionFlags, env: NodeJS.ProcessEnv, cwd: string): { settings: ProbeSettings; outputs: Partial<StackOutputs> } {
  const flags = ownProperties(givenFlags);
  if (flags.agent !== undefined && flags.outputs === undefined) throw new UsageError("--agent picks an agent of a fleet's --outputs file; give --outputs too");
  const outputs = flags.outputs !== undefined ? selectAgent(readOutputsFile(flags.outputs, cwd), flags.agent, `--outputs ${flags.outputs}`) : {};
  return { settings: resolveConnection(flags, env, outputs, cwd, true), outputs };
}

/**
 * `token --all`: the connection every agent shares (flags, environment, the
 * file's top-level keys) and the agents of the --outputs file. Each agent's
 * ids come from the file alone, so the agent flags are refused and the
 * AGENT_USER_AGENT_* variables are not read.
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
  const source = `--outputs ${flags.outputs}`;
  const outputs = readOutputsFile(flags.outputs, cwd);
  const agents = fleetAgents(outputs, source);
  const shared = { ...outputs, agents: undefined, agentIdentityId: undefined, agentUserId: undefined, agentUserPrincipalName: undefined };
  const sharedEnv = { ...env, AGENT_USER_AGENT_IDENTITY_ID: undefined, AGENT_USER_AGENT_USER_ID: undefined };
  return { settings: resolveConnection(flags, sharedEnv, shared, cwd, false), agents, outputs };
}

/** Connection settings whose agent identity and agent user may be left to each request (a provider for a fleet). */
export type ConnectionSettings = Omit<ProbeSettings, "agentIdentityId" | "agentUser"> & { agentIdentityId?: string; agentUser?: string };

/**
 * The one resolution of flags, AGENT_USER_* environment variables and stack
 * outputs (already parsed and narrowed to one agent), used by the CLI and by
 * AgentUserTokenProvider.fromEnvironment / fromStackOutputs alike.
 */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, agentRequired: true, names?: InputNames): ProbeSettings;
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, agentRequired: boolean, names?: InputNames): ConnectionSettings;
export function resolveConnection(
  givenFlags: ConnectionFlags,
  givenEnv: NodeJS.ProcessEnv,
  givenOutputs: Partial<StackOutputs>,
  cwd: string,
  agentRequired: boolean,
  names: InputNames = CLI_NAMES,
): ConnectionSettings {
  // Own properties only: an authority, a secret file or a tenant that some other code put on Object.prototype
  // (process.env reads through it too) is none of the caller's.
  const flags = ownProperties(givenFlags);
  const env = ownProperties(givenEnv);
  const outputs = ownProperties(givenOutputs);
  // An empty environment variable (CI's `VAR: ""`) counts as unset, as it does for the credential variables.
  const fromEnv = (name: string): string | undefined => env[name] || undefined;
  // Where each input came from, for --verbose: the flag, the variable, the outputs key, or the default.
  const sources: Record<string, string> = {};
  const pick = (flag: ResolvedFlag, fallback?: string): string | undefined => {
    const { env: envName, outputs: keys } = CONNECTION_INPUTS[flag];
    const found = keys.find((key) => outputs[key]);
    const [value, source, key] =
      flags[flag] !== undefined
        ? [flags[flag], `--${flag}`, keys[0]]
        : fromEnv(envName)
          ? [fromEnv(envName), envName, keys[0]]
          : found
            ? [outputs[found], `--outputs ("${found}")`, found]
            : [fallback, "default", keys[0]];
    if (value !== undefined) sources[key] = source;
    return value;
  };
  // Every missing input is named at once: a first run should not be a game of one error at a time.
  const missing: string[] = [];
  const need = (flag: ResolvedFlag, value: string | undefined): string => {
    const { env: envName, outputs: keys } = CONNECTION_INPUTS[flag];
    const places = [names.flags && `--${flag}`, names.env && envName, names.outputs && `"${keys[0]}" in ${names.outputs}`].filter((place): place is string => typeof place === "string");
    if (!value) missing.push(`missing ${places[0]}${places.length > 1 ? ` (or ${places.slice(1).join(", or ")})` : ""}`);
    return value ?? "";
  };

  const tenantId = need("tenant", pick("tenant"));
  const blueprintAppId = need("blueprint-app-id", pick("blueprint-app-id"));
  const identityValue = pick("agent-identity");
  const userValue = pick("agent-user");
  const agentIdentityId = agentRequired ? need("agent-identity", identityValue) : identityValue;
  const agentUser = agentRequired ? need("agent-user", userValue) : userValue;
  if (missing.length > 0) {
    if (!hasCredential(flags, env, outputs)) missing.push(`missing a blueprint credential (${credentialChoices(names.flags ? { ...names, outputs: undefined } : names)})`);
    throw new UsageError(missing.join("; "), names.missingHint ?? (flags.outputs === undefined ? OUTPUTS_HINT : undefined));
  }
  if (!isGuid(blueprintAppId)) throw new UsageError(`the blueprint app id must be a GUID, got ${quoteValue(blueprintAppId)}`);
  if (agentIdentityId !== undefined) checkAgentIdentityId(agentIdentityId);
  if (agentUser !== undefined) checkAgentUser(agentUser);
  if (!isGuid(tenantId) && !isDomainName(tenantId)) {
    throw new UsageError(`the tenant must be a GUID or a domain, got ${quoteValue(tenantId)}`);
  }
  const resource = checkResource(pick("resource", PUBLIC_CLOUD.resourceUrl)!, names);
  const authorityUrl = assertSecureUrl("the authority URL", pick("authority", PUBLIC_CLOUD.authorityUrl)!, baseUrlProblem).origin;
  const graphUrl = assertSecureUrl("the Graph URL", pick("graph", PUBLIC_CLOUD.graphUrl)!, baseUrlProblem).origin;
  const exchangeAudience = pick("token-exchange-audience");
  if (exchangeAudience !== undefined) checkExchangeAudience(exchangeAudience, sources.tokenExchangeAudience!, names);
  const { credential, source } = pickCredential(flags, env, outputs, cwd, names);
  sources.credential = source;
  return {
    tenantId,
    authorityUrl,
    graphUrl,
    resourceUrl: resource,
    tokenExchangeAudience: exchangeAudience,
    blueprintAppId,
    credential,
    agentIdentityId,
    agentUser,
    timeoutMs: seconds("--timeout", flags.timeout, DEFAULT_TIMEOUT_S, false),
    consistencyWindowMs: consistencyWindow(flags),
    sources,
  };
}
