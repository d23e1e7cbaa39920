/**
 * Who the stand-in signs in as and which cloud it talks to, read from the
 * environment as azuread's default provider reads it when the stack sets no
 * `azuread:` configuration (terraform-provider-azuread
 * internal/provider/provider.go: each setting's ARM_* variable). The
 * stand-in does one of azuread's ways to sign in, a client secret, and
 * reaches one kind of cloud, the one ARM_METADATA_HOSTNAME's metadata
 * describes (the emulator): it refuses anything else, saying what it is,
 * rather than do something the real provider would not.
 */

export interface StandInSettings {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** `host:port` of the cloud metadata, e.g. the emulator's HTTPS listener. */
  metadataHost: string;
}

export const STAND_IN = "the test-only azuread stand-in (agent-user-kit's test/azuread-stand-in, not HashiCorp's provider)";

/** An error that names the stand-in, so nobody takes it for the real provider's. */
export function standInRefusal(what: string): Error {
  return new Error(`${STAND_IN} ${what}`);
}

const isTrue = (value: string | undefined) => value !== undefined && ["1", "t", "true"].includes(value.trim().toLowerCase());
const isSet = (value: string | undefined) => value !== undefined && value.trim() !== "";

/**
 * Settings the real provider would act on and the stand-in cannot: each with
 * what makes it count. A certificate wins over a secret in go-azure-sdk's
 * order (sdk/auth/auth.go NewAuthorizerFromCredentials), so one set beside
 * the secret would change who signs in.
 */
const UNSUPPORTED: ReadonlyArray<readonly [string, (value: string | undefined) => boolean, string]> = [
  ["ARM_CLIENT_CERTIFICATE", isSet, "a client certificate"],
  ["ARM_CLIENT_CERTIFICATE_PATH", isSet, "a client certificate"],
  ["ARM_CLIENT_ID_FILE_PATH", isSet, "a client id read from a file"],
  ["ARM_CLIENT_SECRET_FILE_PATH", isSet, "a client secret read from a file"],
  ["ARM_USE_OIDC", isTrue, "OIDC federation"],
  ["ARM_USE_MSI", isTrue, "a managed identity"],
  ["ARM_USE_AKS_WORKLOAD_IDENTITY", isTrue, "AKS workload identity"],
];

/** The settings, or an error naming the first thing the stand-in cannot do. */
export function settingsFromEnvironment(env: NodeJS.ProcessEnv): StandInSettings {
  for (const [name, counts, what] of UNSUPPORTED) {
    if (counts(env[name])) throw standInRefusal(`signs in with a client secret only, and ${name} asks for ${what}: unset it, or run the real azuread plugin`);
  }
  const missing = ["ARM_TENANT_ID", "ARM_CLIENT_ID", "ARM_CLIENT_SECRET"].filter((name) => !isSet(env[name]));
  if (missing.length > 0) throw standInRefusal(`needs ${missing.join(", ")} (it signs in with a client secret only)`);
  const metadataHost = env.ARM_METADATA_HOSTNAME?.trim();
  if (!metadataHost) {
    throw standInRefusal("reaches only a cloud named by ARM_METADATA_HOSTNAME (host:port of the emulator's HTTPS listener), never a public Azure cloud");
  }
  return { tenantId: env.ARM_TENANT_ID!.trim(), clientId: env.ARM_CLIENT_ID!.trim(), clientSecret: env.ARM_CLIENT_SECRET!, metadataHost };
}

/**
 * What of a provider configuration (the default provider's `azuread:`
 * stack settings, or an explicit provider's arguments) the stand-in cannot
 * honour, given that it acts on the environment alone: a setting is fine
 * when it says what the environment says (azuread's SDK copies some
 * variables into an explicit provider's arguments) or changes nothing the
 * stand-in does. Each problem names the setting.
 */
export function configurationProblems(config: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): string[] {
  const sameAsEnv: Record<string, string> = { clientId: "ARM_CLIENT_ID", clientSecret: "ARM_CLIENT_SECRET", tenantId: "ARM_TENANT_ID", metadataHost: "ARM_METADATA_HOSTNAME" };
  const harmless = new Set(["version", "msiEndpoint", "partnerId", "disableTerraformPartnerId", "useCli"]);
  const offWhenFalse = new Set(["useMsi", "useOidc", "useAksWorkloadIdentity"]);
  const problems: string[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (value === undefined || value === null || value === "" || name.startsWith("__")) continue;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (name in sameAsEnv) {
      if (text.trim() !== (env[sameAsEnv[name]!] ?? "").trim()) problems.push(`${name} differs from ${sameAsEnv[name]}, the only source it reads`);
    } else if (offWhenFalse.has(name)) {
      if (isTrue(text)) problems.push(`${name} is true, and it signs in with a client secret only`);
    } else if (name === "environment") {
      if (!["public", "global"].includes(text)) problems.push(`environment is ${text}, and it reaches only the cloud ARM_METADATA_HOSTNAME names`);
    } else if (!harmless.has(name)) {
      problems.push(`${name} is set, and it acts on ARM_CLIENT_ID, ARM_CLIENT_SECRET, ARM_TENANT_ID and ARM_METADATA_HOSTNAME alone`);
    }
  }
  return problems;
}
