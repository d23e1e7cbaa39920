/**
 * The whole final token is checked: a hostile or broken identity provider
 * that answers with an expired token, a token for another resource, or a
 * token of another tenant than T1's gets exit 5 with the claim named.
 */
import { ClaimsError } from "../../../lib/errors";
import { AgentUserTokenProvider } from "../../../lib/token-provider";
import { formAnsweringServer } from "../../harness";

const TENANT_TID = "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d";
const IDENTITY = "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9";
const USER = "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d";
const BLUEPRINT = "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70";

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

let idp: Awaited<ReturnType<typeof formAnsweringServer>>;
let base: string;
/** What the next hop-3 answer's claims are overridden with. */
let finalClaims: Record<string, unknown> = {};

beforeAll(async () => {
  idp = await formAnsweringServer((form) => {
    const now = Math.floor(Date.now() / 1000);
    const good = { idtyp: "user", oid: USER, azp: IDENTITY, tid: TENANT_TID, aud: "https://graph.microsoft.com", exp: now + 3600 };
    const claims = form.get("grant_type") === "user_fic" ? { ...good, ...finalClaims } : { idtyp: "app", tid: TENANT_TID, exp: now + 3600 };
    return { token_type: "Bearer", expires_in: 3600, access_token: jwt(claims) };
  });
  base = idp.base;
});
afterAll(() => idp.close());

function provider(tenantId: string): AgentUserTokenProvider {
  return new AgentUserTokenProvider({ authorityUrl: base, tenantId, blueprintAppId: BLUEPRINT, credential: { kind: "secret", secret: "s" }, agentIdentityId: IDENTITY, agentUser: USER });
}

async function mismatch(tenantId: string, claims: Record<string, unknown>): Promise<ClaimsError> {
  finalClaims = claims;
  const err = await provider(tenantId).getToken().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClaimsError);
  expect((err as ClaimsError).exitCode).toBe(5);
  return err as ClaimsError;
}

it("accepts a good token, with aud as Graph's URL or its appId", async () => {
  for (const aud of ["https://graph.microsoft.com", "00000003-0000-0000-c000-000000000000"]) {
    finalClaims = { aud };
    await expect(provider(TENANT_TID).getToken()).resolves.toMatchObject({ claims: { aud } });
  }
});

it("refuses an exp already in the past", async () => {
  const err = await mismatch(TENANT_TID, { exp: Math.floor(Date.now() / 1000) - 60 });
  expect(err.mismatches.map((m) => m.claim)).toEqual(["exp"]);
});

it("refuses an aud that is not the requested resource", async () => {
  const err = await mismatch(TENANT_TID, { aud: "https://management.azure.com" });
  expect(err.mismatches).toEqual([{ claim: "aud", expected: "https://graph.microsoft.com", actual: "https://management.azure.com" }]);
  expect(err.message).toContain('aud is "https://management.azure.com", expected "https://graph.microsoft.com"');
});

it("checks tid against T1's when the tenant was given as a domain", async () => {
  const err = await mismatch("contoso.onmicrosoft.com", { tid: "11111111-2222-4333-8444-555555555555" });
  expect(err.mismatches).toEqual([{ claim: "tid", expected: TENANT_TID, actual: "11111111-2222-4333-8444-555555555555" }]);
});
