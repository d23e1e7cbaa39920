/**
 * Every rule the emulator's identity provider enforces (issue 2 section 5)
 * reaches the person running `agent-user token` with the real error code, the
 * documented exit code and a hint that names the fix.
 *
 * Requests the runner never sends (no fmi_path, no credential, a UPN in
 * user_id, a foreign T1 or T2) are sent raw with the token client, and the
 * error it throws goes through the command's own failure report.
 */
import { certificateAssertion, loadCertificate } from "../../../lib/client-assertion";
import { AgentUserError } from "../../../lib/errors";
import { requestToken, tokenEndpoint, TokenEndpointError } from "../../../lib/token-client";
import type { CliIo } from "../../../probes/cli-io";
import { reportFailure } from "../../../probes/report";
import {
  addAgent,
  blueprintCertificate,
  EXCHANGE_SCOPE,
  JWT_BEARER,
  NO_ENV,
  onlyJson,
  runCli,
  tokenStatuses,
  useEmulator,
  writeOutputs,
  type AgentFixture,
} from "../../harness";

const ctx = useEmulator();
let endpoint: string;
let other: AgentFixture;

beforeAll(() => {
  endpoint = tokenEndpoint(ctx.out.authorityUrl, ctx.out.tenantId);
  other = addAgent(ctx.emulator);
});

const DOCUMENTED_FAILURE_KEYS = ["ok", "hop", "status", "error", "codes", "message", "hint"];

/** What the person sees for an error: exit code, the JSON object and the human text. */
function userSees(err: unknown): { code: number; json: Record<string, unknown>; text: string } {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, cwd: "/" };
  const code = reportFailure(err, io, true);
  expect(reportFailure(err, io, false)).toBe(code);
  return { code, json: JSON.parse(stdout) as Record<string, unknown>, text: stderr };
}

async function rejection(promise: Promise<unknown>): Promise<TokenEndpointError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TokenEndpointError);
  return err as TokenEndpointError;
}

// The hop is a fact the caller gives, as the hop chain does; the step text is for people.
const hop1 = (params: Record<string, string>) => requestToken("hop 1 (blueprint token)", endpoint, params, { hop: 1 });
const hop2 = (params: Record<string, string>) => requestToken("hop 2 (agent identity token)", endpoint, params, { hop: 2 });
const hop3 = (params: Record<string, string>) => requestToken("hop 3 (agent user token)", endpoint, params, { hop: 3 });

async function t1For(agentIdentityId: string): Promise<string> {
  const r = await hop1({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: EXCHANGE_SCOPE, fmi_path: agentIdentityId, client_secret: ctx.out.blueprintClientSecret! });
  return r.response.access_token;
}

async function t2For(agentIdentityId: string, t1: string): Promise<string> {
  const r = await hop2({ grant_type: "client_credentials", client_id: agentIdentityId, scope: EXCHANGE_SCOPE, client_assertion_type: JWT_BEARER, client_assertion: t1 });
  return r.response.access_token;
}

function hop3Params(t1: string, t2: string, user: Record<string, string> = { user_id: ctx.out.agentUserId! }): Record<string, string> {
  return {
    grant_type: "user_fic",
    client_id: ctx.out.agentIdentityId!,
    scope: "https://graph.microsoft.com/.default",
    client_assertion_type: JWT_BEARER,
    client_assertion: t1,
    user_federated_identity_credential: t2,
    ...user,
  };
}

describe("rules the runner never breaks, sent raw", () => {
  it("hop 1 without fmi_path: AADSTS82008, exit 3, hint names fmi_path", async () => {
    const err = await rejection(hop1({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: EXCHANGE_SCOPE, client_secret: ctx.out.blueprintClientSecret! }));
    const seen = userSees(err);
    expect(seen.code).toBe(3);
    expect(seen.json).toMatchObject({ ok: false, hop: 1, status: 400, error: "invalid_request", codes: [82008] });
    expect(seen.json.hint).toMatch(/fmi_path/);
    expect(seen.text).toMatch(/^error: hop 1 \(blueprint token\): AADSTS82008 invalid_request \(HTTP 400\): .*fmipath/m);
    expect(seen.text).toMatch(/^hint: .*fmi_path/m);
  });

  it("no credential at all: AADSTS7000216 on hop 1 and on hop 2, exit 3, hint names the credentials to configure", async () => {
    const e1 = await rejection(hop1({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: EXCHANGE_SCOPE, fmi_path: ctx.out.agentIdentityId! }));
    const e2 = await rejection(hop2({ grant_type: "client_credentials", client_id: ctx.out.agentIdentityId!, scope: EXCHANGE_SCOPE }));
    for (const [err, hop] of [[e1, 1], [e2, 2]] as const) {
      const seen = userSees(err);
      expect(seen.code).toBe(3);
      expect(seen.json).toMatchObject({ hop, status: 401, error: "invalid_client", codes: [7000216] });
      expect(seen.json.hint).toMatch(/secret, certificate, or managed identity/);
    }
  });

  it("a missing required parameter: AADSTS900144 naming the parameter, exit 3", async () => {
    const noScope = await rejection(hop1({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, fmi_path: ctx.out.agentIdentityId!, client_secret: ctx.out.blueprintClientSecret! }));
    expect(noScope.message).toMatch(/'scope'/);
    const t1 = await t1For(ctx.out.agentIdentityId!);
    const params = hop3Params(t1, "");
    delete params.user_federated_identity_credential;
    const noFic = await rejection(hop3(params));
    expect(noFic.message).toMatch(/'user_federated_identity_credential'/);
    const noUser = await rejection(hop3(hop3Params(t1, await t2For(ctx.out.agentIdentityId!, t1), {})));
    expect(noUser.message).toMatch(/'user_id'/);
    for (const err of [noScope, noFic, noUser]) {
      const seen = userSees(err);
      expect(seen.code).toBe(3);
      expect(seen.json).toMatchObject({ status: 400, error: "invalid_request", codes: [900144] });
      expect(seen.json.hint).toMatch(/required parameter is missing/);
    }
  });

  it("a UPN in user_id: AADSTS50000 server_error, not retried, exit 3, hint says to send it as username", async () => {
    const t1 = await t1For(ctx.out.agentIdentityId!);
    const t2 = await t2For(ctx.out.agentIdentityId!, t1);
    const before = ctx.emulator.requests.length;
    const err = await rejection(hop3(hop3Params(t1, t2, { user_id: ctx.out.agentUserPrincipalName! })));
    expect(tokenStatuses(ctx.emulator, before)).toEqual([400]);
    const seen = userSees(err);
    expect(seen.code).toBe(3);
    expect(seen.json).toMatchObject({ hop: 3, status: 400, error: "server_error", codes: [50000] });
    expect(seen.json.hint).toMatch(/username/);
  });

  it("a certificate assertion that expired: AADSTS700024, exit 3, hint names the clock", async () => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const loaded = loadCertificate(cert, "blueprint");
    const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
    const err = await rejection(
      hop1({
        grant_type: "client_credentials",
        client_id: ctx.out.blueprintAppId!,
        scope: EXCHANGE_SCOPE,
        fmi_path: ctx.out.agentIdentityId!,
        client_assertion_type: JWT_BEARER,
        client_assertion: certificateAssertion(ctx.out.blueprintAppId!, endpoint, loaded, anHourAgo),
      }),
    );
    const seen = userSees(err);
    expect(seen.code).toBe(3);
    expect(seen.json).toMatchObject({ hop: 1, error: "invalid_client", codes: [700024] });
    expect(seen.json.hint).toMatch(/clock/);
  });
});

describe("emulator rules for tokens of the wrong identity or audience: invalid_grant with [emulator rule] text", () => {
  function expectEmulatorRule(err: TokenEndpointError, hop: number, text: RegExp): void {
    const seen = userSees(err);
    expect(seen.code).toBe(3);
    expect(seen.json).toMatchObject({ ok: false, hop, status: 400, error: "invalid_grant", codes: [] });
    expect(seen.json.message).toContain("[emulator rule]");
    expect(seen.json.message).toMatch(text);
    expect(seen.json.hint).toMatch(/blueprint, agent identity and agent user belong together/);
  }

  it("hop 2 with a T1 minted for another agent identity", async () => {
    const foreignT1 = await t1For(other.identity.id);
    const err = await rejection(hop2({ grant_type: "client_credentials", client_id: ctx.out.agentIdentityId!, scope: EXCHANGE_SCOPE, client_assertion_type: JWT_BEARER, client_assertion: foreignT1 }));
    expectEmulatorRule(err, 2, new RegExp(`minted for agent identity ${other.identity.id}`));
  });

  it("hop 3 with a T1 minted for another agent identity", async () => {
    const t1 = await t1For(ctx.out.agentIdentityId!);
    const t2 = await t2For(ctx.out.agentIdentityId!, t1);
    const err = await rejection(hop3(hop3Params(await t1For(other.identity.id), t2)));
    expectEmulatorRule(err, 3, new RegExp(`minted for agent identity ${other.identity.id}`));
  });

  it("hop 3 with the T2 of another agent identity", async () => {
    const t1 = await t1For(ctx.out.agentIdentityId!);
    const otherT1 = await t1For(other.identity.id);
    const foreignT2 = await t2For(other.identity.id, otherT1);
    const err = await rejection(hop3(hop3Params(t1, foreignT2)));
    expectEmulatorRule(err, 3, new RegExp(`belongs to agent identity ${other.identity.id}`));
  });

  it("hop 3 with T2 where T1 belongs (T2 as the client assertion)", async () => {
    const t1 = await t1For(ctx.out.agentIdentityId!);
    const t2 = await t2For(ctx.out.agentIdentityId!, t1);
    const err = await rejection(hop3(hop3Params(t2, t2)));
    expectEmulatorRule(err, 3, /send T1, not T2/);
  });

  it("hop 2 with a hop-1 token of the wrong audience (the seed spec's resource-scoped hop 1)", async () => {
    const graphToken = (await hop1({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: "https://graph.microsoft.com/.default", client_secret: ctx.out.blueprintClientSecret! })).response
      .access_token;
    const err = await rejection(hop2({ grant_type: "client_credentials", client_id: ctx.out.agentIdentityId!, scope: EXCHANGE_SCOPE, client_assertion_type: JWT_BEARER, client_assertion: graphToken }));
    expectEmulatorRule(err, 2, /audience 'https:\/\/graph\.microsoft\.com'/);
  });
});

describe("rejections the command meets with a wrong configuration", () => {
  const file = (patch: Record<string, unknown> = {}) => writeOutputs(ctx.scratch.dir, ctx.out, patch);

  it("a wrong secret: AADSTS7000215, exit 3, the --json failure object, a hint about the secret's value", async () => {
    const run = await runCli(["token", "--outputs", file(), "--json"], { AGENT_USER_BLUEPRINT_SECRET: "not-the-secret" });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe("");
    const body = onlyJson(run);
    expect(Object.keys(body)).toEqual(expect.arrayContaining(DOCUMENTED_FAILURE_KEYS));
    expect(body).toMatchObject({ ok: false, hop: 1, status: 401, error: "invalid_client", codes: [7000215] });
    expect(body.message).toMatch(/AADSTS7000215/);
    expect(body.hint).toMatch(/secret's value \(not its id\)/);

    const human = await runCli(["token", "--outputs", file()], { AGENT_USER_BLUEPRINT_SECRET: "not-the-secret" });
    expect(human.code).toBe(3);
    expect(human.stdout).toBe("");
    expect(human.stderr).toMatch(/^error: hop 1 \(blueprint token\): AADSTS7000215 invalid_client \(HTTP 401\): Invalid client secret provided\./);
    expect(human.stderr).toMatch(/^hint: the client secret is wrong/m);
  });

  it("an unknown blueprint: AADSTS700016, exit 3, hint names the replication window", async () => {
    const run = await runCli(["token", "--outputs", file({ blueprintAppId: "0f0f0f0f-1234-4321-8888-0123456789ab" }), "--json"], NO_ENV);
    expect(run.code).toBe(3);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, status: 400, error: "unauthorized_client", codes: [700016], hint: expect.stringMatching(/--consistency-window/) });
  });

  it("a refusal names the id it refused (only credentials are scrubbed from it) and carries Entra's trace and correlation ids", async () => {
    const unknown = "0f0f0f0f-1234-4321-8888-0123456789ab";
    const run = await runCli(["token", "--outputs", file({ blueprintAppId: unknown }), "--json"], NO_ENV);
    const body = onlyJson(run);
    expect(body.message).toContain(unknown);
    expect(body.message).not.toContain("[redacted]");
    expect(body).toMatchObject({ traceId: expect.stringMatching(/^[0-9a-f-]{36}$/), correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const human = await runCli(["token", "--outputs", file({ blueprintAppId: unknown })], NO_ENV);
    expect(human.stderr).toMatch(/^trace id: [0-9a-f-]{36}, correlation id: [0-9a-f-]{36}$/m);
  });

  it("no permission grant: AADSTS65001 on hop 3, exit 3, hint says to run pulumi up", async () => {
    const grant = ctx.emulator.store.grant(ctx.out.grantId!)!;
    ctx.emulator.store.deleteGrant(grant.id);
    try {
      const before = ctx.emulator.requests.length;
      const run = await runCli(["token", "--outputs", file(), "--json"], NO_ENV);
      expect(run.code).toBe(3);
      expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 400]);
      const body = onlyJson(run);
      expect(body).toMatchObject({ ok: false, hop: 3, status: 400, error: "invalid_grant", codes: [65001] });
      expect(body.hint).toMatch(/no permission grant.*`pulumi up`/);
    } finally {
      ctx.emulator.store.createGrant(grant);
    }
  });

  it("a certificate assertion the identity provider finds expired (its clock is ahead): AADSTS700024, exit 3", async () => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const realNow = ctx.emulator.store.now;
    ctx.emulator.store.now = () => realNow() + 60 * 60 * 1000;
    try {
      const run = await runCli(["token", "--outputs", file({ blueprintClientSecret: undefined }), "--json"], { AGENT_USER_BLUEPRINT_CERT: cert.certFile, AGENT_USER_BLUEPRINT_KEY: cert.keyFile });
      expect(run.code).toBe(3);
      expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, error: "invalid_client", codes: [700024], hint: expect.stringMatching(/clock/) });
    } finally {
      ctx.emulator.store.now = realNow;
    }
  });

  it("the agent user of another agent identity: invalid_grant [emulator rule] on hop 3, exit 3", async () => {
    const run = await runCli(["token", "--outputs", file(), "--agent-user", other.user.id, "--json"], NO_ENV);
    expect(run.code).toBe(3);
    const body = onlyJson(run);
    expect(body).toMatchObject({ ok: false, hop: 3, error: "invalid_grant", codes: [] });
    expect(body.message).toContain("[emulator rule]");
  });

  it("an agent identity of no blueprint of ours as fmi_path: refused on hop 1, exit 3", async () => {
    const run = await runCli(["token", "--outputs", file({ agentIdentityId: "0e0e0e0e-1234-4321-8888-0123456789ab" }), "--json"], NO_ENV);
    expect(run.code).toBe(3);
    expect(onlyJson(run)).toMatchObject({ ok: false, hop: 1, error: "invalid_grant" });
  });

  it("a rejection is an AgentUserError carrying its step and Entra's trace and correlation ids", async () => {
    const err = await rejection(hop1({ grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: EXCHANGE_SCOPE, client_secret: "x" }));
    expect(err).toBeInstanceOf(AgentUserError);
    expect(err.step).toBe("hop 1 (blueprint token)");
    expect(err.traceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.correlationId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
