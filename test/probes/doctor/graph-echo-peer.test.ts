/**
 * `agent-user doctor` against a stand-in Graph that refuses its first read
 * with an answer echoing the provisioner's bearer token in every field of
 * Graph's error envelope, its innerError chain, a field Graph does not send
 * and its id headers, in each spelling JSON.parse reads back as the token
 * (a \u escape, `\/`): neither the text on stderr nor the `--json` object
 * holds it, and both still name the call and Graph's code.
 */
import { forgetProvisioner } from "../../provisioner-state";
import { ECHO_SPELLINGS, ECHOED_VALUES, echoingGraph, echoingGraphErrorBody, onlyJson, runCli, useEchoPeer, writeOutputs, type EchoSpelling } from "../../harness";

const { bearer: BEARER, secret: SECRET } = ECHOED_VALUES;
const TENANT = "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d";
const PROVISIONER = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const ctx = useEchoPeer();
beforeEach(() => forgetProvisioner());

/** doctor of one agent whose tenant is the peer, as a provisioner with a client secret. */
function doctor(json: boolean) {
  const outputs = writeOutputs(ctx.scratch.dir, {
    tenantId: TENANT,
    authorityUrl: ctx.peer.base,
    graphUrl: ctx.peer.base,
    resourceUrl: ctx.peer.base,
    blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
    blueprintClientSecret: SECRET,
    agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
    agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
  });
  return runCli(["doctor", "--outputs", outputs, ...(json ? ["--json"] : [])], { ARM_TENANT_ID: TENANT, ARM_CLIENT_ID: PROVISIONER, ARM_CLIENT_SECRET: `provisioner/${SECRET}` }, ctx.scratch.dir);
}

const STEP = "Graph GET /v1.0/applications/microsoft.graph.agentIdentityBlueprint";
const cases = (Object.keys(ECHO_SPELLINGS) as EchoSpelling[]).flatMap((spelling) => [[spelling, "text"] as const, [spelling, "--json"] as const]);

it.each(cases)("a refusal that echoes the bearer token spelled with %s, in every field: the %s output never holds it", async (spelling, mode) => {
  const echo = echoingGraph(BEARER, (values) => echoingGraphErrorBody(values.map(ECHO_SPELLINGS[spelling])));
  ctx.answer = echo.answer;
  const run = await doctor(mode === "--json");
  expect(echo.echoed()).toEqual([BEARER]);
  expect(run.code).toBe(3);
  expect(run.stdout + run.stderr).not.toContain(BEARER);
  if (mode === "--json") {
    expect(onlyJson(run)).toMatchObject({ ok: false, step: STEP, status: 400, error: "Echo [redacted]", codes: ["InnerEcho [redacted]", "Deeper [redacted]"] });
  } else {
    expect(run.stderr).toContain(`error: ${STEP}: Echo [redacted] (HTTP 400): the values [redacted] were refused\n`);
  }
});

it("a refusal whose code is a forged line: the text output shows it escaped, on the error's one line", async () => {
  ctx.answer = (_form, request) =>
    request.path.endsWith("/oauth2/v2.0/token")
      ? { status: 200, body: JSON.stringify({ token_type: "Bearer", access_token: BEARER, expires_in: 3600 }) }
      : { status: 400, body: JSON.stringify({ error: { code: "Denied\nerror: \u001b[2Kall links ok", message: "no" } }) };
  const run = await doctor(false);
  expect(run.code).toBe(3);
  expect(run.stderr.split("\n")[0]).toBe(`error: ${STEP}: Denied\\nerror: \\x1b[2Kall links ok (HTTP 400): no`);
});
