/**
 * Each flow's final token is checked against what its flow mints, and a
 * wrong one says which flow it looks like it came from: an identity provider
 * (here a stand-in over real HTTP) that answers one flow with another
 * flow's token, or another blueprint's, gets exit 5 with the origin named.
 */
import { ClaimsError } from "../../../lib/errors";
import { checkAppClaims, checkOnBehalfOfClaims, tokenOrigin } from "../../../lib/flow-claims";
import { AgentUserTokenProvider } from "../../../lib/token-provider";
import { formAnsweringServer } from "../../harness";

const TENANT = "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d";
const IDENTITY = "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9";
const USER = "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d";
const PERSON = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const BLUEPRINT = "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70";
const GRAPH = "https://graph.microsoft.com";

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;
const now = () => Math.floor(Date.now() / 1000);

const APP_TOKEN = { idtyp: "app", oid: IDENTITY, appid: IDENTITY, tid: TENANT, aud: GRAPH, xms_par_app_azp: BLUEPRINT, xms_act_fct: "3 11", xms_sub_fct: "3 11" };
const AGENT_USER_TOKEN = { idtyp: "user", oid: USER, appid: IDENTITY, tid: TENANT, aud: GRAPH, xms_par_app_azp: BLUEPRINT, xms_act_fct: "3 11", xms_sub_fct: "3 13" };
const OBO_TOKEN = { idtyp: "user", oid: PERSON, appid: IDENTITY, tid: TENANT, aud: GRAPH, xms_par_app_azp: BLUEPRINT, xms_act_fct: "3 11" };

let idp: Awaited<ReturnType<typeof formAnsweringServer>>;
/** The final token's claims the stand-in answers with next. */
let final: Record<string, unknown> = {};

beforeAll(async () => {
  idp = await formAnsweringServer((form) => {
    const claims = form.get("fmi_path") ? { idtyp: "app", tid: TENANT, exp: now() + 3600 } : { ...final, exp: now() + 3600 };
    return { token_type: "Bearer", expires_in: 3600, access_token: jwt(claims) };
  });
});
afterAll(() => idp.close());

const provider = () =>
  new AgentUserTokenProvider({ authorityUrl: idp.base, tenantId: TENANT, blueprintAppId: BLUEPRINT, credential: { kind: "secret", secret: "s" }, agentIdentityId: IDENTITY, agentUser: USER });

async function refused(mint: (p: AgentUserTokenProvider) => Promise<unknown>, claims: Record<string, unknown>): Promise<ClaimsError> {
  final = claims;
  const err = await mint(provider()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClaimsError);
  return err as ClaimsError;
}

it("an app token answered for the agent user flow is refused as the autonomous app flow's", async () => {
  const err = await refused((p) => p.getToken(), APP_TOKEN);
  expect(err.mismatches.map((m) => m.claim)).toEqual(["idtyp", "oid"]);
  expect(err.message).toMatch(/it is an agent identity's own app token of client e1d2c3b4-.* \(the autonomous app flow\)$/);
});

it("an agent user token answered for the app flow, and a person's token, are named as theirs", async () => {
  expect((await refused((p) => p.getAppToken(), AGENT_USER_TOKEN)).message).toMatch(/it is an agent user token .*\(the autonomous agent user flow\)$/);
  expect((await refused((p) => p.getAppToken(), OBO_TOKEN)).message).toMatch(/it is a token for a human user .*\(the on-behalf-of flow\)$/);
});

it("a token of another blueprint's agent identity is refused on xms_par_app_azp", async () => {
  const err = await refused((p) => p.getAppToken(), { ...APP_TOKEN, xms_par_app_azp: "11111111-2222-4333-8444-555555555555" });
  expect(err.mismatches).toEqual([{ claim: "xms_par_app_azp", expected: BLUEPRINT, actual: "11111111-2222-4333-8444-555555555555" }]);
});

it("an on-behalf-of token must be for the user the assertion names", async () => {
  const assertion = jwt({ oid: PERSON, aud: BLUEPRINT, idtyp: "user" });
  final = OBO_TOKEN;
  await expect(provider().getOnBehalfOfToken({ userAssertion: assertion })).resolves.toMatchObject({ claims: { oid: PERSON } });
  const err = await refused((p) => p.getOnBehalfOfToken({ userAssertion: jwt({ oid: PERSON, aud: BLUEPRINT, n: 2 }) }), { ...OBO_TOKEN, oid: USER });
  expect(err.mismatches).toEqual([{ claim: "oid", expected: PERSON, actual: USER }]);
});

describe("the checks themselves", () => {
  const facts = { tenantId: TENANT, blueprintAppId: BLUEPRINT, resourceUrl: GRAPH };
  it("accept each flow's own token, and a token without the optional xms_par_app_azp", () => {
    expect(checkAppClaims(APP_TOKEN, { ...facts, agentIdentityId: IDENTITY })).toEqual([]);
    expect(checkOnBehalfOfClaims({ ...OBO_TOKEN, xms_par_app_azp: undefined }, { ...facts, agentIdentityId: IDENTITY, userObjectId: PERSON })).toEqual([]);
  });
  it("name another application's token, and a token with no idtyp", () => {
    expect(tokenOrigin({ idtyp: "app", appid: "x" })).toBe("an application's app-only token of client x, not an agent identity's");
    expect(tokenOrigin({})).toBe("a token without idtyp, from no agent flow");
  });
});
