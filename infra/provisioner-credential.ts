import { readRegularFileBytes, unreadableReason, USER_FILE_LIMITS } from "../lib/user-files";
import { loadCertificate } from "../lib/client-assertion";
import { clientSecretPost, federatedAssertion, privateKeyJwt, type ClientAuth } from "../lib/client-auth";
import { Pkcs12Error, readPkcs12 } from "./pkcs12";
import { isPlaceholderGuid, tokenExchangeAudience } from "../lib/entra-rules";
import { send } from "../lib/http";
import { UsageError } from "../lib/errors";
import { ONE_ATTEMPT } from "../lib/retry";
import { TokenCache } from "../lib/token-cache";
import { requestToken, tokenEndpoint, TokenEndpointError } from "../lib/token-client";

/*
 * The provisioner is the application the dynamic providers call Graph as. It
 * comes from the same places as the azuread provider's identity: an explicit
 * azuread provider's arguments, which the components hand each resource as
 * its `provisioner` input (a Pulumi secret in the state); otherwise `azuread:`
 * stack configuration first, then the ARM_* environment variables, read when
 * a provider method runs, inside the provider process, and kept only in that
 * process's memory: nothing is captured when the provider is serialized.
 */

/**
 * Each setting: its `azuread:` configuration key, then its environment
 * variables in the order the azuread provider reads them (GitHub Actions'
 * own names for the OIDC request after the ARM_* ones).
 */
export const PROVISIONER_SOURCES = {
  tenantId: ["azuread:tenantId", "ARM_TENANT_ID"],
  clientId: ["azuread:clientId", "ARM_CLIENT_ID"],
  clientCertificatePath: ["azuread:clientCertificatePath", "ARM_CLIENT_CERTIFICATE_PATH"],
  clientCertificatePassword: ["azuread:clientCertificatePassword", "ARM_CLIENT_CERTIFICATE_PASSWORD"],
  clientCertificate: ["azuread:clientCertificate", "ARM_CLIENT_CERTIFICATE"],
  clientSecret: ["azuread:clientSecret", "ARM_CLIENT_SECRET"],
  oidcToken: ["azuread:oidcToken", "ARM_OIDC_TOKEN"],
  oidcTokenFilePath: ["azuread:oidcTokenFilePath", "ARM_OIDC_TOKEN_FILE_PATH"],
  useOidc: ["azuread:useOidc", "ARM_USE_OIDC"],
  oidcRequestUrl: ["azuread:oidcRequestUrl", "ARM_OIDC_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_URL"],
  oidcRequestToken: ["azuread:oidcRequestToken", "ARM_OIDC_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"],
} as const satisfies Record<string, readonly [string, ...string[]]>;
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
  | { kind: "secret"; secret: string; source: string }
  | { kind: "oidcToken"; token: string; source: string }
  | { kind: "oidcTokenFile"; path: Sourced }
  | { kind: "oidcRequest"; url: Sourced; requestToken: string }
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


/**
 * The settings of an explicit azuread provider (`new azuread.Provider(...)`
 * given to a component), by the provider's own argument names: a program
 * that authenticates azuread that way authenticates the kit's resources the
 * same way.
 */
export type ExplicitProvisioner = Partial<Record<ProvisionerSetting, string>>;

/** The source an explicit provider's setting is named by in errors. */
export const explicitSource = (name: string) => `the azuread provider's ${name}`;

/**
 * As the azuread provider reads its identity: an explicit provider's
 * arguments, with the environment for what they leave out (the stack's
 * azuread: configuration is the default provider's, never an explicit
 * one's); without one, the configuration, then the environment.
 */
export function gatherSettings(config: ConfigLookup | undefined, env: NodeJS.ProcessEnv, explicit: ExplicitProvisioner = {}): ProvisionerSettings {
  const settings: ProvisionerSettings = {};
  const stackConfig = Object.keys(explicit).length === 0 ? config : undefined;
  for (const [name, [configKey, ...envNames]] of Object.entries(PROVISIONER_SOURCES) as Array<[ProvisionerSetting, readonly [string, ...string[]]]>) {
    const given = Object.hasOwn(explicit, name) ? explicit[name] : undefined;
    const fromConfig = stackConfig?.get(configKey);
    const envName = envNames.find((n) => env[n]);
    if (given) settings[name] = { value: given, source: explicitSource(name) };
    else if (fromConfig) settings[name] = { value: fromConfig, source: configKey };
    else if (envName) settings[name] = { value: env[envName]!, source: envName };
  }
  return settings;
}

const NO_CLI =
  "an Azure CLI sign-in is never used: its tokens carry Directory.AccessAsUser.All, which the Agent ID APIs refuse with 403";

const CREDENTIAL_CHOICES =
  "ARM_CLIENT_CERTIFICATE_PATH, ARM_CLIENT_SECRET, ARM_OIDC_TOKEN, ARM_OIDC_TOKEN_FILE_PATH, or ARM_USE_OIDC=true with ARM_OIDC_REQUEST_URL and ARM_OIDC_REQUEST_TOKEN (GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN with `permissions: id-token: write`)";

/**
 * Picks one credential, in the azuread provider's order: certificate, secret,
 * OIDC token, OIDC token file, OIDC token request. The request form needs
 * useOidc, as in the provider: a GitHub Actions job that may mint ID tokens
 * does not thereby authenticate the provisioner with one.
 */
export function resolveProvisionerCredential(settings: ProvisionerSettings): ProvisionerCredential {
  const missing = (["tenantId", "clientId"] as const).filter((name) => !settings[name]);
  if (missing.length > 0) {
    throw credentialError(
      `the provisioner application is not configured: set ${missing.map((m) => PROVISIONER_SOURCES[m].join(" or ")).join(", and ")}`,
      `give the provisioner's tenant and client id, plus one credential (${CREDENTIAL_CHOICES}); ${NO_CLI}`,
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
      `${settings.clientCertificate.source} holds an inline PKCS#12 bundle, which this kit does not read`,
      settings.clientCertificate.source === explicitSource("clientCertificate")
        ? "write the bundle to a file (0600) and give the azuread provider clientCertificatePath instead, with clientCertificatePassword"
        : "write the bundle to a file (0600) and point ARM_CLIENT_CERTIFICATE_PATH (or azuread:clientCertificatePath) at it, with ARM_CLIENT_CERTIFICATE_PASSWORD",
    );
  }
  if (settings.clientSecret) return { ...base, kind: "secret", secret: settings.clientSecret.value, source: settings.clientSecret.source };
  if (settings.oidcToken) return { ...base, kind: "oidcToken", token: settings.oidcToken.value, source: settings.oidcToken.source };
  if (settings.oidcTokenFilePath) return { ...base, kind: "oidcTokenFile", path: settings.oidcTokenFilePath };
  const { oidcRequestUrl, oidcRequestToken, useOidc } = settings;
  if (oidcRequestUrl && oidcRequestToken && useOidc?.value.toLowerCase() === "true") {
    return { ...base, kind: "oidcRequest", url: oidcRequestUrl, requestToken: oidcRequestToken.value };
  }
  if (oidcRequestUrl || oidcRequestToken) {
    const have = [oidcRequestUrl, oidcRequestToken].filter((s) => s).map((s) => s!.source);
    const lacking = useOidc?.value.toLowerCase() === "true" ? (oidcRequestUrl ? "ARM_OIDC_REQUEST_TOKEN" : "ARM_OIDC_REQUEST_URL") : "ARM_USE_OIDC=true";
    throw credentialError(
      `the provisioner application ${base.clientId} has no credential: ${have.join(" and ")} ${have.length === 1 ? "is" : "are"} set, but not ${lacking}`,
      `set ${lacking} (or its azuread: configuration key) to authenticate with an OIDC token fetched from the request URL`,
    );
  }
  throw credentialError(
    `the provisioner application ${base.clientId} has no credential`,
    `set one of ${CREDENTIAL_CHOICES} (or the azuread: configuration key of the same name); ${NO_CLI}`,
  );
}

/**
 * How the provisioner authenticates a token request. A certificate or OIDC
 * token file is read each time, since platforms rotate them, and an OIDC
 * token is requested afresh each time: it lives minutes, the Graph token it
 * buys an hour, so each new Graph token is bought with an unexpired one.
 */
async function provisionerClientAuth(credential: ProvisionerCredential, authorityUrl: string): Promise<ClientAuth> {
  switch (credential.kind) {
    case "secret":
      return clientSecretPost(credential.secret);
    case "certificate":
      return privateKeyJwt(readPemBundle(credential));
    case "oidcToken":
      return federatedAssertion(credential.token);
    case "oidcTokenFile":
      return federatedAssertion(readText(credential.path).trim());
    case "oidcRequest":
      return federatedAssertion(await requestOidcToken(credential, tokenExchangeAudience(authorityUrl)));
  }
}

const OIDC_REQUEST_LIMITS = { timeoutMs: 15_000, maxBodyBytes: 64 << 10 };

/**
 * The ID token of the OIDC request endpoint (GitHub Actions' protocol, which
 * the azuread provider speaks): GET the URL with `audience` added, the request
 * token as bearer, and read `value` from the JSON answer. Neither token
 * appears in an error, even when the endpoint echoes one back.
 */
export async function requestOidcToken(credential: Extract<ProvisionerCredential, { kind: "oidcRequest" }>, audience: string): Promise<string> {
  const step = `OIDC token request (${credential.url.source})`;
  let url: URL;
  try {
    url = new URL(credential.url.value);
  } catch {
    throw credentialError(`${credential.url.source} is not a URL`, `set ${credential.url.source} to the OIDC token request URL the CI platform gives`);
  }
  url.searchParams.set("audience", audience);
  const res = await send(step, { method: "GET", url: url.href, headers: { authorization: `Bearer ${credential.requestToken}`, accept: "application/json" } }, OIDC_REQUEST_LIMITS);
  if (res.status !== 200) {
    throw credentialError(
      `${step} answered HTTP ${res.status}`,
      res.status === 401 || res.status === 403
        ? "the request token (ARM_OIDC_REQUEST_TOKEN or ACTIONS_ID_TOKEN_REQUEST_TOKEN) was refused: it is valid only in the job that received it, which needs `permissions: id-token: write`"
        : "check the request URL (ARM_OIDC_REQUEST_URL or ACTIONS_ID_TOKEN_REQUEST_URL) and the CI platform's status",
    );
  }
  let value: unknown;
  try {
    value = (JSON.parse(res.body) as { value?: unknown } | null)?.value;
  } catch {
    value = undefined;
  }
  if (typeof value !== "string" || value.split(".").length !== 3) {
    throw credentialError(`${step} answered without an ID token (a JSON object whose "value" is a JWT)`, "check the request URL (ARM_OIDC_REQUEST_URL or ACTIONS_ID_TOKEN_REQUEST_URL)");
  }
  return value;
}

function readText(file: Sourced): string {
  return readBytes(file).toString("utf8");
}

function readBytes(file: Sourced): Buffer {
  try {
    return readRegularFileBytes(file.value, USER_FILE_LIMITS.credential);
  } catch (err) {
    // The path is not shown: a key or a token pasted where its path belongs would be printed.
    throw credentialError(`cannot read the file ${file.source} names: ${unreadableReason(err)}`, `${file.source} takes the path of a file, not its contents`);
  }
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const KEY_BLOCK = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----[\s\S]+?-----END \1-----/;

/**
 * The certificate and key ARM_CLIENT_CERTIFICATE_PATH names: a PKCS#12 bundle
 * with ARM_CLIENT_CERTIFICATE_PASSWORD, as the azuread provider documents, or
 * one PEM file holding both (its key encrypted with that password or not).
 */
export function readPemBundle(credential: Extract<ProvisionerCredential, { kind: "certificate" }>) {
  const file = credential.certificatePath;
  const bytes = readBytes(file);
  const text = bytes.toString("utf8");
  let certPem = CERT_BLOCK.exec(text)?.[0];
  let keyPem = KEY_BLOCK.exec(text)?.[0];
  let passphrase = credential.password;
  // A PKCS#12 bundle is one DER SEQUENCE; a PEM file is text.
  if (!text.includes("-----BEGIN") && bytes[0] === 0x30) {
    try {
      ({ certificatePem: certPem, privateKeyPem: keyPem } = readPkcs12(bytes, credential.password ?? ""));
      passphrase = undefined;
    } catch (err) {
      if (!(err instanceof Pkcs12Error)) throw err;
      throw credentialError(
        `${file.source} (${file.value}) is a PKCS#12 bundle this kit cannot read: ${err.message}`,
        err.message.includes("password")
          ? "set ARM_CLIENT_CERTIFICATE_PASSWORD (or azuread:clientCertificatePassword) to the bundle's password"
          : "re-export it with a current OpenSSL (`openssl pkcs12 -export`, AES by default), or convert it to PEM (`openssl pkcs12 -in provisioner.pfx -out provisioner.pem -nodes`, with -legacy for RC2 bundles)",
      );
    }
  }
  if (!certPem && !keyPem && !text.includes("-----BEGIN")) {
    throw credentialError(`${file.source} (${file.value}) is neither a PKCS#12 bundle nor a PEM file`, `${file.source} takes a .pfx/.p12 bundle or a PEM file with the certificate and its key`);
  }
  if (!certPem || !keyPem) {
    throw credentialError(
      `${file.source} (${file.value}) must hold both the certificate and its private key in PEM; it lacks the ${certPem ? "private key" : "certificate"}`,
    );
  }
  try {
    return loadCertificate({ certificatePem: certPem, privateKeyPem: keyPem, passphrase }, "provisioner");
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

/** Where provisionerToken reads the provisioner from, besides the stack configuration the engine passed. */
export interface ProvisionerTokenOptions {
  /** A monotonic clock in milliseconds. */
  now?: () => number;
  env?: NodeJS.ProcessEnv;
  config?: ConfigLookup;
  explicit?: ExplicitProvisioner;
}

/**
 * The provisioner's application (client) id, lower-cased, from the settings
 * provisionerToken reads: the appId Graph records as `createdByAppId` of what
 * the provisioner creates, which is how an object it finds is known as its own.
 */
export function provisionerAppId(options: Omit<ProvisionerTokenOptions, "now"> = {}): string {
  const { env = process.env, config, explicit } = options;
  return resolveProvisionerCredential(gatherSettings(config ?? runtime().config, env, explicit)).clientId.toLowerCase();
}

function credentialSource(credential: ProvisionerCredential): string {
  switch (credential.kind) {
    case "certificate":
      return credential.certificatePath.source;
    case "oidcTokenFile":
      return credential.path.source;
    case "oidcRequest":
      return credential.url.source;
    default:
      return credential.source;
  }
}

/**
 * A Graph token for the provisioner (client credentials, scope
 * `{graphUrl}/.default`), from the shared token client, cached until five
 * minutes before it expires. One attempt: it is asked for inside each Graph
 * attempt, whose loop retries a transient failure of this request too. `env`
 * is the process's environment, except for a command that runs in-process
 * with its own (the CLI's doctor and preflight); `config` is the stack
 * configuration the Pulumi engine gave the provider, unless the CLI passes
 * the azuread: keys of a `pulumi config --json` file. `now` is a monotonic
 * clock in milliseconds: a token's lifetime (its expires_in) is measured on
 * it, so a step of the wall clock neither extends nor cuts it.
 */
export async function provisionerToken(authorityUrl: string, graphUrl: string, options: ProvisionerTokenOptions = {}): Promise<string> {
  const { now = () => performance.now(), env = process.env, config, explicit } = options;
  const state = runtime();
  const credential = resolveProvisionerCredential(gatherSettings(config ?? state.config, env, explicit));
  const endpoint = tokenEndpoint(authorityUrl, credential.tenantId);
  const scope = `${graphUrl.replace(/\/+$/, "")}/.default`;
  // The credential's kind and where it came from too: an explicit provider's secret is not the environment's.
  const cacheKey = `${endpoint} ${credential.clientId} ${scope} ${credential.kind} ${credentialSource(credential)}`;
  const cached = state.tokens.get(cacheKey, now());
  if (cached) return cached.token;
  // Parallel creates share one request.
  const { token } = await state.tokens.mint(cacheKey, false, async () => {
    const auth = await provisionerClientAuth(credential, authorityUrl);
    const params = { grant_type: "client_credentials", client_id: credential.clientId, scope, ...auth(credential.clientId, endpoint) };
    const { response } = await requestToken(`provisioner token for Graph (${credential.kind} of ${credential.clientId})`, endpoint, params, { retry: ONE_ATTEMPT }).catch((err: unknown) => {
      // The shared token client's hints speak of the blueprint; this credential is the provisioner's, named by where it came from.
      if (!(err instanceof TokenEndpointError) || err.transient) throw err;
      const source = credentialSource(credential);
      throw err.withHint(
        err.codes.some((code) => code === 7000215 || code === 7000222)
          ? `the provisioner's client secret (${source}) is wrong or has expired: use the secret's value (not its id), or add a new secret to the provisioner application`
          : `the provisioner application's token request was refused: check its tenant, client id and credential (${source})`,
      );
    });
    return { token: response.access_token, deadline: now() + response.expires_in * 1000 };
  });
  return token.token;
}
