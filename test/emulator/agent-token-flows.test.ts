/**
 * The emulator's token endpoint for the two flows beside the agent user's,
 * over real HTTP: the agent identity's own app token (T1 as its assertion,
 * `roles` from its app role assignments), the test-only password grant that
 * stands in for a person's sign-in, and the on-behalf-of grant as the agent
 * identity, with each refusal the reference names for these hops.
 */
import { DEFAULT_IDS } from "../../emulator/seed";
import { SEEDED_APP_ROLES, stableId } from "../../emulator/seed-flows";
import { MICROSOFT_GRAPH_APP_ID, TOKEN_EXCHANGE_APP_ID } from "../../lib/entra-rules";
import { EXCHANGE_SCOPE, JWT_BEARER, claimsOf, facets, useEmulator, userAssertion } from "../harness";

// The on-behalf-of tests sign the seeded person in: a start gives a person a password only when asked.
const ctx = useEmulator({ testUser: true });
const OBO = "urn:ietf:params:oauth:grant-type:jwt-bearer";

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(form: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${ctx.emulator.httpUrl}/${ctx.out.tenantId}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const codes = (a: Answer) => [a.status, a.body.error, a.body.error_codes];
const token = (a: Answer) => a.body.access_token as string;

/** T1 of the seeded blueprint for `identity`. */
async function t1(identity = ctx.out.agentIdentityId!): Promise<string> {
  const a = await post({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, client_secret: ctx.out.blueprintClientSecret!, scope: EXCHANGE_SCOPE, fmi_path: identity });
  expect(a.status).toBe(200);
  return token(a);
}

const asIdentity = async (identity = ctx.out.agentIdentityId!) => ({ client_id: identity, client_assertion_type: JWT_BEARER, client_assertion: await t1(identity) });

describe("the autonomous app flow", () => {
  it("mints the agent identity's app token with the claims agent-token-claims lists, roles from its assignments", async () => {
    const a = await post({ grant_type: "client_credentials", scope: "https://graph.microsoft.com/.default", ...(await asIdentity()) });
    expect(a.status).toBe(200);
    const c = claimsOf(token(a));
    expect({ idtyp: c.idtyp, oid: c.oid, appid: c.appid, aud: c.aud, roles: c.roles, idrel: c.xms_idrel, parent: c.xms_par_app_azp, scp: c.scp }).toEqual({
      idtyp: "app",
      oid: ctx.out.agentIdentityId,
      appid: ctx.out.agentIdentityId,
      aud: "https://graph.microsoft.com",
      roles: [...SEEDED_APP_ROLES],
      idrel: "7",
      parent: ctx.out.blueprintAppId,
      scp: undefined,
    });
    expect(facets(c.xms_act_fct)).toContain("11");
    expect(facets(c.xms_sub_fct)).toContain("11");
  });

  it("carries no roles for an identity without assignments, and no token for a scope other than .default (AADSTS1002012)", async () => {
    const graphId = ctx.emulator.store.servicePrincipalByAppId(MICROSOFT_GRAPH_APP_ID)!.id;
    const held = ctx.emulator.store.appRoleAssignments.of("principalId", ctx.out.agentIdentityId!).filter((x) => x.resourceId === graphId);
    for (const x of held) ctx.emulator.store.appRoleAssignments.delete(x.id);
    try {
      const a = await post({ grant_type: "client_credentials", scope: "https://graph.microsoft.com/.default", ...(await asIdentity()) });
      expect(claimsOf(token(a)).roles).toBeUndefined();
    } finally {
      for (const x of held) ctx.emulator.store.appRoleAssignments.create(x);
    }
    const named = await post({ grant_type: "client_credentials", scope: "https://graph.microsoft.com/User.Read.All", ...(await asIdentity()) });
    expect(codes(named)).toEqual([400, "invalid_scope", [1002012]]);
  });

  it("refuses T2 as the assertion and a resource the tenant lacks (AADSTS500011)", async () => {
    const id = await asIdentity();
    const t2 = token(await post({ grant_type: "client_credentials", scope: EXCHANGE_SCOPE, ...id }));
    expect(claimsOf(t2).aud).toBe(TOKEN_EXCHANGE_APP_ID);
    const withT2 = await post({ grant_type: "client_credentials", scope: "https://graph.microsoft.com/.default", ...id, client_assertion: t2 });
    expect(codes(withT2)).toEqual([400, "invalid_grant", []]);
    const missing = await post({ grant_type: "client_credentials", scope: "api://no-such-api/.default", ...id });
    expect(codes(missing)).toEqual([400, "invalid_resource", [500011]]);
  });
});

describe("the test-only password grant", () => {
  it("signs the seeded person in through the pre-authorized public client: a v2 token whose audience is the blueprint", async () => {
    const c = claimsOf(await userAssertion(ctx.emulator));
    const user = ctx.emulator.testUser()!;
    expect({ aud: c.aud, azp: c.azp, idtyp: c.idtyp, oid: c.oid, scp: c.scp, ver: c.ver, upn: c.preferred_username }).toEqual({
      aud: ctx.out.blueprintAppId,
      azp: user.clientId,
      idtyp: "user",
      oid: DEFAULT_IDS.sponsorId,
      scp: "access_agent",
      ver: "2.0",
      upn: user.username,
    });
  });

  it("refuses a wrong password (AADSTS50126), an unknown user (50034), an agent user (50126) and a secret from a public client (700025)", async () => {
    const user = ctx.emulator.testUser()!;
    const base = { grant_type: "password", client_id: user.clientId, username: user.username, password: user.password, scope: user.scope };
    expect(codes(await post({ ...base, password: "wrong" }))).toEqual([400, "invalid_grant", [50126]]);
    expect(codes(await post({ ...base, username: "nobody@contoso.onmicrosoft.com" }))).toEqual([400, "invalid_grant", [50034]]);
    // An agent user is refused even holding the very password given: it is the kind of account, not the password, that decides.
    const agentUser = ctx.emulator.store.user(ctx.out.agentUserId!)!;
    Object.assign(agentUser, { password: user.password });
    try {
      expect(codes(await post({ ...base, username: ctx.out.agentUserPrincipalName! }))).toEqual([400, "invalid_grant", [50126]]);
    } finally {
      Object.assign(agentUser, { password: undefined });
    }
    expect(codes(await post({ ...base, client_secret: "s" }))).toEqual([401, "invalid_client", [700025]]);
  });

  it("needs consent or pre-authorization (AADSTS65001) and a scope the API publishes (70011)", async () => {
    const user = ctx.emulator.testUser()!;
    const base = { grant_type: "password", client_id: user.clientId, username: user.username, password: user.password };
    expect(codes(await post({ ...base, scope: "https://graph.microsoft.com/User.Read" }))).toEqual([400, "invalid_grant", [65001]]);
    expect(codes(await post({ ...base, scope: `api://${ctx.out.blueprintAppId}/no_such_scope` }))).toEqual([400, "invalid_scope", [70011]]);
  });
});

describe("the on-behalf-of flow as the agent identity", () => {
  const obo = async (assertion: string, extra: Record<string, string> = {}) =>
    post({ grant_type: OBO, scope: "https://graph.microsoft.com/.default", requested_token_use: "on_behalf_of", assertion, ...(await asIdentity()), ...extra });

  it("mints a delegated token for the person with the agent claims, scp from the identity's consent", async () => {
    const a = await obo(await userAssertion(ctx.emulator));
    expect(a.status).toBe(200);
    expect(a.body.refresh_token).toBeUndefined();
    const c = claimsOf(token(a));
    expect({ idtyp: c.idtyp, oid: c.oid, appid: c.appid, scp: c.scp, idrel: c.xms_idrel, parent: c.xms_par_app_azp, sub: c.xms_sub_fct }).toEqual({
      idtyp: "user",
      oid: DEFAULT_IDS.sponsorId,
      appid: ctx.out.agentIdentityId,
      scp: "User.Read",
      idrel: "1",
      parent: ctx.out.blueprintAppId,
      sub: undefined,
    });
    expect(facets(c.xms_act_fct)).toContain("11");
  });

  it("refuses an assertion for another audience (AADSTS500131), an app token (7000114), a forged one (50013) and a non-JWT (50027)", async () => {
    const agentUserToken = token(
      await post({ grant_type: "user_fic", scope: "https://graph.microsoft.com/.default", ...(await asIdentity()), user_federated_identity_credential: token(await post({ grant_type: "client_credentials", scope: EXCHANGE_SCOPE, ...(await asIdentity()) })), user_id: ctx.out.agentUserId! }),
    );
    expect(codes(await obo(agentUserToken))).toEqual([400, "invalid_grant", [500131]]);
    const appToken = token(await post({ grant_type: "client_credentials", scope: "https://graph.microsoft.com/.default", ...(await asIdentity()) }));
    expect(codes(await obo(appToken))).toEqual([400, "invalid_grant", [7000114]]);
    const [header, payload] = (await userAssertion(ctx.emulator)).split(".");
    expect(codes(await obo(`${header}.${payload}.forged`))).toEqual([400, "invalid_grant", [50013]]);
    expect(codes(await obo("not-a-jwt"))).toEqual([400, "invalid_request", [50027]]);
  });

  it("refuses an expired assertion (AADSTS500133) and a disabled user (50057)", async () => {
    const assertion = await userAssertion(ctx.emulator);
    const { store } = ctx.emulator;
    const realNow = store.now;
    store.now = () => realNow() + 3 * 3600_000;
    try {
      expect(codes(await obo(assertion))).toEqual([400, "invalid_grant", [500133]]);
    } finally {
      store.now = realNow;
    }
    store.updateUser(DEFAULT_IDS.sponsorId, { accountEnabled: false });
    try {
      expect(codes(await obo(assertion))).toEqual([400, "invalid_grant", [50057]]);
    } finally {
      store.updateUser(DEFAULT_IDS.sponsorId, { accountEnabled: true });
    }
  });

  it("needs the identity's delegated consent on the resource (AADSTS65001), T1 as the client assertion, and the on_behalf_of use", async () => {
    const assertion = await userAssertion(ctx.emulator);
    const grant = ctx.emulator.store.deleteGrant(DEFAULT_IDS.oboGrantId)!;
    try {
      expect(codes(await obo(assertion))).toEqual([400, "invalid_grant", [65001]]);
    } finally {
      ctx.emulator.store.createGrant(grant);
    }
    expect(codes(await obo(assertion, { client_assertion: "" }))).toEqual([401, "invalid_client", [7000216]]);
    const noUse = await post({ grant_type: OBO, scope: "https://graph.microsoft.com/.default", assertion, ...(await asIdentity()) });
    expect(codes(noUse)).toEqual([400, "invalid_request", [900144]]);
    expect(codes(await obo(assertion, { scope: "https://graph.microsoft.com/Mail.Read" }))).toEqual([400, "invalid_grant", [65001]]);
  });

  it("takes the consented named scopes as asked", async () => {
    const a = await obo(await userAssertion(ctx.emulator), { scope: "User.Read openid" });
    expect([a.status, claimsOf(token(a)).scp, a.body.scope]).toEqual([200, "User.Read", "User.Read"]);
  });
});

it("the seeded assignment's role is Graph's User.Read.All app role, by the emulator's stable id", () => {
  const graph = ctx.emulator.store.servicePrincipalByAppId(MICROSOFT_GRAPH_APP_ID)!;
  expect(graph.appRoles!.find((r) => r.value === "User.Read.All")!.id).toBe(stableId("graph-role", "User.Read.All"));
});
