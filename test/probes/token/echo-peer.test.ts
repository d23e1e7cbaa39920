/**
 * `agent-user token` against a peer that echoes the credential it was sent
 * in every field of its error answer, in each spelling JSON.parse reads back
 * as the credential (a \u escape, `\/`): neither the text on stderr nor the
 * `--json` object holds it, and no id that is not a GUID is printed as
 * Entra's trace or correlation id.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { selfSignedCertificate } from "../../../emulator/certificate";
import { ECHO_SPELLINGS, ECHOED_VALUES, echoing, echoingErrorBody, NO_ENV, onlyJson, runCli, SENT_CREDENTIALS, useEchoPeer, type EchoSpelling, type SentCredentialName } from "../../harness";

const { secret: SECRET, person: PERSON, federated: FEDERATED } = ECHOED_VALUES;
const ctx = useEchoPeer();

/** A credential file in the scratch directory, by its path. */
function file(text: string): string {
  const path = join(ctx.scratch.dir, `credential-${randomUUID()}`);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** The flags that make the command send each credential. */
const FLAGS: Record<SentCredentialName, () => string[]> = {
  "the person's on-behalf-of assertion": () => ["--blueprint-secret-file", file(SECRET), "--on-behalf-of", file(PERSON)],
  "the blueprint secret": () => ["--blueprint-secret-file", file(SECRET)],
  "the certificate assertion": () => {
    const { certificatePem, privateKeyPem } = selfSignedCertificate({ commonName: "echo peer test" });
    return ["--blueprint-cert", file(certificatePem), "--blueprint-key", file(privateKeyPem)];
  },
  "a federated token": () => ["--managed-identity-token-file", file(FEDERATED)],
};

const CONNECTION = () => [
  "--authority",
  ctx.peer.base,
  "--tenant",
  "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d",
  "--blueprint-app-id",
  "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
  "--agent-identity",
  "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
];

describe.each(Object.keys(SENT_CREDENTIALS) as SentCredentialName[])("an answer that echoes %s", (name) => {
  const cases = (Object.keys(ECHO_SPELLINGS) as EchoSpelling[]).flatMap((spelling) => [[spelling, "text"] as const, [spelling, "--json"] as const]);
  it.each(cases)("spelled with %s, in every field: the %s output never holds it", async (spelling, mode) => {
    const echo = echoing(SENT_CREDENTIALS[name], (value) => echoingErrorBody(ECHO_SPELLINGS[spelling](value)));
    ctx.answer = echo.answer;
    const flags = FLAGS[name]();
    const agentUser = name === "the person's on-behalf-of assertion" ? [] : ["--agent-user", "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d"];
    const run = await runCli(["token", ...CONNECTION(), ...agentUser, ...flags, ...(mode === "--json" ? ["--json"] : [])], NO_ENV, ctx.scratch.dir);
    expect(echo.echoed()).toBeDefined();
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).not.toContain(echo.echoed()!);
    if (mode === "--json") {
      const failure = onlyJson(run);
      expect(failure).toMatchObject({ ok: false, step: SENT_CREDENTIALS[name].step, error: "invalid_grant [redacted]" });
      expect(Object.keys(failure)).not.toContain("traceId");
      expect(Object.keys(failure)).not.toContain("correlationId");
    } else {
      expect(run.stderr).toContain(`error: ${SENT_CREDENTIALS[name].step}: invalid_grant [redacted] (HTTP 400): the value [redacted] was refused.`);
      expect(run.stderr).not.toMatch(/trace id:/);
    }
  });
});
