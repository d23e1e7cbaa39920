import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadCertificate } from "./client-assertion";
import { UsageError } from "./errors";
import { assertSecureUrl } from "./urls";
import { parseStackOutputs, PUBLIC_CLOUD, selectAgent, type StackOutputs } from "./stack-outputs";
import { checkImdsEndpoint, type BlueprintCredential } from "./blueprint-credential";

/**
 * Where the probes' inputs come from, highest first: flags, AGENT_USER_*
 * environment variables, then the `--outputs` file that
 * `pulumi stack output --json --show-secrets` prints.
 */

/** Options shared by every command that mints a token. */
export const CONNECTION_OPTIONS = {
  outputs: { type: "string" },
  agent: { type: "string" },
  tenant: { type: "string" },
  authority: { type: "string" },
  "blueprint-app-id": { type: "string" },
  "blueprint-secret-file": { type: "string" },
  "blueprint-cert": { type: "string" },
  "blueprint-key": { type: "string" },
  "managed-identity-client-id": { type: "string" },
  "managed-identity-token-file": { type: "string" },
  "agent-identity": { type: "string" },
  "agent-user": { type: "string" },
  resource: { type: "string" },
  graph: { type: "string" },
  timeout: { type: "string" },
  "replication-window": { type: "string" },
} as const;

export type ConnectionFlags = { [K in keyof typeof CONNECTION_OPTIONS]?: string };

export interface ProbeSettings {
  tenantId: string;
  authorityUrl: string;
  graphUrl: string;
  resourceUrl: string;
  blueprintAppId: string;
  credential: BlueprintCredential;
  agentIdentityId: string;
  agentUser: string;
  timeoutMs: number;
  replicationWindowMs: number;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function readOutputs(path: string, agent: string | undefined, cwd: string): Partial<StackOutputs> {
  const source = `--outputs ${path}`;
  let text: string;
  try {
    text = readFileSync(resolve(cwd, path), "utf8");
  } catch (err) {
    throw new UsageError(`cannot read --outputs ${path}: ${(err as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // V8's message quotes the text around the fault, which here may be the blueprint secret: keep the position only.
    const at = /at position \d+/.exec((err as Error).message)?.[0];
    throw new UsageError(`cannot read --outputs ${path}: not valid JSON${at ? ` (${at})` : ""}`, "write the file with `pulumi stack output --json --show-secrets`");
  }
  return selectAgent(parseStackOutputs(json, source), agent, source);
}

function readText(what: string, path: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, path), "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? "unreadable"}`);
  }
}

/** Node's timers hold at most 2^31-1 ms; a longer delay silently becomes 1 ms. */
const MAX_TIMER_S = 2_000_000;

function seconds(name: string, value: string | undefined, fallback: number, allowZero = true): number {
  if (value === undefined) return fallback * 1000;
  const n = value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0) || n > MAX_TIMER_S) {
    throw new UsageError(`${name} must be a number of seconds, got ${JSON.stringify(value)}`, `give ${allowZero ? "0" : "more than 0"} to ${MAX_TIMER_S}`);
  }
  return n * 1000;
}

function pickCredential(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string): BlueprintCredential {
  const certPath = flags["blueprint-cert"] ?? env.AGENT_USER_BLUEPRINT_CERT;
  const keyPath = flags["blueprint-key"] ?? env.AGENT_USER_BLUEPRINT_KEY;
  const secretFile = flags["blueprint-secret-file"];
  const secret = secretFile !== undefined ? readText("--blueprint-secret-file", secretFile, cwd).trim() : env.AGENT_USER_BLUEPRINT_SECRET;
  if (secretFile !== undefined && !secret) throw new UsageError(`--blueprint-secret-file ${secretFile} is empty`);
  const miClientId = flags["managed-identity-client-id"] ?? env.AGENT_USER_MANAGED_IDENTITY_CLIENT_ID;
  const miTokenFile = flags["managed-identity-token-file"] ?? env.AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE;

  const explicit = [certPath || keyPath ? "certificate" : undefined, secret ? "secret" : undefined, miClientId || miTokenFile ? "managed identity" : undefined].filter(Boolean);
  if (explicit.length > 1) throw new UsageError(`more than one blueprint credential given (${explicit.join(", ")}); give exactly one`);
  if (certPath || keyPath) {
    if (!certPath || !keyPath) throw new UsageError("a certificate credential needs both --blueprint-cert and --blueprint-key (AGENT_USER_BLUEPRINT_CERT, AGENT_USER_BLUEPRINT_KEY)");
    return { kind: "certificate", certificate: loadCertificate({ certificatePem: readText("--blueprint-cert", certPath, cwd), privateKeyPem: readText("--blueprint-key", keyPath, cwd) }, "blueprint") };
  }
  if (secret) return { kind: "secret", secret };
  const imds = env.AGENT_USER_IMDS_ENDPOINT;
  if (miClientId || miTokenFile) {
    return { kind: "managedIdentity", clientId: miClientId, tokenFile: miTokenFile && resolve(cwd, miTokenFile), imdsEndpoint: imds && checkImdsEndpoint(imds) };
  }
  if (outputs.blueprintClientSecret) return { kind: "secret", secret: outputs.blueprintClientSecret };
  if (outputs.managedIdentityClientId) return { kind: "managedIdentity", clientId: outputs.managedIdentityClientId, imdsEndpoint: imds && checkImdsEndpoint(imds) };
  throw new UsageError(
    "no blueprint credential: set AGENT_USER_BLUEPRINT_SECRET, or --blueprint-cert and --blueprint-key, or --managed-identity-client-id, or give --outputs with blueprintClientSecret",
  );
}

/** An agent identity id is a GUID. */
export function checkAgentIdentityId(value: string): string {
  if (!GUID.test(value)) throw new UsageError(`the agent identity id must be a GUID, got ${JSON.stringify(value)}`);
  return value;
}

/** An agent user is named by its object id (sent as user_id) or its UPN (sent as username). */
export function checkAgentUser(value: string): string {
  if (!GUID.test(value) && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) {
    throw new UsageError(`the agent user must be an object id (GUID) or a UPN, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Resolves and validates every input; throws UsageError naming the first bad or missing one. */
export function resolveSettings(flags: ConnectionFlags, env: NodeJS.ProcessEnv, cwd: string): ProbeSettings {
  if (flags.agent !== undefined && flags.outputs === undefined) throw new UsageError("--agent picks an agent of a fleet's --outputs file; give --outputs too");
  const outputs = flags.outputs !== undefined ? readOutputs(flags.outputs, flags.agent, cwd) : {};
  return resolveConnection(flags, env, outputs, cwd, true);
}

/** Connection settings whose agent identity and agent user may be left to each request (a provider for a fleet). */
export type ConnectionSettings = Omit<ProbeSettings, "agentIdentityId" | "agentUser"> & { agentIdentityId?: string; agentUser?: string };

/**
 * The one resolution of flags, AGENT_USER_* environment variables and stack
 * outputs (already parsed and narrowed to one agent), used by the CLI and by
 * AgentUserTokenProvider.fromEnvironment / fromStackOutputs alike.
 */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, agentRequired: true): ProbeSettings;
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, agentRequired: boolean): ConnectionSettings;
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, outputs: Partial<StackOutputs>, cwd: string, agentRequired: boolean): ConnectionSettings {
  // An empty environment variable (CI's `VAR: ""`) counts as unset, as it does for the credential variables.
  const fromEnv = (name: string): string | undefined => env[name] || undefined;
  const pick = (flag: keyof ConnectionFlags, envName: string, output: Exclude<keyof StackOutputs, "agents">, fallback?: string): string | undefined =>
    flags[flag] ?? fromEnv(envName) ?? outputs[output] ?? fallback;
  const need = (value: string | undefined, flag: string, envName: string, output: string): string => {
    if (!value) throw new UsageError(`missing ${flag} (or ${envName}, or "${output}" in --outputs)`);
    return value;
  };

  const tenantId = need(pick("tenant", "AGENT_USER_TENANT_ID", "tenantId"), "--tenant", "AGENT_USER_TENANT_ID", "tenantId");
  const blueprintAppId = need(pick("blueprint-app-id", "AGENT_USER_BLUEPRINT_APP_ID", "blueprintAppId"), "--blueprint-app-id", "AGENT_USER_BLUEPRINT_APP_ID", "blueprintAppId");
  const identityValue = pick("agent-identity", "AGENT_USER_AGENT_IDENTITY_ID", "agentIdentityId");
  const userValue = flags["agent-user"] ?? fromEnv("AGENT_USER_AGENT_USER_ID") ?? outputs.agentUserId ?? outputs.agentUserPrincipalName;
  const agentIdentityId = agentRequired ? need(identityValue, "--agent-identity", "AGENT_USER_AGENT_IDENTITY_ID", "agentIdentityId") : identityValue;
  const agentUser = agentRequired ? need(userValue, "--agent-user", "AGENT_USER_AGENT_USER_ID", "agentUserId") : userValue;
  if (!GUID.test(blueprintAppId)) throw new UsageError(`the blueprint app id must be a GUID, got ${JSON.stringify(blueprintAppId)}`);
  if (agentIdentityId !== undefined) checkAgentIdentityId(agentIdentityId);
  if (agentUser !== undefined) checkAgentUser(agentUser);
  if (!GUID.test(tenantId) && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(tenantId)) {
    throw new UsageError(`the tenant must be a GUID or a domain, got ${JSON.stringify(tenantId)}`);
  }
  const resource = pick("resource", "AGENT_USER_RESOURCE_URL", "resourceUrl", PUBLIC_CLOUD.resourceUrl)!;
  if (!resource.trim()) throw new UsageError("the resource (--resource, AGENT_USER_RESOURCE_URL) is empty; it names the API the token is for, e.g. https://graph.microsoft.com");
  const authorityUrl = assertSecureUrl("the authority URL", pick("authority", "AGENT_USER_AUTHORITY_URL", "authorityUrl", PUBLIC_CLOUD.authorityUrl)!).toString();
  const graphUrl = assertSecureUrl("the Graph URL", pick("graph", "AGENT_USER_GRAPH_URL", "graphUrl", PUBLIC_CLOUD.graphUrl)!).toString();
  return {
    tenantId,
    authorityUrl: authorityUrl.replace(/\/+$/, ""),
    graphUrl: graphUrl.replace(/\/+$/, ""),
    resourceUrl: resource,
    blueprintAppId,
    credential: pickCredential(flags, env, outputs, cwd),
    agentIdentityId,
    agentUser,
    timeoutMs: seconds("--timeout", flags.timeout, 15, false),
    replicationWindowMs: seconds("--replication-window", flags["replication-window"], 0),
  };
}
