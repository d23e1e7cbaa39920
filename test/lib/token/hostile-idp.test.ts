/**
 * A hostile or broken identity provider (or a proxy) that echoes what it was
 * sent, or answers with fields of the wrong type: each ends in a named
 * failure with its exit code, never exit 70, and nothing sent comes back out.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GraphClient } from "../../../lib/graph-client";
import { AgentUserTokenProvider } from "../../../lib/token-provider";
import { failureJson } from "../../../probes/report";
import { AgentUserError } from "../../../lib/errors";
import { requestToken, tokenEndpoint } from "../../../lib/token-client";

const SECRET = "hostile-test-client-secret-3f9a1c";
let server: Server;
let base: string;
/** What the server answers, from the form it received. */
let answer: (form: URLSearchParams, headers: Record<string, string | string[] | undefined>) => { status: number; body: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const { status, body: text } = answer(new URLSearchParams(body), req.headers);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(text);
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((done) => server.close(done)));

const provider = () =>
  new AgentUserTokenProvider({
    authorityUrl: base,
    tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d",
    blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
    credential: { kind: "secret", secret: SECRET },
    agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
    agentUser: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
  });

async function failure(): Promise<AgentUserError> {
  const err = await provider().getToken().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AgentUserError);
  return err as AgentUserError;
}

const everything = (err: AgentUserError) => `${err.message}\n${err.hint}\n${JSON.stringify(failureJson(err))}\n${JSON.stringify(err)}`;

it("an answer that echoes the client secret in every field leaks it nowhere", async () => {
  answer = (form) => ({
    status: 401,
    body: JSON.stringify({ error: `invalid_client ${form.get("client_secret")}`, error_description: `AADSTS7000215: bad secret ${form.get("client_secret")}`, error_codes: [7000215] }),
  });
  const err = await failure();
  expect(err.exitCode).toBe(3);
  expect(everything(err)).not.toContain(SECRET);
  expect(err.message).toContain("[redacted]");
});

it("an answer that echoes the person's token of an on-behalf-of request, in the error code and the description, leaks it nowhere", async () => {
  const PERSON = "opaque-person-assertion-7d2e9b41c0";
  answer = (form) => ({
    status: 400,
    body: JSON.stringify({ error: `invalid_grant ${form.get("assertion")}`, error_description: `AADSTS50013: bad assertion=${form.get("assertion")}`, error_codes: [50013] }),
  });
  const form = { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", client_id: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9", assertion: PERSON, requested_token_use: "on_behalf_of", scope: "https://graph.microsoft.com/.default" };
  const err = (await requestToken("hop 2 (on-behalf-of token)", tokenEndpoint(base, "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d"), form).catch((e: unknown) => e)) as AgentUserError;
  expect(err).toBeInstanceOf(AgentUserError);
  expect(everything(err)).not.toContain(PERSON);
  expect(err.message).toContain("[redacted]");
});

it("error_codes as a string and error_description as an object are reported, not a crash", async () => {
  answer = () => ({ status: 400, body: JSON.stringify({ error: "invalid_request", error_description: { nested: true }, error_codes: "7000215" }) });
  const err = await failure();
  expect(err.exitCode).toBe(3);
  expect(failureJson(err)).toMatchObject({ hop: 1, error: "invalid_request", codes: [] });
});

it("a line break inside access_token is a malformed answer: exit 3, final, not retried", async () => {
  let requests = 0;
  answer = () => {
    requests++;
    return { status: 200, body: JSON.stringify({ token_type: "Bearer", expires_in: 3600, access_token: "eyJhbGciOiJub25lIn0.e30.\r\nX-Injected: 1" }) };
  };
  const err = await failure();
  expect(err.exitCode).toBe(3);
  expect(err.message).toMatch(/^hop 1 \(blueprint token\): malformed answer: the access_token holds whitespace, line breaks/);
  expect(requests).toBe(1);
});

describe("a 200 that is not a token is a malformed answer: exit 3, final, not retried", () => {
  it.each([
    ["access_token a number", JSON.stringify({ token_type: "Bearer", expires_in: 3600, access_token: 42 }), /access_token is missing or not a string/],
    ["no expires_in", JSON.stringify({ token_type: "Bearer", access_token: "eyJhbGciOiJub25lIn0.e30.x" }), /expires_in is missing or not a positive number/],
    ["a body that is not JSON", "<html>sign in to the proxy</html>", /the answer is not a JSON object/],
  ])("%s", async (_name, body, reason) => {
    let requests = 0;
    answer = () => (requests++, { status: 200, body });
    const err = await failure();
    expect(err.exitCode).toBe(3);
    expect(err.message).toMatch(reason);
    expect(failureJson(err)).toMatchObject({ hop: 1, error: "malformed_answer", status: null });
    expect(requests).toBe(1);
  });
});

it("an error answer with no AADSTS code says where to look, with no placeholder in the hint", async () => {
  answer = () => ({ status: 400, body: JSON.stringify({ error: "invalid_request" }) });
  const err = await failure();
  expect(err.hint).toBe("the answer carries no AADSTS code: check the authority URL and any proxy in front of it, then the error description");
  answer = () => ({ status: 400, body: JSON.stringify({ error: "invalid_request", error_codes: [90000] }) });
  expect((await failure()).hint).toBe("see the error description and https://login.microsoftonline.com/error?code=90000");
});

it("a Graph error whose message is an object, and that echoes the bearer token, is a GraphError without it", async () => {
  const token = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.hostile-bearer-token";
  answer = (_form, headers) => ({ status: 400, body: JSON.stringify({ error: { code: "BadRequest", message: { echo: headers.authorization }, innerError: { code: { nested: 1 }, innerError: "x" } } }) });
  const graph = new GraphClient({ baseUrl: base, getToken: async () => token });
  const err = (await graph.call("GET", "/v1.0/me").catch((e: unknown) => e)) as AgentUserError & { code: string; codes: string[]; response: { body: string } };
  expect(err.exitCode).toBe(3);
  expect(err.code).toBe("BadRequest");
  expect(err.codes).toEqual([]);
  expect(`${err.message} ${err.response.body}`).not.toContain(token);
});

describe("a final token that is not a JWT is named as such, not reported as a list of wrong claims", () => {
  const b64 = (text: string) => Buffer.from(text).toString("base64url");
  it.each([
    ["an opaque token", "opaque-reference-token", /not a JWT: it has 1 dot-separated part, where a JWT has 3/],
    ["an encrypted token (JWE)", "h.k.iv.ct.tag", /not a JWT: it has 5 dot-separated parts, as an encrypted token \(JWE\) has/],
    ["claims that are not JSON", `${b64('{"alg":"RS256"}')}.${b64("not json")}.sig`, /not a JWT: its middle part \(the claims\) is not base64url-encoded JSON/],
    ["claims that are a JSON string", `${b64('{"alg":"RS256"}')}.${b64('"claims"')}.sig`, /not a JWT: its middle part \(the claims\) is a string in JSON, not an object/],
    ["claims that are a JSON array", `${b64('{"alg":"RS256"}')}.${b64('[{"aud":"x"}]')}.sig`, /not a JWT: its middle part \(the claims\) is an array in JSON, not an object/],
  ])("%s: exit 5, error not_a_jwt, the reason in the message", async (_name, token, reason) => {
    answer = () => ({ status: 200, body: JSON.stringify({ token_type: "Bearer", access_token: token, expires_in: 3600 }) });
    const err = await failure();
    expect(err.exitCode).toBe(5);
    expect(err.message).toMatch(reason);
    expect(err.message).not.toMatch(/claims are wrong/);
    expect(failureJson(err)).toMatchObject({ hop: 3, step: "hop 3 (agent user token)", status: null, error: "not_a_jwt", codes: [] });
    expect(everything(err)).not.toContain(token);
  });
});
