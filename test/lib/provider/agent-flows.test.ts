/**
 * One provider, three flows, against the emulator over real HTTP: the agent
 * user token, the agent identity's own app token and an on-behalf-of token
 * for a person, on one cache where T1 is requested once per agent identity
 * for all three; each flow's claims checked, its errors naming its hop and
 * the fix, its credential following AgentUserCredential's conventions.
 */
import { AgentAppCredential, AgentOnBehalfOfCredential, AgentUserTokenProvider, ClaimsError, CredentialUnavailableError, TokenEndpointError, UsageError } from "../../../lib";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { PUBLIC_CLOUD } from "../../../lib/entra-rules";
import { claimsOf, recordingDispatcher, tokenStatuses, useEmulator, userAssertion } from "../../harness";

// The on-behalf-of tests sign the seeded person in: a start gives a person a password only when asked.
const ctx = useEmulator({ testUser: true });
const GRAPH = `${PUBLIC_CLOUD.graphUrl}/.default`;

/** The form of each token request `sent` holds, by the grant it asked for. */
const grants = (sent: ReadonlyArray<{ form: Record<string, string> }>) => sent.map((s) => (s.form.fmi_path ? "T1" : s.form.grant_type));

describe("one provider, three flows", () => {
  it("mints the agent user, app and on-behalf-of tokens with T1 requested once for the agent identity", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { dispatcher });
    const assertion = await userAssertion(ctx.emulator);
    const user = await provider.getToken();
    const app = await provider.getAppToken();
    const obo = await provider.getOnBehalfOfToken({ userAssertion: assertion });
    expect(grants(sent)).toEqual(["T1", "client_credentials", "user_fic", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"]);
    expect([user.claims.idtyp, user.claims.oid]).toEqual(["user", ctx.out.agentUserId]);
    expect([app.claims.idtyp, app.claims.oid, app.claims.roles]).toEqual(["app", ctx.out.agentIdentityId, ["User.Read.All"]]);
    expect([obo.claims.idtyp, obo.claims.oid, obo.claims.appid]).toEqual(["user", DEFAULT_IDS.sponsorId, ctx.out.agentIdentityId]);
    expect(app.hops.map((h) => [h.step, h.cached])).toEqual([
      ["hop 1 (blueprint token)", true],
      ["hop 2 (agent app token)", false],
    ]);
    expect(obo.hops.map((h) => h.step)).toEqual(["hop 1 (blueprint token)", "hop 2 (on-behalf-of token)"]);
    // The on-behalf-of request asks for no refresh token, and none is kept.
    const oboForm = sent.at(-1)!.form;
    expect([oboForm.scope, oboForm.requested_token_use, oboForm.assertion === assertion]).toEqual([`${PUBLIC_CLOUD.resourceUrl}/.default`, "on_behalf_of", true]);
  });

  it("serves the same assertion's token from the cache, mints anew for a new assertion, and never renews one in the background", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const first = await userAssertion(ctx.emulator);
    const a = await provider.getOnBehalfOfToken({ userAssertion: first });
    const before = ctx.emulator.requests.length;
    const again = await provider.getOnBehalfOfToken({ userAssertion: first });
    expect([again.token, tokenStatuses(ctx.emulator, before)]).toEqual([a.token, []]);
    // Served until 5 minutes before it expires, and then only a new call with a current assertion mints one.
    expect(a.refreshAfterTimestamp).toBe(a.expiresOnTimestamp - 5 * 60_000);
    const second = await provider.getOnBehalfOfToken({ userAssertion: await userAssertion(ctx.emulator) });
    expect(second.token).not.toBe(a.token);
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200]);
  });

  it("checks the app token's roles when asked: a missing one is a ClaimsError that names the assignment to make", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    expect((await provider.getAppToken({ roles: ["User.Read.All"] })).claims.roles).toEqual(["User.Read.All"]);
    const err = await provider.getAppToken({ roles: ["User.Read.All", "Mail.Read"], fresh: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClaimsError);
    const claims = err as ClaimsError;
    expect([claims.exitCode, claims.hop, claims.step]).toEqual([5, 2, "hop 2 (agent app token)"]);
    expect(claims.message).toMatch(/roles is "User\.Read\.All", expected "to hold Mail\.Read"; it is an agent identity's own app token/);
    expect(claims.hint).toMatch(/no app role assignment for Mail\.Read on .*appRoles.*pulumi up.*agent-user doctor/);
  });

  /** What tells one refusal from another, for comparing a served token's with a fresh mint's. */
  const refusalOf = async (promise: Promise<unknown>) => {
    const err = (await promise.then(
      () => undefined,
      (e: unknown) => e,
    )) as ClaimsError | undefined;
    expect(err).toBeInstanceOf(ClaimsError);
    return { name: err!.name, step: err!.step, hop: err!.hop, exitCode: err!.exitCode, message: err!.message, hint: err!.hint };
  };

  it("checks the roles asked for on a cached token too: a role the token lacks is the error a fresh mint gives", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const fresh = await refusalOf(provider.getAppToken({ roles: ["Mail.Read"], fresh: true }));
    await provider.getAppToken();
    const before = ctx.emulator.requests.length;
    expect(await refusalOf(provider.getAppToken({ roles: ["Mail.Read"] }))).toEqual(fresh);
    // Asked anew rather than refused from the cache: the cached token may predate the assignment.
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200]);
    // The token stays served to callers who ask for what it holds.
    expect((await provider.getAppToken({ roles: ["User.Read.All"] })).claims.roles).toEqual(["User.Read.All"]);
  });

  it.each([
    ["first", 0],
    ["second", 1],
  ])("checks each caller's roles on a shared request: the one asking for a role the token lacks (%s) fails, the other gets the token", async (_order, index) => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    const asks = [{ roles: ["Mail.Read"] }, {}];
    if (index === 1) asks.reverse();
    const [a, b] = await Promise.allSettled(asks.map((ask) => provider.getAppToken(ask)));
    const [unassigned, plain] = index === 0 ? [a!, b!] : [b!, a!];
    expect(unassigned.status).toBe("rejected");
    expect((unassigned as PromiseRejectedResult).reason).toBeInstanceOf(ClaimsError);
    expect((unassigned as PromiseRejectedResult).reason).toMatchObject({ step: "hop 2 (agent app token)", hop: 2, message: expect.stringMatching(/expected "to hold Mail\.Read"/) });
    expect(plain.status).toBe("fulfilled");
    // One request for both: T1 and the app token.
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200]);
  });

  it("names the first missing roles of 100,000 asked for and counts the rest, in a hint and an error of a few hundred characters", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const roles = Array.from({ length: 100_000 }, (_, i) => `Role${i}.Read`);
    const err = (await provider.getAppToken({ roles }).catch((e: unknown) => e)) as ClaimsError;
    expect(err).toBeInstanceOf(ClaimsError);
    expect(err.hint).toMatch(/no app role assignment for Role0\.Read, Role1\.Read, Role2\.Read, Role3\.Read, Role4\.Read and 99,995 more on /);
    expect(err.mismatches).toEqual([{ claim: "roles", expected: "to hold Role0.Read, Role1.Read, Role2.Read, Role3.Read, Role4.Read and 99,995 more", actual: "User.Read.All" }]);
    expect(`${err.message}${err.hint}${JSON.stringify(err)}`.length).toBeLessThan(2000);
  });

  it("names the person's assertion, not the client assertion, when it is no JWT (AADSTS50027 on the on-behalf-of hop)", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const err = (await provider.getOnBehalfOfToken({ userAssertion: "not-a-jwt" }).catch((e: unknown) => e)) as TokenEndpointError;
    expect(err).toBeInstanceOf(TokenEndpointError);
    expect([err.step, err.hop, err.codes, err.exitCode]).toEqual(["hop 2 (on-behalf-of token)", 2, [50027], 3]);
    expect(err.hint).toMatch(/^the person's assertion \(`userAssertion`\) is not a well-formed JWT: pass the signed-in person's access token/);
    expect(err.hint).not.toMatch(/client assertion/);
  });

  it("refuses a person's assertion longer than any Entra token (64 KiB) before anything is sent, naming the option", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    const err = (await provider.getOnBehalfOfToken({ userAssertion: "x".repeat(64 * 1024 + 1) }).catch((e: unknown) => e)) as UsageError;
    expect(err).toBeInstanceOf(UsageError);
    expect([err.step, err.exitCode]).toEqual(["on-behalf-of token", 2]);
    expect(err.message).toBe(
      "on-behalf-of token: userAssertion of getOnBehalfOfToken() is 65,537 characters, more than any access token Entra issues (at most 65,536, 64 KiB): pass the person's access token alone",
    );
    expect(ctx.emulator.requests.length).toBe(before);
    // At the bound it is sent, and the identity provider judges it.
    const atBound = await provider.getOnBehalfOfToken({ userAssertion: "x".repeat(64 * 1024) }).catch((e: unknown) => e);
    expect(atBound).toMatchObject({ codes: [50027] });
  });

  it("names the on-behalf-of hop and the missing consent when the identity has none (AADSTS65001)", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const grant = ctx.emulator.store.deleteGrant(DEFAULT_IDS.oboGrantId)!;
    try {
      const err = (await provider.getOnBehalfOfToken({ userAssertion: await userAssertion(ctx.emulator) }).catch((e: unknown) => e)) as TokenEndpointError;
      expect(err).toBeInstanceOf(TokenEndpointError);
      expect([err.step, err.hop, err.codes, err.exitCode]).toEqual(["hop 2 (on-behalf-of token)", 2, [65001], 3]);
      expect(err.hint).toMatch(/no delegated consent to act for users on this resource.*onBehalfOf/);
    } finally {
      ctx.emulator.store.createGrant(grant);
    }
  });

  it("names a user assertion for another audience (AADSTS500131)", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const wrong = (await provider.getToken()).token;
    const err = (await provider.getOnBehalfOfToken({ userAssertion: wrong }).catch((e: unknown) => e)) as TokenEndpointError;
    // What a peer that echoes the assertion gets is test/lib/token/hostile-idp's.
    expect([err.codes, err.hint]).toEqual([[500131], expect.stringMatching(/audience is not the blueprint/)]);
  });

  it("refuses a request without a user assertion, or with one that is no token, before anything is sent", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    await expect(provider.getOnBehalfOfToken({} as never)).rejects.toThrow(UsageError);
    await expect(provider.getOnBehalfOfToken({ userAssertion: "two words" })).rejects.toThrow(/userAssertion of getOnBehalfOfToken\(\) must be the user's access token.*a string of 9 characters/);
    await expect(provider.getAppToken({ roles: "User.Read.All" } as never)).rejects.toThrow(/roles of getAppToken\(\) must be a list/);
    expect(ctx.emulator.requests.length).toBe(before);
  });
});

describe("AgentAppCredential and AgentOnBehalfOfCredential", () => {
  it("give Azure SDK AccessTokens for a scope's resource, from the stack outputs", async () => {
    const app = await AgentAppCredential.fromStackOutputs(ctx.emulator.outputs()).getToken(GRAPH);
    expect(Object.keys(app).sort()).toEqual(["expiresOnTimestamp", "refreshAfterTimestamp", "token", "tokenType"]);
    expect(claimsOf(app.token).idtyp).toBe("app");
    let asked = 0;
    const obo = AgentOnBehalfOfCredential.fromStackOutputs(ctx.emulator.outputs(), {}, { userAssertion: () => (asked++, userAssertion(ctx.emulator)) });
    const token = await obo.getToken("User.Read");
    expect([claimsOf(token.token).oid, asked]).toEqual([DEFAULT_IDS.sponsorId, 1]);
    await obo.getToken("User.Read");
    expect(asked).toBe(2);
  });

  it("are unavailable, not failing, when configuration or the user assertion is missing, and refuse a tenant not allowed", async () => {
    const unconfigured = AgentAppCredential.fromEnvironment({});
    await expect(unconfigured.getToken(GRAPH)).rejects.toMatchObject({ name: "CredentialUnavailableError", step: "AgentAppCredential" });
    const noUser = AgentOnBehalfOfCredential.fromStackOutputs(ctx.emulator.outputs());
    await expect(noUser.getToken(GRAPH)).rejects.toThrow(CredentialUnavailableError);
    await expect(noUser.getToken(GRAPH)).rejects.toThrow(/no user assertion/);
    const elsewhere = AgentAppCredential.fromStackOutputs(ctx.emulator.outputs());
    await expect(elsewhere.getToken(GRAPH, { tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47" })).rejects.toThrow(/additionallyAllowedTenants/);
  });

  it("pass a claims challenge and the cp1 capability on to the final hop", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const credential = AgentAppCredential.fromStackOutputs(ctx.emulator.outputs(), { dispatcher });
    const token = await credential.getToken(GRAPH, { enableCae: true, claims: JSON.stringify({ access_token: { nbf: { essential: true, value: "1" } } }) });
    expect(JSON.parse(sent.at(-1)!.form.claims!)).toEqual({ access_token: { nbf: { essential: true, value: "1" }, xms_cc: { values: ["cp1"] } } });
    expect(claimsOf(token.token).xms_cc).toEqual(["cp1"]);
  });
});
