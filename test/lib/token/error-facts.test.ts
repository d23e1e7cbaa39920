/**
 * Each error carries its facts (code, hop, status, codes, Retry-After, cause)
 * as fields given to its constructor, over real HTTP: a caller branches on
 * them, never on the message text.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentUserError, NetworkError } from "../../../lib/errors";
import { GraphClient, GraphError } from "../../../lib/graph-client";
import { TokenSource } from "../../../lib/token-source";
import { ONE_ATTEMPT } from "../../../lib/retry";
import { TokenEndpointError } from "../../../lib/token-client";
import { failureJson } from "../../../probes/report";
import { agentUserToken } from "../../harness";

const BLUEPRINT = "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70";
const IDENTITY = "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9";
let server: Server;
let base: string;
let answer: (form: URLSearchParams) => { status: number; headers?: Record<string, string>; body: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const { status, headers, body: text } = answer(new URLSearchParams(body));
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(text);
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((done) => server.close(done)));

const chain = (authorityUrl: string) =>
  new TokenSource({ authorityUrl, tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d", blueprintAppId: BLUEPRINT, credential: { kind: "secret", secret: "s" }, retry: ONE_ATTEMPT });

async function failure(promise: Promise<unknown>): Promise<AgentUserError> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AgentUserError);
  return err as AgentUserError;
}

it("a throttled hop 2 names its hop, status, AADSTS code and Retry-After", async () => {
  answer = (form) =>
    form.get("client_id") === BLUEPRINT
      ? { status: 200, body: JSON.stringify({ token_type: "Bearer", access_token: "t1", expires_in: 3600 }) }
      : { status: 429, headers: { "retry-after": "7" }, body: JSON.stringify({ error: "temporarily_unavailable", error_codes: [50196] }) };
  const err = await failure(agentUserToken(chain(base), { agentIdentityId: IDENTITY, agentUser: "agent@contoso.example", resourceUrl: "https://graph.microsoft.com" }));
  expect(err).toBeInstanceOf(TokenEndpointError);
  expect({ code: err.code, hop: err.hop, status: err.status, codes: err.codes, retryAfterMs: err.retryAfterMs }).toEqual({
    code: "temporarily_unavailable",
    hop: 2,
    status: 429,
    codes: [50196],
    retryAfterMs: 7000,
  });
});

it("a refused connection on hop 1 keeps undici's error as its cause, out of the error's JSON", async () => {
  const closed = createServer();
  await new Promise<void>((ready) => closed.listen(0, "127.0.0.1", ready));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((done) => closed.close(done));
  const err = await failure(agentUserToken(chain(`http://127.0.0.1:${port}`), { agentIdentityId: IDENTITY, agentUser: "agent@contoso.example", resourceUrl: "https://graph.microsoft.com" }));
  expect(err).toBeInstanceOf(NetworkError);
  expect([err.code, err.hop, err.status, err.transient]).toEqual(["ECONNREFUSED", 1, undefined, true]);
  expect(err.cause).toMatchObject({ code: "ECONNREFUSED" });
  expect(Object.keys(JSON.parse(JSON.stringify(err)) as object)).not.toContain("cause");
  // The report reads the same facts, in the shape docs/cli.md documents.
  expect(failureJson(err)).toEqual({ ok: false, hop: 1, step: "hop 1 (blueprint token)", status: null, error: "ECONNREFUSED", codes: [], message: err.message, hint: err.hint });
});

it("a Graph refusal carries Graph's code, inner codes and Retry-After, and no hop", async () => {
  answer = () => ({
    status: 503,
    headers: { "retry-after": "2" },
    body: JSON.stringify({ error: { code: "serviceNotAvailable", message: "busy", innerError: { code: "throttledRequest", innerError: { code: "tooBusy" } } } }),
  });
  const graph = new GraphClient({ baseUrl: base, getToken: async () => "token", retry: ONE_ATTEMPT });
  const err = await failure(graph.call("GET", "/v1.0/users"));
  expect(err).toBeInstanceOf(GraphError);
  expect({ code: err.code, hop: err.hop, status: err.status, codes: err.codes, retryAfterMs: err.retryAfterMs }).toEqual({
    code: "serviceNotAvailable",
    hop: undefined,
    status: 503,
    codes: ["throttledRequest", "tooBusy"],
    retryAfterMs: 2000,
  });
});
