/**
 * The three blueprint credentials of hop 1: client secret (everywhere else),
 * certificate (a PS256 assertion with x5t#S256), and managed identity (a
 * token from IMDS, or from a token file), each against the real emulator.
 */
import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { decodeJwt, signJwt } from "../../../lib/jwt";
import { requestToken, tokenEndpoint, TokenEndpointError } from "../../../lib/token-client";
import { loadCertificate } from "../../../lib/client-assertion";
import type { BlueprintCredential } from "../../../lib/blueprint-credential";
import { agentUserToken, blueprintCertificate, claimsOf, EXCHANGE_SCOPE, JWT_BEARER, NO_ENV, onlyJson, recordingDispatcher, runCli, seededChain, seededRequest, tokenStatuses, useEmulator, writeOutputs } from "../../harness";

const ctx = useEmulator();
let endpoint: string;
/** Outputs with no secret in them, as a certificate or managed-identity stack writes. */
let noSecret: () => string;

beforeAll(() => {
  endpoint = tokenEndpoint(ctx.out.authorityUrl, ctx.out.tenantId);
  noSecret = () => writeOutputs(ctx.scratch.dir, ctx.out, { blueprintClientSecret: undefined, managedIdentityClientId: undefined });
});

/** Hop 1 with this client assertion, which the emulator must refuse. */
async function hop1Refused(assertion: string): Promise<TokenEndpointError> {
  const err = await requestToken("hop 1 (blueprint token)", endpoint, {
    grant_type: "client_credentials",
    client_id: ctx.out.blueprintAppId!,
    scope: EXCHANGE_SCOPE,
    fmi_path: ctx.out.agentIdentityId!,
    client_assertion_type: JWT_BEARER,
    client_assertion: assertion,
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TokenEndpointError);
  return err as TokenEndpointError;
}

describe("certificate credential", () => {
  it("a certificate uploaded to the blueprint mints the agent user token: exit 0", async () => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], { AGENT_USER_BLUEPRINT_CERT: cert.certFile, AGENT_USER_BLUEPRINT_KEY: cert.keyFile });
    expect(run.code).toBe(0);
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
    expect(onlyJson(run).claims).toMatchObject({ idtyp: "user", oid: ctx.out.agentUserId });

    const flags = await runCli(["token", "--outputs", noSecret(), "--blueprint-cert", cert.certFile, "--blueprint-key", cert.keyFile, "--json"], NO_ENV);
    expect(flags.code).toBe(0);
  });

  it("the assertion is PS256 with x5t#S256 of the certificate, aud the token endpoint, iss = sub = blueprint, at most 10 minutes", async () => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const recorder = recordingDispatcher();
    const credential: BlueprintCredential = { kind: "certificate", certificate: loadCertificate(cert, "blueprint") };
    await agentUserToken(seededChain(ctx.out, { credential, http: { dispatcher: recorder.dispatcher } }), seededRequest(ctx.out));
    const hop1 = recorder.sent[0]!.form;
    expect(hop1.client_secret).toBeUndefined();
    expect(hop1.client_assertion_type).toBe(JWT_BEARER);
    const jwt = decodeJwt(hop1.client_assertion!)!;
    const der = Buffer.from(cert.certificatePem.replace(/-----[^-]+-----|\s/g, ""), "base64");
    expect(jwt.header).toMatchObject({ alg: "PS256", "x5t#S256": createHash("sha256").update(der).digest("base64url") });
    const c = jwt.claims;
    expect(c).toMatchObject({ aud: endpoint, iss: ctx.out.blueprintAppId, sub: ctx.out.blueprintAppId, jti: expect.any(String) });
    expect(c.exp! - c.nbf!).toBeLessThanOrEqual(600);
    expect(c.exp!).toBeGreaterThan(Date.now() / 1000);

    // A second chain makes a new assertion with its own jti.
    const again = recordingDispatcher();
    await agentUserToken(seededChain(ctx.out, { credential, http: { dispatcher: again.dispatcher } }), seededRequest(ctx.out));
    expect(claimsOf(again.sent[0]!.form.client_assertion!).jti).not.toBe(c.jti);
  });

  it("a certificate the blueprint does not know: AADSTS700027 on hop 1, exit 3, hint names the uploaded certificate", async () => {
    const stranger = blueprintCertificate(ctx.emulator, ctx.scratch.dir, { upload: false });
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], { AGENT_USER_BLUEPRINT_CERT: stranger.certFile, AGENT_USER_BLUEPRINT_KEY: stranger.keyFile });
    expect(run.code).toBe(3);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, status: 401, error: "invalid_client", codes: [700027], hint: expect.stringMatching(/certificate uploaded to the blueprint/) });
  });

  it("an assertion naming the uploaded certificate but signed by another key: AADSTS700027", async () => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const thumbprint = loadCertificate(cert, "blueprint").thumbprintS256;
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    const now = Math.floor(Date.now() / 1000);
    const forged = signJwt(
      { alg: "PS256", "x5t#S256": thumbprint },
      { aud: endpoint, iss: ctx.out.blueprintAppId, sub: ctx.out.blueprintAppId, jti: randomUUID(), nbf: now, iat: now, exp: now + 300 },
      otherKey,
    );
    const err = await hop1Refused(forged);
    expect(err.codes).toEqual([700027]);
    expect(err.exitCode).toBe(3);
    expect(err.hint).toMatch(/private key does not match the certificate/);
  });
});

describe("a credential outside its validity window (startDateTime to endDateTime)", () => {
  /** Hop 1 with a valid assertion of `cert`, which the blueprint holds. */
  function hop1WithCertificate(cert: ReturnType<typeof blueprintCertificate>): Promise<TokenEndpointError> {
    const loaded = loadCertificate(cert, "blueprint");
    const now = Math.floor(Date.now() / 1000);
    const claims = { aud: endpoint, iss: ctx.out.blueprintAppId, sub: ctx.out.blueprintAppId, jti: randomUUID(), nbf: now, iat: now, exp: now + 300 };
    return hop1Refused(signJwt({ alg: "PS256", "x5t#S256": loaded.thumbprintS256 }, claims, loaded.key));
  }

  /** The uploaded certificate's key credential, to move its window. */
  const keyCredential = (keyId: string) => ctx.emulator.store.applicationByAppId(ctx.out.blueprintAppId!)!.keyCredentials.find((k) => k.keyId === keyId)!;

  it.each([
    ["has expired", "2025-01-01T00:00:00Z", "2026-01-01T08:30:05Z", "Start=01/01/2025 00:00:00, End=01/01/2026 08:30:05"],
    ["starts only tomorrow", new Date(Date.now() + 86_400_000).toISOString(), "2099-01-01T00:00:00Z", "End=01/01/2099 00:00:00"],
  ])("a certificate whose key credential %s: AADSTS700027, the key used is expired, naming its thumbprint and window", async (_when, startDateTime, endDateTime, window) => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    Object.assign(keyCredential(cert.keyId), { startDateTime, endDateTime });
    const err = await hop1WithCertificate(cert);
    expect([err.status, err.error, err.codes]).toEqual([401, "invalid_client", [700027]]);
    const thumbprint = Buffer.from(loadCertificate(cert, "blueprint").thumbprintS256, "base64url").toString("hex").toUpperCase();
    expect(err.description).toContain(`Client assertion contains an invalid signature. [Reason - The key used is expired., Thumbprint of key used by client: '${thumbprint}', Found key '`);
    expect(err.description).toContain(window);
  });

  it("a client secret that starts only tomorrow, as one that has ended: AADSTS7000222", async () => {
    const blueprint = ctx.emulator.store.applicationByAppId(ctx.out.blueprintAppId!)!;
    const secret = blueprint.passwordCredentials[0]!;
    const saved = { ...secret };
    try {
      for (const window of [{ startDateTime: new Date(Date.now() + 86_400_000).toISOString() }, { endDateTime: new Date(Date.now() - 1_000).toISOString() }]) {
        Object.assign(secret, saved, window);
        const err = await requestToken("hop 1 (blueprint token)", endpoint, { grant_type: "client_credentials", client_id: blueprint.appId, client_secret: secret.secretText, scope: EXCHANGE_SCOPE, fmi_path: ctx.out.agentIdentityId! }).catch((e: unknown) => e as TokenEndpointError);
        expect([window, (err as TokenEndpointError).codes]).toEqual([window, [7000222]]);
      }
    } finally {
      Object.assign(secret, saved);
    }
  });
});

describe("assertion refusals, with the codes of Microsoft's Azure SDK troubleshooting guide", () => {
  /** Hop 1 with an assertion signed by the uploaded certificate's key, claims overridden. */
  async function hop1With(claims: Record<string, unknown>): Promise<TokenEndpointError> {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const loaded = loadCertificate(cert, "blueprint");
    const now = Math.floor(Date.now() / 1000);
    const base = { aud: endpoint, iss: ctx.out.blueprintAppId, sub: ctx.out.blueprintAppId, jti: randomUUID(), nbf: now, iat: now, exp: now + 300 };
    return hop1Refused(signJwt({ alg: "PS256", "x5t#S256": loaded.thumbprintS256 }, { ...base, ...claims }, loaded.key));
  }

  it("an assertion whose aud is not the token endpoint: AADSTS700023, hint names the aud", async () => {
    const err = await hop1With({ aud: "https://login.microsoftonline.com/common/oauth2/v2.0/token" });
    expect(err.codes).toEqual([700023]);
    expect(err.hint).toMatch(/aud must be the token endpoint URL/);
  });

  it("error_description puts Trace ID, Correlation ID and Timestamp on lines of their own, as Entra does", async () => {
    const res = await fetch(endpoint, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: EXCHANGE_SCOPE }) });
    const lines = ((await res.json()) as { error_description: string }).error_description.split("\r\n");
    expect(lines.map((l) => l.replace(/:.*$/, ""))).toEqual(["AADSTS7000216", "Trace ID", "Correlation ID", "Timestamp"]);
  });

  it("an assertion whose iss and sub are not the client id: AADSTS700021, hint names iss and sub", async () => {
    const err = await hop1With({ iss: randomUUID(), sub: randomUUID() });
    expect(err.codes).toEqual([700021]);
    expect(err.hint).toMatch(/iss and sub must both be the blueprint's appId/);
  });
});

describe("managed identity credential", () => {
  const imdsRequests = (from: number) => ctx.emulator.requests.slice(from).filter((r) => r.path === "/metadata/identity/oauth2/token");

  it("a token from IMDS for the user-assigned identity mints the agent user token: exit 0", async () => {
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], {
      AGENT_USER_MANAGED_IDENTITY_CLIENT_ID: ctx.out.managedIdentityClientId,
      AGENT_USER_IMDS_ENDPOINT: ctx.emulator.httpUrl,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(imdsRequests(before).map((r) => [r.method, r.status])).toEqual([["GET", 200]]);
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
    expect(onlyJson(run).claims).toMatchObject({ idtyp: "user", oid: ctx.out.agentUserId });
  });

  it("asks IMDS with Metadata: true for api://AzureADTokenExchange and the client id, and sends its token as hop 1's assertion", async () => {
    const recorder = recordingDispatcher();
    const credential: BlueprintCredential = { kind: "managedIdentity", clientId: ctx.out.managedIdentityClientId, imdsEndpoint: ctx.emulator.httpUrl };
    await agentUserToken(seededChain(ctx.out, { credential, http: { dispatcher: recorder.dispatcher } }), seededRequest(ctx.out));
    const [imds, hop1] = recorder.sent;
    const url = new URL(imds!.url);
    expect(imds!.method).toBe("GET");
    expect(imds!.headers.metadata).toBe("true");
    expect(url.pathname).toBe("/metadata/identity/oauth2/token");
    expect(Object.fromEntries(url.searchParams)).toEqual({ "api-version": "2018-02-01", resource: "api://AzureADTokenExchange", client_id: ctx.out.managedIdentityClientId });
    expect(hop1!.form).toMatchObject({ client_id: ctx.out.blueprintAppId, fmi_path: ctx.out.agentIdentityId, client_assertion_type: JWT_BEARER });
    expect(claimsOf(hop1!.form.client_assertion!).sub).toBe(ctx.emulator.store.managedIdentities[0]!.principalId);
  });

  it("the token-file variant reads the token from the file and never calls IMDS: exit 0", async () => {
    const res = await fetch(`${ctx.emulator.httpUrl}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=api://AzureADTokenExchange&client_id=${ctx.out.managedIdentityClientId}`, {
      headers: { Metadata: "true" },
    });
    const tokenFile = join(ctx.scratch.dir, "mi-token");
    writeFileSync(tokenFile, `${((await res.json()) as { access_token: string }).access_token}\n`, { mode: 0o600 });
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], { AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE: tokenFile });
    expect(run.code).toBe(0);
    expect(imdsRequests(before)).toEqual([]);
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);

    const flag = await runCli(["token", "--outputs", noSecret(), "--managed-identity-token-file", "mi-token", "--json"], NO_ENV, ctx.scratch.dir);
    expect(flag.code).toBe(0);
  });

  it("a 429 from IMDS is retried no sooner than its Retry-After", async () => {
    ctx.emulator.faults.set({ throttle: 1, retryAfterS: 1 });
    try {
      const before = ctx.emulator.requests.length;
      const started = Date.now();
      const run = await runCli(["token", "--outputs", noSecret(), "--json"], {
        AGENT_USER_MANAGED_IDENTITY_CLIENT_ID: ctx.out.managedIdentityClientId,
        AGENT_USER_IMDS_ENDPOINT: ctx.emulator.httpUrl,
      });
      expect(run.code).toBe(0);
      expect(imdsRequests(before).map((r) => r.status)).toEqual([429, 200]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    } finally {
      ctx.emulator.faults.reset();
    }
  });

  it("an IMDS answer of JSON null is reported (exit 3), not an internal error", async () => {
    const imds = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("null"));
    await new Promise<void>((done) => imds.listen(0, "127.0.0.1", done));
    try {
      const run = await runCli(["token", "--outputs", noSecret(), "--json"], {
        AGENT_USER_MANAGED_IDENTITY_CLIENT_ID: ctx.out.managedIdentityClientId,
        AGENT_USER_IMDS_ENDPOINT: `http://127.0.0.1:${(imds.address() as AddressInfo).port}`,
      });
      expect(run.code).toBe(3);
      expect(onlyJson(run).message).toMatch(/IMDS answered HTTP 200: no token in the answer/);
    } finally {
      await new Promise((done) => imds.close(done));
    }
  });

  it("IMDS 404 (identity being assigned) and 410 (IMDS updating) are retried, as Azure's SDKs do", async () => {
    const statuses = [404, 410];
    const seen: number[] = [];
    const imds = createServer((req, res) => {
      const status = statuses.shift();
      if (status !== undefined) {
        seen.push(status);
        res.writeHead(status, { "content-type": "application/json", "retry-after": "0" }).end(JSON.stringify({ error: "not_yet" }));
        return;
      }
      // Then the real answer, relayed from the emulator's IMDS.
      void fetch(`${ctx.emulator.httpUrl}${req.url}`, { headers: { metadata: "true" } }).then(async (r) => {
        seen.push(r.status);
        res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text());
      });
    });
    await new Promise<void>((done) => imds.listen(0, "127.0.0.1", done));
    try {
      const run = await runCli(["token", "--outputs", noSecret(), "--json"], {
        AGENT_USER_MANAGED_IDENTITY_CLIENT_ID: ctx.out.managedIdentityClientId,
        AGENT_USER_IMDS_ENDPOINT: `http://127.0.0.1:${(imds.address() as AddressInfo).port}`,
      });
      expect(run.code).toBe(0);
      expect(seen).toEqual([404, 410, 200]);
    } finally {
      await new Promise((done) => imds.close(done));
    }
  });

  it("a missing token file is a usage error (exit 2) naming the file's setting, not its path", async () => {
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], { AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE: join(ctx.scratch.dir, "absent") });
    expect(run.code).toBe(2);
    expect(onlyJson(run).message).toMatch(/cannot read the managed identity token file: ENOENT$/);
  });

  it("a client id IMDS does not know: exit 3 with a hint about the managed identity", async () => {
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], {
      AGENT_USER_MANAGED_IDENTITY_CLIENT_ID: "12121212-3434-4545-8656-787878787878",
      AGENT_USER_IMDS_ENDPOINT: ctx.emulator.httpUrl,
    });
    expect(run.code).toBe(3);
    const body = onlyJson(run);
    expect(body).toMatchObject({ ok: false, hop: 1 });
    expect(body.message).toMatch(/IMDS answered HTTP 400: Identity not found/);
    expect(body.hint).toMatch(/user-assigned managed identity/);
  });

  it("a managed identity with no federated credential on the blueprint: AADSTS700213, exit 3, hint names the subject", async () => {
    const stranger = { clientId: randomUUID(), principalId: randomUUID() };
    ctx.emulator.store.addManagedIdentity(stranger);
    const run = await runCli(["token", "--outputs", noSecret(), "--json"], { AGENT_USER_MANAGED_IDENTITY_CLIENT_ID: stranger.clientId, AGENT_USER_IMDS_ENDPOINT: ctx.emulator.httpUrl });
    expect(run.code).toBe(3);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, codes: [700213], hint: expect.stringMatching(/managed identity's principal \(object\) id/) });
  });
});
