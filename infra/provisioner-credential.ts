import { readRegularFile, unreadableReason, USER_FILE_LIMITS } from "../lib/user-files";
import { loadCertificate } from "../lib/client-assertion";
import { clientSecretPost, federatedAssertion, privateKeyJwt, type ClientAuth } from "../lib/client-auth";
import { isPlaceholderGuid } from "../lib/entra-rules";
import { UsageError } from "../lib/errors";
import { ONE_ATTEMPT } from "../lib/retry";
import { TokenCache } from "../lib/token-cache";
import { requestToken, tokenEndpoint, TokenEndpointError } from "../lib/token-client";

/*
 * The provisioner is the application the dynamic providers call Graph as. It
 * comes from the same places as the azuread provider's identity: `azuread:`
 * stack configuration first, then the ARM_* environment variables. Everything
 * here is read when a provider method runs, inside the provider process, and
 * kept only in that process's memory: nothing is captured when the provider is
 * serialized, and nothing is written to state.
 */

/** Each setting: its `azuread:` configuration key and its environment variable. */
export const PROVISIONER_SOURCES = {
  tenantId: ["azuread:tenantId", "ARM_TENANT_ID"],
  clientId: ["azuread:clientId", "ARM_CLIENT_ID"],
  clientCertificatePath: ["azuread:clientCertificatePath", "ARM_CLIENT_CERTIFICATE_PATH"],
  clientCertificatePassword: ["azuread:clientCertificatePassword", "ARM_CLIENT_CERTIFICATE_PASSWORD"],
  clientCertificate: ["azuread:clientCertificate", "ARM_CLIENT_CERTIFICATE"],
  clientSecret: ["azuread:clientSecret", "ARM_CLIENT_SECRET"],
  oidcToken: ["azuread:oidcToken", "ARM_OIDC_TOKEN"],
  oidcTokenFilePath: ["azuread:oidcTokenFilePath", "ARM_OIDC_TOKEN_FILE_PATH"],
} as const;
export type ProvisionerSetting = keyof typeof PROVISIONER_SOURCES;

/** A found setting and where it came from, so errors can name the source without showing the value. */
export interface Sourced {
  value: string;
  source: string;
}
export type ProvisionerSettings = Partial<Record<ProvisionerSetting, Sourced>>;

/** What `configure` receives from the dynamic provider host: the stack's configuration. */
export interface ConfigLookup {
  get(key: string): string | undefined;
}

export type ProvisionerCredential = { tenantId: string; clientId: string } & (
  | { kind: "certificate"; certificatePath: Sourced; password?: string }
  | { kind: "secret"; secret: string }
  | { kind: "oidcToken"; token: string }
  | { kind: "oidcTokenFile"; path: Sourced }
);

export const PROVISIONER_CREDENTIAL_ERROR = "ProvisionerCredentialError";

/**
 * A problem with the provisioner's settings, with its fix in the message.
 * A plain Error on purpose: these are thrown inside serialized providers, where
 * Error subclasses lose their message (see providers/failure.ts).
 */
function credentialError(message: string, fix?: string): Error {
  const error = new Error(fix ? `${message}. Fix: ${fix}` : message);
  error.name = PROVISIONER_CREDENTIAL_ERROR;
  return error;
}


/** Configuration wins over the environment, as in the azuread provider. */
export function gatherSettings(config: ConfigLookup | undefined, env: NodeJS.ProcessEnv): ProvisionerSettings {
  const settings: ProvisionerSettings = {};
  for (const [name, [configKey, envName]] of Object.entries(PROVISIONER_SOURCES) as Array<[ProvisionerSetting, readonly [string, string]]>) {
    const fromConfig = config?.get(configKey);
    if (fromConfig) settings[name] = { value: fromConfig, source: configKey };
    else if (env[envName]) settings[name] = { value: env[envName]!, source: envName };
  }
  return settings;
}

const NO_CLI =
  "an Azure CLI sign-in is never used: its tokens carry Directory.AccessAsUser.All, which the Agent ID APIs refuse with 403";

/** Picks one credential, in the azuread provider's order: certificate, secret, OIDC token, OIDC token file. */
export function resolveProvisionerCredential(settings: ProvisionerSettings): ProvisionerCredential {
  const missing = (["tenantId", "clientId"] as const).filter((name) => !settings[name]);
  if (missing.length > 0) {
    throw credentialError(
      `the provisioner application is not configured: set ${missing.map((m) => PROVISIONER_SOURCES[m].join(" or ")).join(", and ")}`,
      `give the provisioner's tenant and client id, plus one credential (ARM_CLIENT_CERTIFICATE_PATH, ARM_CLIENT_SECRET, ARM_OIDC_TOKEN or ARM_OIDC_TOKEN_FILE_PATH); ${NO_CLI}`,
    );
  }
  for (const name of ["tenantId", "clientId"] as const) {
    const { value, source } = settings[name]!;
    if (isPlaceholderGuid(value)) {
      const inStack = source.startsWith("azuread:");
      throw credentialError(
        `${source} is the placeholder ${value}${inStack ? " in the stack configuration (Pulumi.<stack>.yaml)" : ""}; it is never used`,
        inStack
          ? `remove it (\`pulumi config rm ${source}\`) so that ${PROVISIONER_SOURCES[name][1]} applies, or set the provisioner's real ${name === "tenantId" ? "tenant" : "client"} id`
          : `set ${source} to the provisioner's real ${name === "tenantId" ? "tenant" : "client"} id`,
      );
    }
  }
  const base = { tenantId: settings.tenantId!.value, clientId: settings.clientId!.value };
  if (settings.clientCertificatePath) {
    return { ...base, kind: "certificate", certificatePath: settings.clientCertificatePath, password: settings.clientCertificatePassword?.value };
  }
  if (settings.clientCertificate) {
    throw credentialError(
      `${settings.clientCertificate.source} holds an inline PKCS#12 bundle, which this kit cannot read`,
      "convert it to one PEM file with the certificate and its key (`openssl pkcs12 -in provisioner.pfx -out provisioner.pem -nodes`) and point ARM_CLIENT_CERTIFICATE_PATH (or azuread:clientCertificatePath) at it",
    );
  }
  if (settings.clientSecret) return { ...base, kind: "secret", secret: settings.clientSecret.value };
  if (settings.oidcToken) return { ...base, kind: "oidcToken", token: settings.oidcToken.value };
  if (settings.oidcTokenFilePath) return { ...base, kind: "oidcTokenFile", path: settings.oidcTokenFilePath };
  throw credentialError(
    `the provisioner application ${base.clientId} has no credential`,
    `set one of ARM_CLIENT_CERTIFICATE_PATH, ARM_CLIENT_SECRET, ARM_OIDC_TOKEN or ARM_OIDC_TOKEN_FILE_PATH (or the azuread: configuration key of the same name); ${NO_CLI}`,
  );
}

/** How the provisioner authenticates a token request; a certificate or OIDC token file is read each time, since platforms rotate them. */
function provisionerClientAuth(credential: ProvisionerCredential): ClientAuth {
  switch (credential.kind) {
    case "secret":
      return clientSecretPost(credential.secret);
    case "certificate":
      return privateKeyJwt(readPemBundle(credential));
    case "oidcToken":
      return federatedAssertion(credential.token);
    case "oidcTokenFile":
      return federatedAssertion(readText(credential.path).trim());
  }
}

function readText(file: Sourced): string {
  try {
    return readRegularFile(file.value, USER_FILE_LIMITS.credential);
  } catch (err) {
    // The path is not shown: a key or a token pasted where its path belongs would be printed.
    throw credentialError(`cannot read the file ${file.source} names: ${unreadableReason(err)}`, `${file.source} takes the path of a file, not its contents`);
  }
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const KEY_BLOCK = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----[\s\S]+?-----END \1-----/;

/** One PEM file holding the certificate and its private key, the format ARM_CLIENT_CERTIFICATE_PATH takes here. */
export function readPemBundle(credential: Extract<ProvisionerCredential, { kind: "certificate" }>) {
  const file = credential.certificatePath;
  const pkcs12 =
    "this kit reads PEM, not PKCS#12: convert it with `openssl pkcs12 -in provisioner.pfx -out provisioner.pem -nodes` (add -legacy for old bundles) and point the setting at the .pem";
  if (/\.(pfx|p12)$/i.test(file.value)) throw credentialError(`${file.source} names a .pfx/.p12 file (${file.value})`, pkcs12);
  const text = readText(file);
  const certPem = CERT_BLOCK.exec(text)?.[0];
  const keyPem = KEY_BLOCK.exec(text)?.[0];
  if (!certPem && !keyPem && !text.includes("-----BEGIN")) throw credentialError(`${file.source} (${file.value}) is not a PEM file`, pkcs12);
  if (!certPem || !keyPem) {
    throw credentialError(
      `${file.source} (${file.value}) must hold both the certificate and its private key in PEM; it lacks the ${certPem ? "private key" : "certificate"}`,
    );
  }
  try {
    return loadCertificate({ certificatePem: certPem, privateKeyPem: keyPem, passphrase: credential.password }, "provisioner");
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const fix = err.message.includes("cannot be read")
      ? "an encrypted key needs ARM_CLIENT_CERTIFICATE_PASSWORD (or azuread:clientCertificatePassword); otherwise re-export the PEM"
      : err.hint;
    throw credentialError(`${file.source} (${file.value}): ${err.detail}`, fix);
  }
}

interface ProvisionerRuntime {
  config?: ConfigLookup;
  /** One entry per token endpoint, client and scope. */
  tokens: TokenCache<{ token: string; deadline: number }>;
}

/**
 * Per-process state, kept on globalThis under a registered symbol: closure
 * serialization captures this function's text, never the cache's contents, so
 * no token and no configuration value can reach the serialized provider.
 */
function runtime(): ProvisionerRuntime {
  const slot = globalThis as unknown as Record<symbol, ProvisionerRuntime | undefined>;
  const key = Symbol.for("agent-user-kit.provisioner");
  return (slot[key] ??= { tokens: new TokenCache() });
}

/** The dynamic providers' `configure`: the host passes the stack configuration, `azuread:` keys included. */
export async function configureProvisioner(request: { config: ConfigLookup }): Promise<void> {
  runtime().config = request.config;
}

/** Drops cached tokens, e.g. when a test switches tenants. */
export function forgetProvisionerTokens(): void {
  runtime().tokens.clear();
}

/**
 * A Graph token for the provisioner (client credentials, scope
 * `{graphUrl}/.default`), from the shared token client, cached until five
 * minutes before it expires. One attempt: it is asked for inside each Graph
 * attempt, whose loop retries a transient failure of this request too. `env`
 * is the process's environment, except for a command that runs in-process
 * with its own (the CLI's doctor and preflight); `config` is the stack
 * configuration the Pulumi engine gave the provider, unless the CLI passes
 * the azuread: keys of a `pulumi config --json` file.
 */
export async function provisionerToken(
  authorityUrl: string,
  graphUrl: string,
  now: () => number = Date.now,
  env: NodeJS.ProcessEnv = process.env,
  config?: ConfigLookup,
): Promise<string> {
  const state = runtime();
  const credential = resolveProvisionerCredential(gatherSettings(config ?? state.config, env));
  const endpoint = tokenEndpoint(authorityUrl, credential.tenantId);
  const scope = `${graphUrl.replace(/\/+$/, "")}/.default`;
  const cacheKey = `${endpoint} ${credential.clientId} ${scope}`;
  const cached = state.tokens.get(cacheKey, now());
  if (cached) return cached.token;
  // Parallel creates share one request.
  const { token } = await state.tokens.mint(cacheKey, false, async () => {
    const params = { grant_type: "client_credentials", client_id: credential.clientId, scope, ...provisionerClientAuth(credential)(credential.clientId, endpoint) };
    const { response } = await requestToken(`provisioner token for Graph (${credential.kind} of ${credential.clientId})`, endpoint, params, { retry: ONE_ATTEMPT }).catch((err: unknown) => {
      // The AADSTS hints for a wrong or expired secret speak of the blueprint's; this one is the provisioner's.
      if (err instanceof TokenEndpointError && err.codes.some((code) => code === 7000215 || code === 7000222)) {
        throw err.withHint(
          "the provisioner's client secret (ARM_CLIENT_SECRET or azuread:clientSecret) is wrong or has expired: use the secret's value (not its id), or add a new secret to the provisioner application",
        );
      }
      throw err;
    });
    return { token: response.access_token, deadline: now() + response.expires_in * 1000 };
  });
  return token.token;
}
