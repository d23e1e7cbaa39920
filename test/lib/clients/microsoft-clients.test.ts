/**
 * Microsoft's own clients run on the emulator unchanged, as a user points them
 * at it: MSAL 7's agent user flow, @azure/identity's credentials for the
 * provisioner, and @microsoft/agents-hosting. Each runs in a child process that
 * trusts the emulator's CA only through NODE_EXTRA_CA_CERTS and is given only
 * the authority and `knownAuthorities` / `disableInstanceDiscovery`: no
 * metadata by hand. Beside them, the OpenID configuration document and the
 * token endpoint's reading of `scope`, `client_info` and the OIDC scopes.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SEEDED_GRANT_SCOPES } from "../../../emulator/seed";
import { PUBLIC_CLOUD, TOKEN_EXCHANGE_APP_ID } from "../../../lib/entra-rules";
import type { JwtClaims } from "../../../lib/jwt";
import { blueprintCertificate, claimsOf, EXCHANGE_SCOPE, JWT_BEARER, useEmulator } from "../../harness";
import type { ClientJob, Credential, IdentityResult, MsalAgentUserResult } from "./microsoft-client";

const CHILD = resolve(__dirname, "../../../dist/test/lib/clients/microsoft-client.js");
// agents-hosting takes no knownAuthorities: it reaches this emulator under login.microsoftonline.com's name, which the emulator answers to.
const ctx = useEmulator();
let caFile: string;

beforeAll(() => {
  // `npm test` builds first; rebuilding here would rewrite the bundles other test workers are loading.
  if (!existsSync(CHILD)) throw new Error(`${CHILD} is missing: run \`npm run build\` first`);
  caFile = join(ctx.scratch.dir, "emulator-ca.pem");
  writeFileSync(caFile, ctx.emulator.caPem);
});

const out = () => ctx.emulator.outputs("https");

/** Runs one job in a fresh node that trusts the emulator's CA as a user's process would; resolves with its JSON answer. */
function runClient<T>(job: ClientJob): Promise<T> {
  const child = spawn(process.execPath, [CHILD], { env: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: caFile }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(JSON.stringify(job));
  return new Promise((done, fail) => {
    child.on("close", (code) => (code === 0 ? done(JSON.parse(stdout) as T) : fail(new Error(`client exited ${code}: ${stderr}`))));
  });
}

function certificateOf(appId: string): Credential {
  const { certificatePem, privateKeyPem } = blueprintCertificate(ctx.emulator, ctx.scratch.dir, { appId });
  return { certificatePem, privateKeyPem };
}

describe("the OpenID configuration document", () => {
  const get = async (tenant: string) => {
    const res = await fetch(`${ctx.emulator.httpUrl}/${tenant}/v2.0/.well-known/openid-configuration`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("per tenant, by id or by domain: Entra's fields, every endpoint naming the tenant id", async () => {
    const origin = ctx.emulator.httpUrl;
    const t = ctx.out.tenantId;
    const domain = ctx.emulator.store.domains[0]!;
    for (const asked of [t, domain]) {
      const { status, body } = await get(asked);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        issuer: `${origin}/${t}/v2.0`,
        authorization_endpoint: `${origin}/${t}/oauth2/v2.0/authorize`,
        token_endpoint: `${origin}/${t}/oauth2/v2.0/token`,
        end_session_endpoint: `${origin}/${t}/oauth2/v2.0/logout`,
        device_authorization_endpoint: `${origin}/${t}/oauth2/v2.0/devicecode`,
        jwks_uri: `${origin}/${t}/discovery/v2.0/keys`,
        token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt"],
        id_token_signing_alg_values_supported: ["RS256"],
        subject_types_supported: ["pairwise"],
        response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
        scopes_supported: ["openid", "profile", "email", "offline_access"],
        tenant_region_scope: "WW",
        cloud_instance_name: "microsoftonline.com",
        msgraph_host: new URL(origin).host,
      });
    }
  });

  it("for organizations and common: the issuer keeps {tenantid}, no region; consumers and unknown tenants are AADSTS90002", async () => {
    for (const multi of ["organizations", "common"]) {
      const { status, body } = await get(multi);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        issuer: `${ctx.emulator.httpUrl}/{tenantid}/v2.0`,
        token_endpoint: `${ctx.emulator.httpUrl}/${multi}/oauth2/v2.0/token`,
        tenant_region_scope: null,
      });
    }
    for (const unknown of ["consumers", "contoso.example"]) {
      const { status, body } = await get(unknown);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: "invalid_tenant", error_codes: [90002] });
    }
  });
});

describe("MSAL 7: the agent user flow through its own APIs", () => {
  const upn = () => ctx.emulator.store.userByIdOrUpn(out().agentUserId!)!.userPrincipalName;
  const cases: [string, () => Credential, () => { userObjectId: string } | { username: string }][] = [
    ["a secret, by object id", () => ({ secret: out().blueprintClientSecret! }), () => ({ userObjectId: out().agentUserId! })],
    ["a secret, by UPN", () => ({ secret: out().blueprintClientSecret! }), () => ({ username: upn() })],
    ["a certificate, by object id", () => certificateOf(out().blueprintAppId!), () => ({ userObjectId: out().agentUserId! })],
    ["a certificate, by UPN", () => certificateOf(out().blueprintAppId!), () => ({ username: upn() })],
  ];

  it.each(cases)("with %s: three hops, the account from the ID token, and its cache serving the second call of each", async (_name, credential, user) => {
    const o = out();
    const before = ctx.emulator.requests.length;
    const r = await runClient<MsalAgentUserResult>({
      client: "msal-agent-user",
      authority: `${o.authorityUrl}/${o.tenantId}`,
      blueprintAppId: o.blueprintAppId!,
      credential: credential(),
      agentIdentityId: o.agentIdentityId!,
      user: user(),
      resource: o.resourceUrl,
    });
    const seen = ctx.emulator.requests.slice(before).map((q) => `${q.method} ${q.path} ${q.status}`);
    // Discovery once per application, then one request per hop: the second call of hop 1 and 2 and the silent call never leave MSAL.
    expect(seen).toEqual([
      `GET /${o.tenantId}/v2.0/.well-known/openid-configuration 200`,
      `POST /${o.tenantId}/oauth2/v2.0/token 200`,
      `GET /${o.tenantId}/v2.0/.well-known/openid-configuration 200`,
      `POST /${o.tenantId}/oauth2/v2.0/token 200`,
      `POST /${o.tenantId}/oauth2/v2.0/token 200`,
    ]);
    expect(r.t1).toMatchObject({ aud: TOKEN_EXCHANGE_APP_ID, azp: o.blueprintAppId, sub: expect.stringMatching(new RegExp(`/${o.agentIdentityId}$`)) });
    expect(r.t1FromCache).toEqual([false, true]);
    expect(r.t2).toMatchObject({ aud: TOKEN_EXCHANGE_APP_ID, sub: o.agentIdentityId, xms_par_app_azp: o.blueprintAppId });
    expect(r.t2FromCache).toEqual([false, true]);
    expect(r.t3).toMatchObject({ idtyp: "user", oid: o.agentUserId, appid: o.agentIdentityId, aud: PUBLIC_CLOUD.resourceUrl, upn: upn() });
    expect(r.t3Scopes).toEqual(SEEDED_GRANT_SCOPES.split(" "));
    expect(r.account).toEqual({ homeAccountId: `${o.agentUserId}.${o.tenantId}`, localAccountId: o.agentUserId, tenantId: o.tenantId, username: upn() });
    expect(r.idTokenClaims).toMatchObject({ aud: o.agentIdentityId, iss: `${o.authorityUrl}/${o.tenantId}/v2.0`, oid: o.agentUserId, tid: o.tenantId, ver: "2.0", preferred_username: upn() });
    expect(r.silent).toEqual({ fromCache: true, sameToken: true });
  });
});

describe("@azure/identity: the provisioner's Graph token", () => {
  const graphToken = (client: "identity-secret" | "identity-assertion", credential: Credential) => {
    const p = ctx.emulator.provisioner()!;
    return runClient<IdentityResult>({ client, authorityHost: ctx.emulator.httpsUrl, tenantId: p.tenantId, clientId: p.clientId, credential, scope: `${PUBLIC_CLOUD.graphUrl}/.default` });
  };
  const expectGraphToken = (r: IdentityResult) => {
    const p = ctx.emulator.provisioner()!;
    const principal = ctx.emulator.store.servicePrincipalByAppId(p.clientId)!;
    expect(r.claims).toMatchObject({ aud: PUBLIC_CLOUD.resourceUrl, appid: p.clientId, idtyp: "app", oid: principal.id, roles: [...principal.graphAppRoles] });
    expect(r.expiresInS).toBeGreaterThan(0);
    expect(r.secondCallSameToken).toBe(true);
  };

  it("ClientSecretCredential", async () => {
    expectGraphToken(await graphToken("identity-secret", { secret: ctx.emulator.provisioner()!.clientSecret }));
  });

  it("ClientAssertionCredential, with a certificate assertion from the user's callback", async () => {
    expectGraphToken(await graphToken("identity-assertion", certificateOf(ctx.emulator.provisioner()!.clientId)));
  });
});

it("@microsoft/agents-hosting mints the agent user token (its MsalTokenProvider, as the bench's peer runs it)", async () => {
  const o = ctx.emulator.outputs();
  const claims = await runClient<JwtClaims>({
    client: "agents-hosting",
    httpsPort: Number(new URL(ctx.emulator.httpsUrl).port),
    tenantId: o.tenantId,
    blueprintAppId: o.blueprintAppId!,
    secret: o.blueprintClientSecret!,
    agentIdentityId: o.agentIdentityId!,
    agentUserId: o.agentUserId!,
    resource: o.resourceUrl,
  });
  expect(claims).toMatchObject({ idtyp: "user", oid: o.agentUserId, appid: o.agentIdentityId, xms_par_app_azp: o.blueprintAppId });
});

describe("the token endpoint reads scope as Entra does", () => {
  const post = async (form: Record<string, string>) => {
    const res = await fetch(`${ctx.out.authorityUrl}/${ctx.out.tenantId}/oauth2/v2.0/token`, { method: "POST", body: new URLSearchParams(form) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const blueprint = (scope: string) => ({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, client_secret: ctx.out.blueprintClientSecret!, scope });
  const t1 = async () => (await post({ ...blueprint(EXCHANGE_SCOPE), fmi_path: ctx.out.agentIdentityId! })).body.access_token as string;
  const hop3 = async (scope: string, extra: Record<string, string> = {}) => {
    const assertion = await t1();
    const t2 = (await post({ grant_type: "client_credentials", client_id: ctx.out.agentIdentityId!, client_assertion_type: JWT_BEARER, client_assertion: assertion, scope: EXCHANGE_SCOPE })).body.access_token as string;
    return post({
      grant_type: "user_fic",
      client_id: ctx.out.agentIdentityId!,
      client_assertion_type: JWT_BEARER,
      client_assertion: assertion,
      user_federated_identity_credential: t2,
      user_id: ctx.out.agentUserId!,
      scope,
      ...extra,
    });
  };
  const graphDefault = `${PUBLIC_CLOUD.resourceUrl}/.default`;

  it("hop 3 with only {resource}/.default: the access token and scope, no ID token, refresh token or client_info", async () => {
    const { status, body } = await hop3(graphDefault);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "ext_expires_in", "scope", "token_type"]);
  });

  it("hop 3 with openid profile offline_access and client_info=1: an ID token, a refresh token and client_info {uid, utid}", async () => {
    const { status, body } = await hop3(`${graphDefault} openid profile offline_access`, { client_info: "1" });
    expect(status).toBe(200);
    expect(JSON.parse(Buffer.from(body.client_info as string, "base64url").toString())).toEqual({ uid: ctx.out.agentUserId, utid: ctx.out.tenantId });
    expect(typeof body.refresh_token).toBe("string");
    const id = claimsOf(body.id_token as string);
    expect(id).toMatchObject({ aud: ctx.out.agentIdentityId, oid: ctx.out.agentUserId, tid: ctx.out.tenantId, ver: "2.0" });
    expect(id.sub).toBe(claimsOf(body.access_token as string).sub);
  });

  it("openid alone gives the ID token without the profile claims (oid, name, preferred_username); offline_access alone gives the refresh token alone", async () => {
    const openid = (await hop3(`openid ${graphDefault}`)).body;
    const id = claimsOf(openid.id_token as string);
    expect(id).toMatchObject({ aud: ctx.out.agentIdentityId, tid: ctx.out.tenantId, sub: claimsOf(openid.access_token as string).sub });
    for (const claim of ["oid", "name", "preferred_username"]) expect(id).not.toHaveProperty(claim);
    expect(openid).not.toHaveProperty("refresh_token");
    const offline = (await hop3(`${graphDefault} offline_access`)).body;
    expect(offline).not.toHaveProperty("id_token");
    expect(typeof offline.refresh_token).toBe("string");
  });

  it("client credentials with OIDC scopes beside .default: the app token, and nothing a user token carries", async () => {
    const { status, body } = await post({ ...blueprint(`${graphDefault} openid profile offline_access`), client_info: "1" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "ext_expires_in", "token_type"]);
    expect(claimsOf(body.access_token as string)).toMatchObject({ aud: PUBLIC_CLOUD.resourceUrl, idtyp: "app" });
  });

  it("hop 3 with a claims request: cp1 in access_token.xms_cc gives the token xms_cc [\"cp1\"]; a challenge's nbf alone adds nothing; no JSON object is refused", async () => {
    const cae = await hop3(graphDefault, { claims: JSON.stringify({ access_token: { nbf: { essential: true, value: "1" }, xms_cc: { values: ["cp1"] } } }) });
    expect(cae.status).toBe(200);
    expect(claimsOf(cae.body.access_token as string).xms_cc).toEqual(["cp1"]);
    const challenge = await hop3(graphDefault, { claims: JSON.stringify({ access_token: { nbf: { essential: true, value: "1" } } }) });
    expect(challenge.status).toBe(200);
    expect(claimsOf(challenge.body.access_token as string)).not.toHaveProperty("xms_cc");
    expect(await hop3(graphDefault, { claims: "[1]" })).toMatchObject({ status: 400, body: { error: "invalid_grant", error_description: expect.stringContaining("claims parameter must be a JSON object") } });
  });

  it("hop 3 copies only cp1 from xms_cc: 40,000 other values, control characters and markup never reach the token", async () => {
    const noise = [...Array.from({ length: 40_000 }, (_, i) => `cap${i}`), "cp2\u001b[31m", "<script>alert(1)</script>", "line\nbreak"];
    const withCp1 = await hop3(graphDefault, { claims: JSON.stringify({ access_token: { xms_cc: { values: [...noise, "cp1", "cp1"] } } }) });
    expect(withCp1.status).toBe(200);
    expect(claimsOf(withCp1.body.access_token as string).xms_cc).toEqual(["cp1"]);
    expect((withCp1.body.access_token as string).length).toBeLessThan(4_000);
    const without = await hop3(graphDefault, { claims: JSON.stringify({ access_token: { xms_cc: { values: noise } } }) });
    expect(without.status).toBe(200);
    expect(claimsOf(without.body.access_token as string)).not.toHaveProperty("xms_cc");
  });

  it("two resources in one request: AADSTS28000, on either grant", async () => {
    const two = `${graphDefault} ${TOKEN_EXCHANGE_APP_ID}/.default`;
    expect(await post(blueprint(two))).toMatchObject({ status: 400, body: { error: "invalid_request", error_codes: [28000] } });
    expect(await hop3(two)).toMatchObject({ status: 400, body: { error: "invalid_request", error_codes: [28000] } });
  });

  it("a named permission on client credentials: AADSTS1002012; on user_fic, or OIDC scopes alone: AADSTS70011", async () => {
    expect(await post(blueprint(`${PUBLIC_CLOUD.resourceUrl}/User.Read`))).toMatchObject({ status: 400, body: { error: "invalid_scope", error_codes: [1002012] } });
    expect(await post(blueprint("openid profile"))).toMatchObject({ status: 400, body: { error: "invalid_scope", error_codes: [1002012] } });
    expect(await hop3(`${PUBLIC_CLOUD.resourceUrl}/User.Read openid`)).toMatchObject({ status: 400, body: { error: "invalid_scope", error_codes: [70011] } });
    expect(await hop3("openid profile offline_access")).toMatchObject({ status: 400, body: { error: "invalid_scope", error_codes: [70011] } });
  });
});
