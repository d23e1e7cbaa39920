import { execFileSync } from "node:child_process";
import { createHash, createPrivateKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfSignedCertificate } from "../../emulator/certificate";
import { decodeJwt } from "../../lib/jwt";
import {
  configureProvisioner,
  gatherSettings,
  provisionerToken,
  readPemBundle,
  resolveProvisionerCredential,
  type ProvisionerSettings,
} from "../../infra/provisioner-credential";
import { forgetProvisioner } from "../provisioner-state";
import { EXPIRY_MARGIN_MS } from "../../lib/token-cache";
import { startFakeDirectory } from "./fake-directory";

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT = "0c000000-0000-0000-0000-00000000000c";
const dir = mkdtempSync(join(tmpdir(), "provisioner-"));
const sourced = (value: string, source = "test") => ({ value, source });
const base: ProvisionerSettings = { tenantId: sourced(TENANT), clientId: sourced(CLIENT) };

describe("where the provisioner's settings come from", () => {
  it("takes azuread: configuration before the ARM_* environment, per setting", () => {
    const config = { get: (key: string) => ({ "azuread:clientId": "from-config" })[key] };
    const settings = gatherSettings(config, { ARM_CLIENT_ID: "from-env", ARM_TENANT_ID: TENANT, ARM_CLIENT_SECRET: "s" });
    expect(settings).toEqual({
      clientId: { value: "from-config", source: "azuread:clientId" },
      tenantId: { value: TENANT, source: "ARM_TENANT_ID" },
      clientSecret: { value: "s", source: "ARM_CLIENT_SECRET" },
    });
  });

  it("takes an explicit azuread provider's settings first, with the environment for what they leave out, and never the stack's azuread: configuration", () => {
    const config = { get: (key: string) => ({ "azuread:clientCertificatePath": "/config.p12", "azuread:tenantId": TENANT })[key] };
    const settings = gatherSettings(config, { ARM_TENANT_ID: TENANT, ARM_CLIENT_SECRET: "from-env" }, { clientId: CLIENT, clientSecret: "explicit" });
    expect(settings).toEqual({
      tenantId: { value: TENANT, source: "ARM_TENANT_ID" },
      clientId: { value: CLIENT, source: "the azuread provider's clientId" },
      clientSecret: { value: "explicit", source: "the azuread provider's clientSecret" },
    });
    expect(resolveProvisionerCredential(settings)).toMatchObject({ kind: "secret", secret: "explicit" });
  });

  it("picks the certificate first, then the secret, then an OIDC token, then an OIDC token file", () => {
    const all: ProvisionerSettings = {
      ...base,
      clientCertificatePath: sourced("/c.pem"),
      clientSecret: sourced("s"),
      oidcToken: sourced("t"),
      oidcTokenFilePath: sourced("/t"),
    };
    expect(resolveProvisionerCredential(all).kind).toBe("certificate");
    expect(resolveProvisionerCredential({ ...all, clientCertificatePath: undefined }).kind).toBe("secret");
    expect(resolveProvisionerCredential({ ...base, oidcToken: sourced("t"), oidcTokenFilePath: sourced("/t") }).kind).toBe("oidcToken");
    expect(resolveProvisionerCredential({ ...base, oidcTokenFilePath: sourced("/t") }).kind).toBe("oidcTokenFile");
  });

  it("names the missing settings, and says an Azure CLI sign-in is not a way out", () => {
    expect(() => resolveProvisionerCredential({})).toThrow(
      /set azuread:tenantId or ARM_TENANT_ID, and azuread:clientId or ARM_CLIENT_ID.*Azure CLI sign-in is never used/,
    );
    expect(() => resolveProvisionerCredential(base)).toThrow(/has no credential.*ARM_CLIENT_CERTIFICATE_PATH, ARM_CLIENT_SECRET, ARM_OIDC_TOKEN, ARM_OIDC_TOKEN_FILE_PATH, or ARM_USE_OIDC=true with ARM_OIDC_REQUEST_URL and ARM_OIDC_REQUEST_TOKEN/);
  });

  it("refuses an inline PKCS#12 bundle, saying to write it to the file ARM_CLIENT_CERTIFICATE_PATH names", () => {
    expect(() => resolveProvisionerCredential({ ...base, clientCertificate: sourced("MIIK...", "ARM_CLIENT_CERTIFICATE") })).toThrow(
      /ARM_CLIENT_CERTIFICATE holds an inline PKCS#12 bundle.*point ARM_CLIENT_CERTIFICATE_PATH .* at it, with ARM_CLIENT_CERTIFICATE_PASSWORD/,
    );
  });
});

describe("the provisioner's certificate file", () => {
  const cert = selfSignedCertificate({ commonName: "provisioner" });
  const write = (name: string, text: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const credential = (path: string, password?: string) => ({
    tenantId: TENANT,
    clientId: CLIENT,
    kind: "certificate" as const,
    certificatePath: sourced(path, "ARM_CLIENT_CERTIFICATE_PATH"),
    password,
  });

  it("reads one PEM file with the certificate and its key, in either order", () => {
    const path = write("bundle.pem", `${cert.privateKeyPem}\n${cert.certificatePem}`);
    const loaded = readPemBundle(credential(path));
    expect(loaded.thumbprintS256).toBe(createHash("sha256").update(cert.certificate.raw).digest("base64url"));
  });

  it("reads an encrypted key with its password", () => {
    const encrypted = createPrivateKey(cert.privateKeyPem).export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pw" }).toString();
    const path = write("encrypted.pem", `${cert.certificatePem}\n${encrypted}`);
    expect(readPemBundle(credential(path, "pw")).thumbprintS256).toBe(createHash("sha256").update(cert.certificate.raw).digest("base64url"));
    expect(() => readPemBundle(credential(path))).toThrow(/cannot be read.*ARM_CLIENT_CERTIFICATE_PASSWORD/);
  });

  it.each([
    ["a truncated .pfx", () => write("provisioner.pfx", Buffer.from([0x30, 0x82])), /is a PKCS#12 bundle this kit cannot read: truncated DER.*openssl pkcs12 -export/],
    ["a text file", () => write("provisioner.txt", "hello"), /is neither a PKCS#12 bundle nor a PEM file/],
    ["a certificate without its key", () => write("cert-only.pem", cert.certificatePem), /lacks the private key/],
    [
      "a key of another certificate",
      () => write("mismatch.pem", `${cert.certificatePem}\n${generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" })}`),
      /the provisioner private key does not belong to the certificate/,
    ],
    ["a missing file", () => join(dir, "absent.pem"), /cannot read the file ARM_CLIENT_CERTIFICATE_PATH names: ENOENT\. Fix: ARM_CLIENT_CERTIFICATE_PATH takes the path of a file, not its contents/],
  ])("refuses %s, saying what to do", (_what, path, message) => {
    expect(() => readPemBundle(credential(path()))).toThrow(message);
  });

  describe("a PKCS#12 bundle with ARM_CLIENT_CERTIFICATE_PASSWORD, as `openssl pkcs12 -export` writes it", () => {
    const pem = write("for-pfx.pem", `${cert.certificatePem}\n${cert.privateKeyPem}`);
    const thumbprint = createHash("sha256").update(cert.certificate.raw).digest("base64url");
    const exported = (name: string, ...flags: string[]) => {
      const out = join(dir, name);
      execFileSync("openssl", ["pkcs12", "-export", "-in", pem, "-out", out, "-passout", "pass:bundle-pw", ...flags], { stdio: "pipe" });
      return out;
    };

    it.each([
      ["OpenSSL 3's default (PBES2, PBKDF2-SHA256, AES-256-CBC)", []],
      ["PBES2 with DES-EDE3-CBC", ["-certpbe", "DES-EDE3-CBC", "-keypbe", "DES-EDE3-CBC"]],
      ["PKCS#12 3DES with a SHA-1 MAC (older tools, Windows)", ["-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"]],
      ["an unencrypted certificate bag", ["-certpbe", "NONE"]],
    ])("reads %s", (_what, flags) => {
      expect(readPemBundle(credential(exported("p.pfx", ...flags), "bundle-pw")).thumbprintS256).toBe(thumbprint);
    });

    it("names a wrong or missing password, and the variable that holds it", () => {
      const path = exported("pw.p12");
      expect(() => readPemBundle(credential(path, "wrong"))).toThrow(/integrity check failed: the password is wrong\. Fix: set ARM_CLIENT_CERTIFICATE_PASSWORD/);
      expect(() => readPemBundle(credential(path))).toThrow(/the password is wrong\. Fix: set ARM_CLIENT_CERTIFICATE_PASSWORD/);
    });

    it("refuses RC2 (`openssl pkcs12 -legacy`), saying how to re-export or convert it", () => {
      const path = exported("legacy.pfx", "-legacy");
      expect(() => readPemBundle(credential(path, "bundle-pw"))).toThrow(/RC2, which `openssl pkcs12 -legacy` uses, is not.*openssl pkcs12 -export/);
    });
  });

  it("a key pasted where its path belongs is not shown in the refusal", () => {
    const pasted = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const err = (() => {
      try {
        readPemBundle(credential(pasted));
      } catch (e) {
        return e as Error;
      }
      throw new Error("expected a refusal");
    })();
    expect(err.message).toMatch(/^cannot read the file ARM_CLIENT_CERTIFICATE_PATH names: (ENOENT|ENAMETOOLONG)\. Fix: /);
    expect(`${err.message} ${err.stack}`).not.toContain(pasted.split("\n")[1]);
  });
});

describe("provisionerToken", () => {
  let oidcIssued = 0;
  let directory: Awaited<ReturnType<typeof startFakeDirectory>>;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    directory = await startFakeDirectory({
      accessToken: "provisioner-access-token",
      // The OIDC request endpoint, as GitHub Actions serves it: a fresh ID token per request, for the bearer it gave the job.
      route: (req) => {
        if (!req.path.startsWith("/oidc")) return { status: 404 };
        if (req.headers.authorization !== "Bearer job-request-token") return { status: 401, body: { message: "Bad credentials: job-request-token?" } };
        oidcIssued += 1;
        return { status: 200, body: { count: 1, value: `eyJ0eXAiOiJKV1QifQ.oidc-${oidcIssued}.sig` } };
      },
    });
  });
  beforeEach(() => {
    forgetProvisioner();
    directory.seen.length = 0;
    for (const key of Object.keys(process.env)) if (key.startsWith("ARM_") || key.startsWith("ACTIONS_ID_TOKEN_")) delete process.env[key];
    Object.assign(process.env, { ARM_TENANT_ID: TENANT, ARM_CLIENT_ID: CLIENT });
  });
  afterAll(async () => {
    process.env = savedEnv;
    await configureProvisioner({ config: { get: () => undefined } });
    await directory.close();
  });

  const tokenRequests = () => directory.seen.filter((r) => r.path === `/${TENANT}/oauth2/v2.0/token`).map((r) => new URLSearchParams(r.body));

  it("asks the shared token client for {graphUrl}/.default with client credentials, and reuses the token until 5 minutes before expiry", async () => {
    process.env.ARM_CLIENT_SECRET = "env-secret";
    let now = 0;
    const clock = () => now;
    expect(await provisionerToken(directory.url, `${directory.url}/`, { now: clock })).toBe("provisioner-access-token");
    now = 3_600_000 - EXPIRY_MARGIN_MS - 1;
    await provisionerToken(directory.url, directory.url, { now: clock });
    expect(tokenRequests()).toHaveLength(1);
    now += 2;
    await provisionerToken(directory.url, directory.url, { now: clock });
    expect(tokenRequests()).toHaveLength(2);
    expect(Object.fromEntries(tokenRequests()[0]!)).toEqual({
      grant_type: "client_credentials",
      client_id: CLIENT,
      scope: `${directory.url}/.default`,
      client_secret: "env-secret",
    });
  });

  it("measures a token's life on the monotonic clock: the wall clock stepped a day forward still finds it cached", async () => {
    process.env.ARM_CLIENT_SECRET = "env-secret";
    await provisionerToken(directory.url, directory.url);
    const wall = Date.now;
    Date.now = () => wall() + 24 * 3_600_000;
    try {
      await provisionerToken(directory.url, directory.url);
    } finally {
      Date.now = wall;
    }
    expect(tokenRequests()).toHaveLength(1);
  });

  it("shares one token request between parallel operations", async () => {
    process.env.ARM_CLIENT_SECRET = "env-secret";
    const tokens = await Promise.all([1, 2, 3].map(() => provisionerToken(directory.url, directory.url)));
    expect(tokens).toEqual(["provisioner-access-token", "provisioner-access-token", "provisioner-access-token"]);
    expect(tokenRequests()).toHaveLength(1);
  });

  it("keeps the environment's token and an explicit provider's apart: each credential asks for its own", async () => {
    process.env.ARM_CLIENT_SECRET = "env-secret";
    await provisionerToken(directory.url, directory.url);
    await provisionerToken(directory.url, directory.url, { explicit: { tenantId: TENANT, clientId: CLIENT, clientSecret: "explicit-secret" } });
    await provisionerToken(directory.url, directory.url, { explicit: { tenantId: TENANT, clientId: CLIENT, clientSecret: "explicit-secret" } });
    expect(tokenRequests().map((r) => r.get("client_secret"))).toEqual(["env-secret", "explicit-secret"]);
  });

  it("prefers the configuration the host passed to configure over the environment", async () => {
    process.env.ARM_CLIENT_SECRET = "env-secret";
    await configureProvisioner({ config: { get: (key) => (key === "azuread:clientSecret" ? "config-secret" : undefined) } });
    await provisionerToken(directory.url, directory.url);
    await configureProvisioner({ config: { get: () => undefined } });
    expect(tokenRequests()[0]!.get("client_secret")).toBe("config-secret");
  });

  it("signs a certificate assertion for the token endpoint", async () => {
    const cert = selfSignedCertificate({ commonName: "provisioner" });
    process.env.ARM_CLIENT_CERTIFICATE_PATH = join(dir, "token-bundle.pem");
    writeFileSync(process.env.ARM_CLIENT_CERTIFICATE_PATH, `${cert.certificatePem}\n${cert.privateKeyPem}`);
    await provisionerToken(directory.url, directory.url);
    const request = tokenRequests()[0]!;
    expect(request.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(request.get("client_secret")).toBeNull();
    const assertion = decodeJwt(request.get("client_assertion")!)!;
    expect(assertion.claims).toMatchObject({ iss: CLIENT, sub: CLIENT, aud: `${directory.url}/${TENANT}/oauth2/v2.0/token` });
  });

  it("re-reads an OIDC token file for every token, since platforms rotate it", async () => {
    process.env.ARM_OIDC_TOKEN_FILE_PATH = join(dir, "oidc-token");
    writeFileSync(process.env.ARM_OIDC_TOKEN_FILE_PATH, "first.oidc.token\n");
    await provisionerToken(directory.url, directory.url);
    forgetProvisioner();
    writeFileSync(process.env.ARM_OIDC_TOKEN_FILE_PATH, "second.oidc.token\n");
    await provisionerToken(directory.url, directory.url);
    expect(tokenRequests().map((r) => r.get("client_assertion"))).toEqual(["first.oidc.token", "second.oidc.token"]);
  });

  describe("with ARM_USE_OIDC and an OIDC request URL, as GitHub Actions gives a job", () => {
    const oidcRequests = () => directory.seen.filter((r) => r.path.startsWith("/oidc"));

    it("requests an ID token for api://AzureADTokenExchange with the request token, and a fresh one for each Graph token", async () => {
      Object.assign(process.env, {
        ARM_USE_OIDC: "true",
        ACTIONS_ID_TOKEN_REQUEST_URL: `${directory.url}/oidc?api-version=2.0`,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: "job-request-token",
      });
      let now = 0;
      await provisionerToken(directory.url, directory.url, { now: () => now });
      now = 3_600_000; // the Graph token has expired, and with it long ago the ID token that bought it
      await provisionerToken(directory.url, directory.url, { now: () => now });
      const first = new URL(oidcRequests()[0]!.path, directory.url);
      expect([first.searchParams.get("api-version"), first.searchParams.get("audience")]).toEqual(["2.0", "api://AzureADTokenExchange"]);
      expect(tokenRequests().map((r) => [r.get("client_assertion_type"), r.get("client_assertion")])).toEqual([
        ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer", `eyJ0eXAiOiJKV1QifQ.oidc-${oidcIssued - 1}.sig`],
        ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer", `eyJ0eXAiOiJKV1QifQ.oidc-${oidcIssued}.sig`],
      ]);
    });

    it("reads ARM_OIDC_REQUEST_URL and ARM_OIDC_REQUEST_TOKEN before GitHub's names", async () => {
      Object.assign(process.env, {
        ARM_USE_OIDC: "true",
        ARM_OIDC_REQUEST_URL: `${directory.url}/oidc`,
        ARM_OIDC_REQUEST_TOKEN: "job-request-token",
        ACTIONS_ID_TOKEN_REQUEST_URL: `${directory.url}/elsewhere`,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: "other",
      });
      await provisionerToken(directory.url, directory.url);
      expect(oidcRequests()).toHaveLength(1);
      expect(tokenRequests()[0]!.get("client_assertion")).toBe(`eyJ0eXAiOiJKV1QifQ.oidc-${oidcIssued}.sig`);
    });

    it("refuses the request URL without ARM_USE_OIDC=true, naming it, and sends nothing", async () => {
      Object.assign(process.env, { ACTIONS_ID_TOKEN_REQUEST_URL: `${directory.url}/oidc`, ACTIONS_ID_TOKEN_REQUEST_TOKEN: "job-request-token" });
      await expect(provisionerToken(directory.url, directory.url)).rejects.toThrow(
        /ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are set, but not ARM_USE_OIDC=true/,
      );
      expect(directory.seen).toEqual([]);
    });

    it("names a refused request token without showing it, even when the endpoint echoes it", async () => {
      Object.assign(process.env, { ARM_USE_OIDC: "true", ARM_OIDC_REQUEST_URL: `${directory.url}/oidc`, ARM_OIDC_REQUEST_TOKEN: "wrong-request-token" });
      const failure = await provisionerToken(directory.url, directory.url).catch((err: Error) => err);
      expect(String(failure)).toMatch(/OIDC token request \(ARM_OIDC_REQUEST_URL\) answered HTTP 401.*id-token: write/);
      expect(String(failure)).not.toContain("request-token");
      expect(tokenRequests()).toEqual([]);
    });
  });
});
