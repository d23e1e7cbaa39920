/**
 * A stand-in Graph that echoes what the kit sent it (the bearer token of
 * its Authorization header and every string of its JSON body) in every
 * field of its error envelope, its innerError chain, a field Graph does not
 * send and its id headers, in each spelling JSON.parse reads back as the
 * value (a \u escape, `\/`): the GraphError holds no credential, in its
 * message, its enumerable properties, the raw answer it keeps or what
 * util.inspect shows; and what Graph wrote is shown as safely as the
 * identity provider's text.
 */
import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import { GraphClient, GraphError } from "../../lib/graph-client";
import { failureJson } from "../../probes/report";
import { ECHO_SPELLINGS, ECHOED_VALUES, echoingGraph, echoingGraphErrorBody, useEchoPeer, type EchoSpelling } from "../harness";

const { bearer: BEARER, password: PASSWORD } = ECHOED_VALUES;
const ctx = useEchoPeer();

const client = () => new GraphClient({ baseUrl: ctx.peer.base, getToken: async () => BEARER, timeoutMs: 5_000 });

/** Everything a caller might log of an error: message and hint, enumerable properties, JSON, util.inspect, and the CLI's JSON of it. */
function everything(err: GraphError): string {
  return [err.message, err.hint, JSON.stringify(err), JSON.stringify(Object.entries(err)), inspect(err, { depth: null }), JSON.stringify(failureJson(err))].join("\n");
}

/** The GraphError a call ends in while the peer answers `status` with `body(values)`, and the values it echoed. */
async function refusal(send: (graph: GraphClient) => Promise<unknown>, body: (values: readonly string[]) => string, status = 400): Promise<{ err: GraphError; echoed: readonly string[] }> {
  const echo = echoingGraph(BEARER, body, status);
  ctx.answer = echo.answer;
  const err = await send(client()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GraphError);
  expect(echo.echoed()[0]).toBe(BEARER);
  return { err: err as GraphError, echoed: echo.echoed() };
}

const spelled = (spelling: EchoSpelling) => (values: readonly string[]) => echoingGraphErrorBody(values.map(ECHO_SPELLINGS[spelling]));
const SPELLINGS = Object.keys(ECHO_SPELLINGS) as EchoSpelling[];

describe("a Graph error answer that echoes the bearer token", () => {
  it.each(SPELLINGS)("spelled with %s, in every field, leaks it nowhere", async (spelling) => {
    const { err } = await refusal((graph) => graph.call("GET", "/v1.0/users/someone"), spelled(spelling));
    expect(everything(err)).not.toContain(BEARER);
    // The call, the code and what came back are still there, the token marked where it was.
    expect([err.step, err.code, err.status]).toEqual(["Graph GET /v1.0/users/someone", "Echo [redacted]", 400]);
    expect(err.codes).toEqual(["InnerEcho [redacted]", "Deeper [redacted]"]);
    expect(err.message).toBe("Graph GET /v1.0/users/someone: Echo [redacted] (HTTP 400): the values [redacted] were refused");
    // Graph's request ids are GUIDs: anything else in their place (the body's or the header's) is no id.
    expect(err.requestId).toBeUndefined();
  });

  it("in an answer that is not JSON leaks it nowhere", async () => {
    const { err } = await refusal((graph) => graph.call("GET", "/v1.0/users/someone"), ([token]) => `<html>refused: ${token}</html>`, 502);
    expect(everything(err)).not.toContain(BEARER);
    expect(err.code).toBe("http_502");
  });
});

describe("a Graph error answer that echoes a credential of the request's body", () => {
  it.each(SPELLINGS)("spelled with %s, leaks neither it nor the token, and keeps the body's other values", async (spelling) => {
    const displayName = `agent display name ${randomUUID()}`;
    const body = { displayName, passwordProfile: { password: PASSWORD }, keyCredentials: [{ key: Buffer.from(PASSWORD).toString("base64") }] };
    const { err, echoed } = await refusal((graph) => graph.call("PATCH", "/v1.0/users/someone", { body }), spelled(spelling));
    expect(echoed).toContain(PASSWORD);
    const shown = everything(err);
    for (const credential of [BEARER, PASSWORD, body.keyCredentials[0]!.key]) expect(shown).not.toContain(credential);
    // An id or a name the call sent is no secret: an error that names it says which one it is about.
    expect(err.message).toContain(displayName);
  });
});

describe("a Graph success answer that echoes the bearer token", () => {
  it.each(SPELLINGS)("spelled with %s, hands it to no caller, parsed or raw; one that echoes nothing is kept as Graph spelled it", async (spelling) => {
    const echo = echoingGraph(BEARER, ([token]) => `{"id":"u1","displayName":"echo ${ECHO_SPELLINGS[spelling](token!)}"}`, 200);
    ctx.answer = echo.answer;
    const parsed = await client().call<{ displayName: string }>("GET", "/v1.0/users/u1");
    const raw = await client().raw("GET", "/v1.0/users/u1");
    expect(parsed.body.displayName).toBe("echo [redacted]");
    expect(JSON.stringify([parsed, raw])).not.toContain(BEARER);
    expect(JSON.parse(raw.body)).toEqual({ id: "u1", displayName: "echo [redacted]" });
    // The same escapes around no echo: the answer is handed on byte for byte.
    const text = `{"id":"u1","displayName":"${ECHO_SPELLINGS[spelling]("caf\u00e9/ bar")}"}`;
    ctx.answer = () => ({ status: 200, body: text });
    expect((await client().raw("GET", "/v1.0/users/u1")).body).toBe(text);
  });
});

describe("what Graph wrote in its error", () => {
  it("is shown with its control characters escaped, its code as its message", async () => {
    const forged = "Forged\n\u001b[31merror: fake line\u202e";
    ctx.answer = () => ({ status: 400, body: JSON.stringify({ error: { code: forged, message: forged, innerError: { code: forged } } }) });
    const err = (await client()
      .call("GET", "/v1.0/users/u1")
      .catch((e: unknown) => e)) as GraphError;
    const safe = "Forged\\n\\x1b[31merror: fake line\\u202e";
    expect([err.code, err.codes]).toEqual([safe, [safe]]);
    expect(err.message).toBe(`Graph GET /v1.0/users/u1: ${safe} (HTTP 400): ${safe}`);
    const printed = Object.values(failureJson(err)).flat().join(" ");
    for (const control of ["\n", "\u001b", "\u202e"]) expect(printed).not.toContain(control);
  });

  it("keeps a request id only when it is a GUID, as Graph's are, from the body, else from the header", async () => {
    const [inBody, inHeader] = [randomUUID(), randomUUID()];
    const refused = async (requestId: string) => {
      ctx.answer = () => ({ status: 404, body: JSON.stringify({ error: { code: "Request_ResourceNotFound", message: "gone", innerError: { "request-id": requestId } } }), headers: { "request-id": inHeader } });
      return (await client()
        .call("GET", "/v1.0/users/u1")
        .catch((e: unknown) => e)) as GraphError;
    };
    expect((await refused(inBody)).requestId).toBe(inBody);
    expect((await refused("not a request id; call +1 555 0100")).requestId).toBe(inHeader);
  });
});
