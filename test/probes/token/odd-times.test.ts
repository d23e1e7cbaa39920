/**
 * Time values from the wire (`expires_in`, `exp`, `nbf`, `iat`) that no
 * token has: a lifetime of 1e13 seconds, an exp of ±1e20. Each is a named
 * failure of its token (`malformed_answer`, `claims_mismatch`), never a
 * RangeError from a Date; in a fleet it fails its own agent, and the report
 * of the others comes out whole.
 */
import { AgentUserError, ClaimsError } from "../../../lib/errors";
import { checkAgentUserClaims } from "../../../lib/flow-claims";
import { parseTokenResponse } from "../../../lib/token-client";
import type { StackOutputs } from "../../../lib/stack-outputs";
import { AgentUserTokenProvider } from "../../../lib/token-provider";
import { formAnsweringServer, NO_ENV, onlyJson, runCli, scratchDir, writeOutputs } from "../../harness";

const TENANT = "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d";
const IDENTITY = "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9";
const BLUEPRINT = "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70";
/** Agent users, each answered as its name says. */
const USERS = {
  good: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
  longLife: "11111111-1111-4111-8111-111111111111",
  farExp: "22222222-2222-4222-8222-222222222222",
  pastExp: "33333333-3333-4333-8333-333333333333",
  farNbf: "44444444-4444-4444-8444-444444444444",
  alsoGood: "55555555-5555-4555-8555-555555555555",
} as const;

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

/** The final token's answer for an agent user: good claims, bent as the user's name says. */
function finalAnswer(user: string): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { idtyp: "user", oid: user, azp: IDENTITY, tid: TENANT, aud: "https://graph.microsoft.com", iat: now, nbf: now, exp: now + 3600 };
  const answer = (patch: Record<string, unknown>, expiresIn: unknown = 3600) => ({ token_type: "Bearer", expires_in: expiresIn, access_token: jwt({ ...claims, ...patch }) });
  switch (user) {
    case USERS.longLife:
      return answer({}, 1e13);
    case USERS.farExp:
      return answer({ exp: 1e20 });
    case USERS.pastExp:
      return answer({ exp: -1e20 });
    case USERS.farNbf:
      return answer({ nbf: 1e20, iat: -1e20 });
    default:
      return answer({});
  }
}

let idp: Awaited<ReturnType<typeof formAnsweringServer>>;
let base: string;
const scratch = scratchDir();

beforeAll(async () => {
  idp = await formAnsweringServer((form) => {
    const now = Math.floor(Date.now() / 1000);
    return form.get("grant_type") === "user_fic" ? finalAnswer(form.get("user_id") ?? "") : { token_type: "Bearer", expires_in: 3600, access_token: jwt({ idtyp: "app", tid: TENANT, exp: now + 3600 }) };
  });
  base = idp.base;
});
afterAll(async () => {
  await idp.close();
  scratch.remove();
});

const provider = (agentUser: string) =>
  new AgentUserTokenProvider({ authorityUrl: base, tenantId: TENANT, blueprintAppId: BLUEPRINT, credential: { kind: "secret", secret: "s" }, agentIdentityId: IDENTITY, agentUser });

describe("the library", () => {
  it("an expires_in of 1e13 (or of 8 days, or true) is a malformed answer, not a date out of range", () => {
    for (const expiresIn of [1e13, "1e13", 8 * 24 * 3600, true]) {
      let err: unknown;
      try {
        parseTokenResponse("hop 3 (agent user token)", 200, JSON.stringify({ access_token: "a.b.c", expires_in: expiresIn }), { hop: 3 });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AgentUserError);
      expect(err).toMatchObject({ code: "malformed_answer", hop: 3, exitCode: 3 });
    }
    expect(() => parseTokenResponse("hop 3", 200, JSON.stringify({ access_token: "a.b.c", expires_in: 3600, ext_expires_in: 1e13 }))).toThrow(/ext_expires_in is 10000000000000 seconds, longer than any token lives/);
    expect(parseTokenResponse("hop 3", 200, JSON.stringify({ access_token: "a.b.c", expires_in: "5399", ext_expires_in: 5399 }))).toMatchObject({ expires_in: 5399, ext_expires_in: 5399 });
  });

  it("checkAgentUserClaims: an exp of ±1e20, and an nbf or iat of ±1e20, are mismatches shown as the number, never a RangeError", () => {
    const now = Date.now();
    const good = { idtyp: "user", oid: USERS.good, azp: IDENTITY, tid: TENANT, exp: Math.floor(now / 1000) + 3600 };
    const expected = { agentIdentityId: IDENTITY, agentUser: USERS.good, tenantId: TENANT, now };
    expect(checkAgentUserClaims(good, expected)).toEqual([]);
    expect(checkAgentUserClaims({ ...good, exp: 1e20 }, expected)).toEqual([{ claim: "exp", expected: "a time after now, at most 7 days ahead", actual: "100000000000000000000" }]);
    expect(checkAgentUserClaims({ ...good, exp: -1e20 }, expected)).toEqual([{ claim: "exp", expected: "a time after now, at most 7 days ahead", actual: "-100000000000000000000" }]);
    expect(checkAgentUserClaims({ ...good, nbf: 1e20, iat: -1e20 }, expected).map((m) => m.claim)).toEqual(["nbf", "iat"]);
    // Eight days ahead is a date, shown as one.
    const eightDays = Math.floor(now / 1000) + 8 * 24 * 3600;
    expect(checkAgentUserClaims({ ...good, exp: eightDays }, expected)).toEqual([{ claim: "exp", expected: "a time after now, at most 7 days ahead", actual: new Date(eightDays * 1000).toISOString() }]);
  });

  it("getToken: a final token with exp 1e20 is a ClaimsError (exit 5), one with expires_in 1e13 a malformed answer (exit 3)", async () => {
    const far = await provider(USERS.farExp).getToken().catch((e: unknown) => e);
    expect(far).toBeInstanceOf(ClaimsError);
    expect(far).toMatchObject({ code: "claims_mismatch", exitCode: 5, hop: 3 });
    expect((far as Error).message).toContain('exp is "100000000000000000000"');
    const long = await provider(USERS.longLife).getToken().catch((e: unknown) => e);
    expect(long).toBeInstanceOf(AgentUserError);
    expect(long).toMatchObject({ code: "malformed_answer", exitCode: 3, hop: 3 });
  });
});

describe("agent-user token", () => {
  const outputs = (): StackOutputs => ({ tenantId: TENANT, authorityUrl: base, graphUrl: base, resourceUrl: "https://graph.microsoft.com", blueprintAppId: BLUEPRINT, blueprintClientSecret: "s", agentIdentityId: IDENTITY, agentUserId: USERS.good });
  const fleet = () =>
    writeOutputs(scratch.dir, outputs(), {
      agents: Object.fromEntries(Object.entries(USERS).map(([name, id]) => [name, { agentIdentityId: IDENTITY, agentUserId: id, agentUserPrincipalName: `${name}@contoso.onmicrosoft.com` }])),
    });

  it("a single token with exp 1e20 is exit 5 claims_mismatch, not exit 70", async () => {
    const run = await runCli(["token", "--outputs", writeOutputs(scratch.dir, outputs(), { agentUserId: USERS.farExp }), "--json"], NO_ENV);
    expect(run.code).toBe(5);
    expect(onlyJson(run)).toMatchObject({ ok: false, error: "claims_mismatch", hop: 3 });
  });

  it("--all --json: the whole fleet's report, each odd agent failed by name, the good ones ok", async () => {
    const run = await runCli(["token", "--outputs", fleet(), "--all", "--json"], NO_ENV);
    expect(run.code).toBe(5);
    const json = onlyJson(run) as { ok: boolean; agents: Array<Record<string, unknown>> };
    expect(json.agents.map((a) => [a.name, a.ok, a.error])).toEqual([
      ["good", true, undefined],
      ["longLife", false, "malformed_answer"],
      ["farExp", false, "claims_mismatch"],
      ["pastExp", false, "claims_mismatch"],
      ["farNbf", false, "claims_mismatch"],
      ["alsoGood", true, undefined],
    ]);
  });

  it("--all: the table has every agent, the odd ones failed", async () => {
    const run = await runCli(["token", "--outputs", fleet(), "--all"], NO_ENV);
    expect(run.code).toBe(5);
    const rows = run.stdout.trimEnd().split("\n");
    expect(rows.slice(1, -1).map((r) => r.split(/\s+/).slice(0, 2))).toEqual([
      ["good", "ok"],
      ["longLife", "malformed_answer"],
      ["farExp", "claims_mismatch"],
      ["pastExp", "claims_mismatch"],
      ["farNbf", "claims_mismatch"],
      ["alsoGood", "ok"],
    ]);
    expect(rows.at(-1)).toBe("6 agents: 2 ok, 4 failed");
  });
});
