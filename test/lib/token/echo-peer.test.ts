/**
 * A peer that echoes a credential the kit sent, in every field of its error
 * answer and in each spelling JSON.parse reads back as the credential (a
 * \u escape, `\/`): the error the library throws holds none of it, in its
 * message, its enumerable properties or what util.inspect shows, and the
 * support ids are kept only when they are GUIDs, as Entra's are.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { selfSignedCertificate } from "../../../emulator/certificate";
import { loadCertificate } from "../../../lib/client-assertion";
import { TokenEndpointError } from "../../../lib/token-client";
import { AgentUserTokenProvider, type AgentUserTokenProviderOptions } from "../../../lib/token-provider";
import { failureJson } from "../../../probes/report";
import { ECHO_SPELLINGS, ECHOED_VALUES, echoing, echoingErrorBody, SENT_CREDENTIALS, useEchoPeer, type EchoSpelling, type SentCredentialName } from "../../harness";

const TENANT = "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d";
const { secret: SECRET, person: PERSON, federated: FEDERATED } = ECHOED_VALUES;
const ctx = useEchoPeer();

const provider = (credential: AgentUserTokenProviderOptions["credential"]) =>
  new AgentUserTokenProvider({
    authorityUrl: ctx.peer.base,
    tenantId: TENANT,
    blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
    credential,
    agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
    agentUser: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
  });

/** How the library is asked for a token that sends each credential. */
const MINTS: Record<SentCredentialName, () => () => Promise<unknown>> = {
  "the person's on-behalf-of assertion": () => () => provider({ kind: "secret", secret: SECRET }).getOnBehalfOfToken({ userAssertion: PERSON }),
  "the blueprint secret": () => () => provider({ kind: "secret", secret: SECRET }).getToken(),
  "the certificate assertion": () => {
    const { certificatePem, privateKeyPem } = selfSignedCertificate({ commonName: "echo peer test" });
    const certificate = loadCertificate({ certificatePem, privateKeyPem }, "blueprint");
    return () => provider({ kind: "certificate", certificate }).getToken();
  },
  "a federated token": () => {
    const tokenFile = join(ctx.scratch.dir, `federated-${randomUUID()}`);
    writeFileSync(tokenFile, FEDERATED, { mode: 0o600 });
    return () => provider({ kind: "managedIdentity", tokenFile }).getToken();
  },
};

/** Everything a caller might log of an error: its message and hint, its enumerable properties, JSON, util.inspect, and the CLI's JSON of it. */
function everything(err: TokenEndpointError): string {
  return [err.message, err.hint, JSON.stringify(err), JSON.stringify(Object.entries(err)), inspect(err, { depth: null }), JSON.stringify(failureJson(err))].join("\n");
}

/** The error the request of `name` ends in while the peer refuses it with `body(value)` for the credential it carries, and that credential. */
async function refusal(name: SentCredentialName, body: (value: string) => string): Promise<{ err: TokenEndpointError; sent: string }> {
  const mint = MINTS[name]();
  const echo = echoing(SENT_CREDENTIALS[name], body);
  ctx.answer = echo.answer;
  const err = await mint().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TokenEndpointError);
  expect(echo.echoed()).toBeDefined();
  return { err: err as TokenEndpointError, sent: echo.echoed()! };
}

describe.each(Object.keys(SENT_CREDENTIALS) as SentCredentialName[])("an answer that echoes %s", (name) => {
  it.each(Object.keys(ECHO_SPELLINGS) as EchoSpelling[])("spelled with %s, in every field, leaks it nowhere", async (spelling) => {
    const spell = ECHO_SPELLINGS[spelling];
    const { err, sent } = await refusal(name, (value) => echoingErrorBody(spell(value)));
    expect(everything(err)).not.toContain(sent);
    // The step, the code and what came back are still there, the credential marked where it was.
    expect([err.step, err.code, err.status]).toEqual([SENT_CREDENTIALS[name].step, "invalid_grant [redacted]", 400]);
    expect(err.description).toBe("the value [redacted] was refused.");
    // Entra's ids are GUIDs: anything else in their place is not shown.
    expect([err.traceId, err.correlationId]).toEqual([undefined, undefined]);
  });

  it("in an answer that is not JSON leaks it nowhere", async () => {
    const { err, sent } = await refusal(name, (value) => `<html>refused: ${value}</html>`);
    expect(everything(err)).not.toContain(sent);
    expect(err.code).toBe("http_400");
  });
});

it("keeps the trace and correlation ids when they are GUIDs, as Entra's are", async () => {
  const [traceId, correlationId] = [randomUUID(), randomUUID()];
  ctx.answer = () => ({ status: 400, body: JSON.stringify({ error: "invalid_client", error_codes: [7000215], trace_id: traceId, correlation_id: correlationId }) });
  const err = (await provider({ kind: "secret", secret: SECRET }).getToken().catch((e: unknown) => e)) as TokenEndpointError;
  expect([err.traceId, err.correlationId]).toEqual([traceId, correlationId]);
  expect(failureJson(err)).toMatchObject({ traceId, correlationId });
});
