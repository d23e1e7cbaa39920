/**
 * On success every hop sends what the reference prescribes and gets back the
 * token the reference describes; the command shows the final claims and
 * keeps the token out of its output unless --show-token is given.
 */
import { createPublicKey } from "node:crypto";
import { TOKEN_EXCHANGE_APP_ID } from "../../../lib/entra-rules";
import { decodeJwt, verifyJwtSignature } from "../../../lib/jwt";
import { SEEDED_GRANT_SCOPES } from "../../../emulator/seed";
import {
  agentUserToken,
  b64urlGuid,
  claimsOf,
  EXCHANGE_SCOPE,
  facets,
  JWT_BEARER,
  JWT_SHAPE,
  NO_ENV,
  onlyJson,
  recordingDispatcher,
  runCli,
  seededChain,
  seededRequest,
  tokenStatuses,
  useEmulator,
  writeOutputs,
} from "../../harness";

const ctx = useEmulator();

describe("the three hops, as the hop chain sends them", () => {
  let sent: ReturnType<typeof recordingDispatcher>["sent"];
  let finalToken: string;

  beforeAll(async () => {
    const recorder = recordingDispatcher();
    sent = recorder.sent;
    const token = await agentUserToken(seededChain(ctx.out, { http: { dispatcher: recorder.dispatcher } }), seededRequest(ctx.out));
    finalToken = token.accessToken;
  });

  const endpoint = () => `${ctx.out.authorityUrl}/${ctx.out.tenantId}/oauth2/v2.0/token`;

  it("posts three form requests to {authority}/{tenant}/oauth2/v2.0/token, nothing in the query string", () => {
    expect(sent).toHaveLength(3);
    for (const r of sent) {
      expect(r.method).toBe("POST");
      expect(r.url).toBe(endpoint());
    }
  });

  it("hop 1: client credentials of the blueprint for the token-exchange scope with fmi_path = the agent identity", () => {
    expect(sent[0]!.form).toEqual({
      grant_type: "client_credentials",
      client_id: ctx.out.blueprintAppId,
      scope: EXCHANGE_SCOPE,
      fmi_path: ctx.out.agentIdentityId,
      client_secret: ctx.out.blueprintClientSecret,
    });
  });

  it("T1: token-exchange audience, blueprint azp/oid, /eid1 subject ending with the agent identity, no roles or scp", () => {
    const t1 = claimsOf(sent[1]!.form.client_assertion!);
    expect(t1).toMatchObject({
      aud: TOKEN_EXCHANGE_APP_ID,
      iss: `${ctx.out.authorityUrl}/${ctx.out.tenantId}/v2.0`,
      ver: "2.0",
      azp: ctx.out.blueprintAppId,
      oid: ctx.out.blueprintPrincipalId,
      idtyp: "app",
      tid: ctx.out.tenantId,
      sub: `/eid1/c/pub/t/${b64urlGuid(ctx.out.tenantId)}/a/${b64urlGuid(ctx.out.blueprintAppId!)}/${ctx.out.agentIdentityId}`,
    });
    expect(t1.sub!.endsWith(`/${ctx.out.agentIdentityId}`)).toBe(true);
    expect(t1.roles).toBeUndefined();
    expect(t1.scp).toBeUndefined();
  });

  it("hop 2: the agent identity with T1 as assertion, no fmi_path", () => {
    const form = sent[1]!.form;
    expect(Object.keys(form).sort()).toEqual(["client_assertion", "client_assertion_type", "client_id", "grant_type", "scope"]);
    expect(form).toMatchObject({ grant_type: "client_credentials", client_id: ctx.out.agentIdentityId, scope: EXCHANGE_SCOPE, client_assertion_type: JWT_BEARER });
  });

  it("T2: token-exchange audience, azp = oid = sub = the agent identity, parent blueprint and facet 11", () => {
    const t2 = claimsOf(sent[2]!.form.user_federated_identity_credential!);
    expect(t2).toMatchObject({
      aud: TOKEN_EXCHANGE_APP_ID,
      azp: ctx.out.agentIdentityId,
      oid: ctx.out.agentIdentityId,
      sub: ctx.out.agentIdentityId,
      idtyp: "app",
      tid: ctx.out.tenantId,
      xms_par_app_azp: ctx.out.blueprintAppId,
    });
    expect(facets(t2.xms_act_fct)).toContain("11");
    expect(facets(t2.xms_sub_fct)).toContain("11");
  });

  it("hop 3: user_fic with T1 (not T2) as assertion, T2 as user credential and the object id in user_id", () => {
    const form = sent[2]!.form;
    expect(form).toMatchObject({
      grant_type: "user_fic",
      client_id: ctx.out.agentIdentityId,
      scope: "https://graph.microsoft.com/.default",
      client_assertion_type: JWT_BEARER,
      user_id: ctx.out.agentUserId,
    });
    expect(form.client_assertion).toBe(sent[1]!.form.client_assertion);
    expect(form.user_federated_identity_credential).not.toBe(form.client_assertion);
    expect(form.username).toBeUndefined();
  });

  it("the agent user token: a delegated v1 Graph token of the agent user, acting through the agent identity", () => {
    const claims = claimsOf(finalToken);
    expect(claims).toMatchObject({
      idtyp: "user",
      oid: ctx.out.agentUserId,
      appid: ctx.out.agentIdentityId,
      tid: ctx.out.tenantId,
      upn: ctx.out.agentUserPrincipalName,
      aud: "https://graph.microsoft.com",
      iss: `https://sts.windows.net/${ctx.out.tenantId}/`,
      ver: "1.0",
      xms_par_app_azp: ctx.out.blueprintAppId,
    });
    expect(facets(claims.xms_act_fct)).toContain("11");
    expect(facets(claims.xms_sub_fct)).toContain("13");
    expect(facets(claims.xms_idrel)).toContain("1");
    expect(facets(claims.scp)).toEqual(expect.arrayContaining(SEEDED_GRANT_SCOPES.split(" ")));
    expect(claims.exp! - claims.iat!).toBeGreaterThan(3600);
  });

  it("every token verifies against the JWKS the discovery document points to", async () => {
    const config = (await (await fetch(`${ctx.out.authorityUrl}/${ctx.out.tenantId}/v2.0/.well-known/openid-configuration`)).json()) as { jwks_uri: string; token_endpoint: string };
    expect(config.token_endpoint).toBe(endpoint());
    const jwks = (await (await fetch(config.jwks_uri)).json()) as { keys: Array<Record<string, string>> };
    for (const token of [sent[1]!.form.client_assertion!, sent[2]!.form.user_federated_identity_credential!, finalToken]) {
      const jwt = decodeJwt(token)!;
      const jwk = jwks.keys.find((k) => k.kid === jwt.header.kid);
      expect(jwk).toBeDefined();
      expect(jwt.header.alg).toBe("RS256");
      expect(verifyJwtSignature(jwt, createPublicKey({ key: jwk!, format: "jwk" }))).toBe(true);
    }
  });
});

it("an agent user given as a UPN is sent as username, and the token's upn is checked", async () => {
  const recorder = recordingDispatcher();
  const token = await agentUserToken(seededChain(ctx.out, { http: { dispatcher: recorder.dispatcher } }), {
    ...seededRequest(ctx.out),
    agentUser: ctx.out.agentUserPrincipalName!.toUpperCase(),
  });
  const hop3 = recorder.sent[2]!.form;
  expect(hop3.username).toBe(ctx.out.agentUserPrincipalName!.toUpperCase());
  expect(hop3.user_id).toBeUndefined();
  expect(token.claims.oid).toBe(ctx.out.agentUserId);
  expect(token.claims.upn).toBe(ctx.out.agentUserPrincipalName);
});

describe("agent-user token on success", () => {
  it("prints each hop with its duration and expiry, then the final claims, with the token redacted; exit 0", async () => {
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out)], NO_ENV);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
    expect(run.stdout).toMatch(/hop 1 \(blueprint token\)\s+\d+ ms\s+expires in 65 min/);
    expect(run.stdout).toMatch(/hop 2 \(agent identity token\)\s+\d+ ms\s+expires in 65 min/);
    expect(run.stdout).toMatch(/hop 3 \(agent user token\)\s+\d+ ms\s+expires in 69 min/);
    expect(run.stdout).toMatch(/^ {2}idtyp +user$/m);
    expect(run.stdout).toMatch(new RegExp(`^ {2}oid +${ctx.out.agentUserId}$`, "m"));
    expect(run.stdout).toMatch(new RegExp(`^ {2}upn +${ctx.out.agentUserPrincipalName}$`, "m"));
    expect(run.stdout).toMatch(new RegExp(`^ {2}appid +${ctx.out.agentIdentityId}$`, "m"));
    expect(run.stdout).toMatch(/^ {2}scp +.*User\.Read/m);
    expect(run.stdout).toMatch(/^ {2}aud +https:\/\/graph\.microsoft\.com$/m);
    expect(run.stdout).toMatch(/^ {2}exp +\d+ \(\d{4}-\d\d-\d\dT/m);
    expect(run.stdout).toContain("[redacted; pass --show-token to print it]");
    expect(run.stdout).not.toMatch(JWT_SHAPE);
  });

  it("--json prints one object {ok, hops, claims} and no token", async () => {
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--json"], NO_ENV);
    expect(run.code).toBe(0);
    const body = onlyJson(run);
    expect(Object.keys(body).sort()).toEqual(["claims", "hops", "ok"]);
    expect(body.ok).toBe(true);
    expect(body.hops).toEqual([1, 2, 3].map((hop) => ({ hop, ms: expect.any(Number), expiresIn: expect.any(Number) })));
    const hops = body.hops as Array<{ expiresIn: number }>;
    expect(hops[0]!.expiresIn).toBeGreaterThan(64 * 60);
    expect(hops[2]!.expiresIn).toBeGreaterThan(68 * 60);
    expect(body.claims).toMatchObject({ idtyp: "user", oid: ctx.out.agentUserId, upn: ctx.out.agentUserPrincipalName, appid: ctx.out.agentIdentityId, tid: ctx.out.tenantId, aud: "https://graph.microsoft.com" });
    expect(run.stdout).not.toMatch(JWT_SHAPE);
  });

  it("--show-token adds the token, and it is the agent user token whose claims were shown", async () => {
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--json", "--show-token"], NO_ENV);
    expect(run.code).toBe(0);
    const body = onlyJson(run) as { token: string; claims: Record<string, unknown> };
    const jwt = ctx.emulator.key.verify(body.token);
    expect(jwt).toBeDefined();
    expect(jwt!.claims).toMatchObject(body.claims);
    expect(jwt!.claims.idtyp).toBe("user");

    const human = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--show-token"], NO_ENV);
    expect(human.code).toBe(0);
    const shown = /^token: (\S+)$/m.exec(human.stdout)?.[1];
    expect(ctx.emulator.key.verify(shown ?? "")?.claims.oid).toBe(ctx.out.agentUserId);
  });

  it("flags win over the environment, which wins over --outputs", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agentUserId: "00000000-0000-4000-8000-000000000000", tenantId: "11111111-1111-4111-8111-111111111111" });
    const env = { AGENT_USER_TENANT_ID: ctx.out.tenantId, AGENT_USER_AGENT_USER_ID: "22222222-2222-4222-8222-222222222222" };
    const run = await runCli(["token", "--outputs", file, "--agent-user", ctx.out.agentUserId!, "--json"], env);
    expect(run.code).toBe(0);
    expect(onlyJson(run).claims).toMatchObject({ oid: ctx.out.agentUserId, tid: ctx.out.tenantId });
  });

  it("runs from the environment alone", async () => {
    const env = {
      AGENT_USER_TENANT_ID: "contoso.onmicrosoft.com",
      AGENT_USER_AUTHORITY_URL: ctx.out.authorityUrl,
      AGENT_USER_BLUEPRINT_APP_ID: ctx.out.blueprintAppId,
      AGENT_USER_BLUEPRINT_SECRET: ctx.out.blueprintClientSecret,
      AGENT_USER_AGENT_IDENTITY_ID: ctx.out.agentIdentityId,
      AGENT_USER_AGENT_USER_ID: ctx.out.agentUserPrincipalName,
      AGENT_USER_RESOURCE_URL: "https://graph.microsoft.com",
    };
    const run = await runCli(["token", "--json"], env);
    expect(run.code).toBe(0);
    expect(onlyJson(run).claims).toMatchObject({ upn: ctx.out.agentUserPrincipalName, tid: ctx.out.tenantId });
  });
});
