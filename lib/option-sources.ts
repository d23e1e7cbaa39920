import { resolve } from "node:path";
import { loadCertificate } from "./client-assertion";
import { baseUrlOf, PUBLIC_CLOUD } from "./entra-rules";
import { UsageError } from "./errors";
import { ownProperties } from "./json-value";
import { baseUrlRule, checkOptions, type AgentUserTokenProviderOptions, type CheckedOption } from "./provider-options";
import type { StackOutputs } from "./stack-outputs";
import { readUserFile, USER_FILE_LIMITS } from "./user-files";
import type { BlueprintCredential } from "./blueprint-credential";

/*
 * Where the provider's options are read from when no code passes them: the
 * AGENT_USER_* environment variables and the stack outputs
 * (AgentUserTokenProvider.fromEnvironment, .fromStackOutputs), and, through
 * the same resolution, whatever other places a caller puts above them (the
 * CLI's flags). Each place names its inputs in errors its own way; every value
 * is checked by the provider's own rules (provider-options.ts).
 */

/** Each input read from a variable and the stack outputs: the provider's options, and the Graph URL the CLI reads Graph at. */
export const OPTION_SOURCES = {
  tenantId: { env: "AGENT_USER_TENANT_ID", outputs: ["tenantId"] },
  authorityUrl: { env: "AGENT_USER_AUTHORITY_URL", outputs: ["authorityUrl"] },
  tokenExchangeAudience: { env: "AGENT_USER_TOKEN_EXCHANGE_AUDIENCE", outputs: ["tokenExchangeAudience"] },
  blueprintAppId: { env: "AGENT_USER_BLUEPRINT_APP_ID", outputs: ["blueprintAppId"] },
  agentIdentityId: { env: "AGENT_USER_AGENT_IDENTITY_ID", outputs: ["agentIdentityId"] },
  agentUser: { env: "AGENT_USER_AGENT_USER_ID", outputs: ["agentUserId", "agentUserPrincipalName"] },
  resource: { env: "AGENT_USER_RESOURCE_URL", outputs: ["resourceUrl"] },
  graphUrl: { env: "AGENT_USER_GRAPH_URL", outputs: ["graphUrl"] },
} as const satisfies Record<string, { env: string; outputs: ReadonlyArray<Exclude<keyof StackOutputs, "agents">> }>;

export type SourcedInput = keyof typeof OPTION_SOURCES;

/** The variables of the blueprint credential, each a way of giving it. */
export const CREDENTIAL_VARIABLES = {
  secret: "AGENT_USER_BLUEPRINT_SECRET",
  certFile: "AGENT_USER_BLUEPRINT_CERT",
  keyFile: "AGENT_USER_BLUEPRINT_KEY",
  miClientId: "AGENT_USER_MANAGED_IDENTITY_CLIENT_ID",
  miTokenFile: "AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE",
  imdsEndpoint: "AGENT_USER_IMDS_ENDPOINT",
} as const;

/** A value as read, with where it came from: `source` for --verbose, `name` for errors (a variable, an outputs key, a flag). */
export interface Given {
  value: string;
  source: string;
  name: string;
  /** The stack outputs key it was read from; absent for any other place. */
  key?: string;
}

/** The parts of a blueprint credential one place gives; `secretFile` is the path of a file that holds the secret. */
export type CredentialParts = Partial<Record<"secret" | "secretFile" | "certFile" | "keyFile" | "miClientId" | "miTokenFile" | "imdsEndpoint", Given>>;

/** One place inputs are read from; the places of a resolution are ordered highest first. */
export interface InputPlace {
  /** Input `input` as given here, if it is. */
  get(input: SourcedInput): Given | undefined;
  /** Where a first run can give `input` here, if it can ("AGENT_USER_TENANT_ID", '"tenantId" in the stack outputs'). */
  place(input: SourcedInput): string | undefined;
  credential: CredentialParts;
  /** How a first run can give each kind of credential here. */
  credentialChoices: Partial<Record<"secret" | "certificate" | "managedIdentity", string>>;
  /** The stack outputs: their credential is read only when no other place gives one. */
  fallback?: boolean;
}

const given = (value: string | undefined, name: string): Given | undefined => (value ? { value, source: name, name } : undefined);

/** The AGENT_USER_* variables; an empty one (CI's `VAR: ""`) counts as unset. */
export function environmentPlace(givenEnv: NodeJS.ProcessEnv): InputPlace {
  // Own properties only: a variable that some other code put on Object.prototype (process.env reads through it) is none of the caller's.
  const env = ownProperties(givenEnv);
  const v = CREDENTIAL_VARIABLES;
  // Trimmed as a secret file is: `$(cat secret.txt)` or a CI variable can carry a line break no Entra secret has.
  const secret = env[v.secret]?.trim();
  return {
    get: (input) => given(env[OPTION_SOURCES[input].env], OPTION_SOURCES[input].env),
    place: (input) => OPTION_SOURCES[input].env,
    credential: {
      secret: given(secret, v.secret),
      certFile: given(env[v.certFile], v.certFile),
      keyFile: given(env[v.keyFile], v.keyFile),
      miClientId: given(env[v.miClientId], v.miClientId),
      miTokenFile: given(env[v.miTokenFile], v.miTokenFile),
      imdsEndpoint: given(env[v.imdsEndpoint], v.imdsEndpoint),
    },
    credentialChoices: { secret: v.secret, certificate: `${v.certFile} and ${v.keyFile}`, managedIdentity: v.miClientId },
  };
}

/** Stack outputs already parsed and narrowed to one agent, named `label` in errors ("the stack outputs", "--outputs"). */
export function stackOutputsPlace(givenOutputs: Partial<StackOutputs>, label: string): InputPlace {
  const outputs = ownProperties(givenOutputs);
  const fromKey = (key: string): Given | undefined => {
    const value = outputs[key as keyof StackOutputs];
    return typeof value === "string" && value ? { value, source: `${label} ("${key}")`, name: `"${key}" in ${label}`, key } : undefined;
  };
  return {
    get: (input) => OPTION_SOURCES[input].outputs.map(fromKey).find(Boolean),
    place: (input) => `"${OPTION_SOURCES[input].outputs[0]}" in ${label}`,
    credential: { secret: fromKey("blueprintClientSecret"), miClientId: fromKey("managedIdentityClientId") },
    credentialChoices: { secret: `"blueprintClientSecret" or "managedIdentityClientId" in ${label}` },
    fallback: true,
  };
}

/**
 * A file that holds a credential, named by where its path came from. Its
 * refusal never shows the path: when a secret, a key or a token is pasted
 * where its path belongs, the path is the secret.
 */
function readCredentialFile(from: Given, cwd: string, holds: string): string {
  return readUserFile(`the file ${from.name} names`, resolve(cwd, from.value), {
    hint: `${from.name} takes the path of a file that holds ${holds}, not ${holds} itself`,
    maxBytes: USER_FILE_LIMITS.credential,
  });
}

/** Each credential part from the highest place that gives it (a certificate from one place and its key from another is fine). */
function mergedParts(places: readonly InputPlace[]): CredentialParts {
  const parts = Object.create(null) as CredentialParts;
  for (const place of [...places].reverse()) for (const [part, value] of Object.entries(place.credential)) if (value) parts[part as keyof CredentialParts] = value;
  return parts;
}

/** Each way of giving the credential, the highest place's first for each kind, then the fallback places'. */
function credentialChoices(places: readonly InputPlace[]): string {
  const kinds = ["secret", "certificate", "managedIdentity"] as const;
  const choices = [
    ...kinds.map((kind) => places.find((place) => !place.fallback && place.credentialChoices[kind])?.credentialChoices[kind]),
    ...places.filter((place) => place.fallback).map((place) => place.credentialChoices.secret),
  ].filter((choice): choice is string => choice !== undefined);
  return choices.length > 1 ? `${choices.slice(0, -1).join(", ")}, or ${choices.at(-1)}` : choices.join("");
}

/** The blueprint credential, and where it came from (never its value); undefined when no place gives one. */
function pickCredential(places: readonly InputPlace[], cwd: string): { credential: BlueprintCredential; source: string } | undefined {
  const parts = mergedParts(places.filter((place) => !place.fallback));
  const { certFile, keyFile, secretFile, miClientId, miTokenFile, imdsEndpoint } = parts;
  const secret = secretFile ? { ...secretFile, value: readCredentialFile(secretFile, cwd, "the client secret").trim() } : parts.secret;
  if (secretFile && !secret?.value) throw new UsageError(`the file ${secretFile.name} names is empty`);
  const explicit = [certFile || keyFile ? "certificate" : undefined, secret ? "secret" : undefined, miClientId || miTokenFile ? "managed identity" : undefined].filter(Boolean);
  if (explicit.length > 1) throw new UsageError(`more than one blueprint credential given (${explicit.join(", ")}); give exactly one`);
  if (certFile || keyFile) {
    if (!certFile || !keyFile) {
      const pairs = places.map((place) => place.credentialChoices.certificate).filter(Boolean);
      throw new UsageError(`a certificate credential needs both ${pairs[0]}${pairs.length > 1 ? ` (or ${pairs.slice(1).join(", or ")})` : ""}`);
    }
    const certificatePem = readCredentialFile(certFile, cwd, "the certificate");
    const certificate = loadCertificate({ certificatePem, privateKeyPem: readCredentialFile(keyFile, cwd, "the private key") }, "blueprint");
    return { credential: { kind: "certificate", certificate }, source: `certificate from ${certFile.source}/${keyFile.source}` };
  }
  if (secret) return { credential: { kind: "secret", secret: secret.value }, source: `client secret from ${secret.source}` };
  const imds = imdsEndpoint?.value;
  if (miClientId || miTokenFile) {
    const credential: BlueprintCredential = { kind: "managedIdentity", clientId: miClientId?.value, tokenFile: miTokenFile && resolve(cwd, miTokenFile.value), imdsEndpoint: imds };
    return { credential, source: `managed identity from ${miTokenFile ? "its token file" : "IMDS"} (${(miTokenFile ?? miClientId)!.source})` };
  }
  const fallback = mergedParts(places.filter((place) => place.fallback));
  if (fallback.secret) return { credential: { kind: "secret", secret: fallback.secret.value }, source: `client secret from ${fallback.secret.source}` };
  if (fallback.miClientId) return { credential: { kind: "managedIdentity", clientId: fallback.miClientId.value, imdsEndpoint: imds }, source: `managed identity from ${fallback.miClientId.source}` };
  return undefined;
}

/** What a resolution reads: options for the provider, the Graph URL, and where each came from. */
export interface ReadConnection {
  options: AgentUserTokenProviderOptions & { authorityUrl: string; resource: string };
  graphUrl: string;
  /** Where each input came from (a variable, an outputs key, a flag, "default"), by its outputs key; never a value. */
  sources: Record<string, string>;
}

/** How a resolution names what is missing: whether the agent must be named, and the hint of a first run. */
export interface ResolveOptions {
  /** Whether the agent must be named: its identity and agent user, or (`"identity"`) its identity alone. */
  agentRequired: boolean | "identity";
  missingHint?: string;
}

/**
 * The one resolution of connection inputs from `places`, highest first: each
 * input from the first place that gives it, every missing one named at once,
 * then every value checked by the provider's own rules, named as the place
 * that gave it names it.
 */
export function resolveConnection(givenPlaces: readonly InputPlace[], cwd: string, how: ResolveOptions): ReadConnection {
  // A part or a choice a place lacks reads as absent, never as something other code put on Object.prototype.
  const places = givenPlaces.map((place) => ({ ...place, credential: ownProperties(place.credential), credentialChoices: ownProperties(place.credentialChoices) }));
  const sources = Object.create(null) as Record<string, string>;
  const read = Object.create(null) as Partial<Record<SourcedInput, Given>>;
  const pick = (input: SourcedInput, fallback?: string): string | undefined => {
    const found = places.map((place) => place.get(input)).find(Boolean) ?? (fallback === undefined ? undefined : { value: fallback, source: "default", name: input });
    if (found) {
      read[input] = found;
      sources[found.key ?? OPTION_SOURCES[input].outputs[0]] = found.source;
    }
    return found?.value;
  };
  // Every missing input is named at once: a first run should not be a game of one error at a time.
  const missing: string[] = [];
  const need = (input: SourcedInput, value: string | undefined): string => {
    const where = places.map((place) => place.place(input)).filter((p): p is string => p !== undefined);
    if (!value) missing.push(`missing ${where[0]}${where.length > 1 ? ` (or ${where.slice(1).join(", or ")})` : ""}`);
    return value ?? "";
  };
  const tenantId = need("tenantId", pick("tenantId"));
  const blueprintAppId = need("blueprintAppId", pick("blueprintAppId"));
  const agentIdentityId = how.agentRequired ? need("agentIdentityId", pick("agentIdentityId")) : pick("agentIdentityId");
  const agentUser = how.agentRequired === true ? need("agentUser", pick("agentUser")) : pick("agentUser");
  const hasCredential = places.some((place) => Object.values(place.credential).some((part) => part && part !== place.credential.imdsEndpoint));
  if (missing.length > 0) {
    if (!hasCredential) missing.push(`missing a blueprint credential (${credentialChoices(places)})`);
    throw new UsageError(missing.join("; "), how.missingHint);
  }
  const options = {
    tenantId,
    blueprintAppId,
    agentIdentityId,
    agentUser,
    resource: pick("resource", PUBLIC_CLOUD.resourceUrl)!,
    authorityUrl: pick("authorityUrl", PUBLIC_CLOUD.authorityUrl)!,
    tokenExchangeAudience: pick("tokenExchangeAudience"),
  };
  const graphUrl = pick("graphUrl", PUBLIC_CLOUD.graphUrl)!;
  const picked = pickCredential(places, cwd);
  if (!picked) throw new UsageError(`no blueprint credential: set ${credentialChoices(places)}`);
  sources.credential = picked.source;
  const nameOf = (option: CheckedOption): string => (option === "credential.imdsEndpoint" ? mergedParts(places).imdsEndpoint?.name : read[option]?.name) ?? option;
  const graphProblem = baseUrlRule(graphUrl);
  const authorityUrl = checkOptions({ ...options, credential: picked.credential }, nameOf, graphProblem ? [`${read.graphUrl!.name} ${graphProblem}`] : []);
  return { options: { ...options, credential: picked.credential, authorityUrl }, graphUrl: baseUrlOf(graphUrl), sources };
}
