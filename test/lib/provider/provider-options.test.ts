/**
 * What AgentUserTokenProvider refuses before any request: an authority the
 * blueprint secret must not travel to, options it cannot use, and agent names
 * that are no agent of the outputs. Whatever it accepts goes over real HTTP
 * to the emulator.
 */
import { AgentUserTokenProvider, loadCertificate, parseStackOutputs, UsageError, type AgentUserTokenProviderOptions } from "../../../lib";
import { blueprintCertificate, NO_ENV, onlyJson, recordingDispatcher, runCli, tokenStatuses, useEmulator, writeOutputs, addAgent, claimsOf } from "../../harness";

const ctx = useEmulator();

/** TEST-NET-1 (RFC 5737): never routed, so a request there could only hang; none must be tried. */
const REMOTE_HTTP = "http://192.0.2.2:8460";
const SECRET = "a-client-secret-that-must-not-be-shown";

/** Valid options against the emulator; `patch` replaces (or, with undefined, removes) fields. */
function options(patch: Record<string, unknown> = {}): AgentUserTokenProviderOptions {
  const base: Record<string, unknown> = {
    tenantId: ctx.out.tenantId,
    blueprintAppId: ctx.out.blueprintAppId,
    credential: { kind: "secret", secret: ctx.out.blueprintClientSecret },
    authorityUrl: ctx.out.authorityUrl,
    agentIdentityId: ctx.out.agentIdentityId,
    agentUser: ctx.out.agentUserId,
  };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base as unknown as AgentUserTokenProviderOptions;
}

/** The UsageError `build` throws (a TypeError or no error fails the test). */
function refusal(build: () => unknown): UsageError {
  let thrown: unknown;
  try {
    build();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(UsageError);
  const err = thrown as UsageError;
  expect(err).toMatchObject({ exitCode: 2, code: "usage" });
  expect(`${err.message}\n${err.hint}`).not.toContain(SECRET);
  return err;
}

describe("the authority URL: https, or plain http only to this machine, whichever way the provider is built", () => {
  const plainHttp = /authorityUrl must use https \(plain http is accepted only for loopback hosts/;

  it("new AgentUserTokenProvider with a non-loopback http authority throws a UsageError, before any request", () => {
    const err = refusal(() => new AgentUserTokenProvider(options({ authorityUrl: REMOTE_HTTP, credential: { kind: "secret", secret: SECRET } })));
    expect(err.message).toMatch(plainHttp);
    expect(err.message).toContain(JSON.stringify(REMOTE_HTTP));
  });

  it("an authorityUrl override of fromStackOutputs or fromEnvironment gets the same check", () => {
    const outputs = { ...ctx.emulator.outputs(), blueprintClientSecret: SECRET };
    expect(refusal(() => AgentUserTokenProvider.fromStackOutputs(outputs, { authorityUrl: REMOTE_HTTP })).message).toMatch(plainHttp);
    const fleet = { ...outputs, agents: { x: { agentIdentityId: ctx.out.agentIdentityId, agentUserId: ctx.out.agentUserId, agentUserPrincipalName: ctx.out.agentUserPrincipalName } } };
    expect(refusal(() => AgentUserTokenProvider.fromStackOutputs(fleet, { agent: "x", authorityUrl: REMOTE_HTTP })).message).toMatch(plainHttp);
    const env = { AGENT_USER_TENANT_ID: ctx.out.tenantId, AGENT_USER_BLUEPRINT_APP_ID: ctx.out.blueprintAppId, AGENT_USER_BLUEPRINT_SECRET: SECRET };
    expect(refusal(() => AgentUserTokenProvider.fromEnvironment(env, { authorityUrl: REMOTE_HTTP })).message).toMatch(plainHttp);
  });

  it("a window override of fromStackOutputs or fromEnvironment replaces the window read, under either of its names", () => {
    const env = { AGENT_USER_TENANT_ID: ctx.out.tenantId, AGENT_USER_BLUEPRINT_APP_ID: ctx.out.blueprintAppId, AGENT_USER_BLUEPRINT_SECRET: SECRET };
    for (const window of [{ consistencyWindowMs: 60_000 }, { replicationWindowMs: 60_000 }]) {
      expect(AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), window)).toBeInstanceOf(AgentUserTokenProvider);
      expect(AgentUserTokenProvider.fromEnvironment(env, window)).toBeInstanceOf(AgentUserTokenProvider);
    }
    expect(refusal(() => AgentUserTokenProvider.fromEnvironment(env, { consistencyWindowMs: 1, replicationWindowMs: 1 })).message).toMatch(/give consistencyWindowMs only/);
  });

  it("refuses what the CLI refuses: a user name in the URL, a path, no URL at all", () => {
    expect(refusal(() => new AgentUserTokenProvider(options({ authorityUrl: "https://user:pw@login.example.com" }))).message).toMatch(/authorityUrl must not carry a user name or password/);
    expect(refusal(() => new AgentUserTokenProvider(options({ authorityUrl: "https://login.microsoftonline.com/organizations" }))).message).toMatch(/authorityUrl must be a base URL/);
    expect(refusal(() => new AgentUserTokenProvider(options({ authorityUrl: "login.microsoftonline.com" }))).message).toMatch(/authorityUrl is not an absolute URL/);
  });

  it("http://127.0.0.1:<port> (the emulator) still mints, with or without a trailing slash", async () => {
    expect(ctx.out.authorityUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = ctx.emulator.requests.length;
    const token = await new AgentUserTokenProvider(options({ authorityUrl: `${ctx.out.authorityUrl}/` })).getToken();
    expect(token.claims).toMatchObject({ idtyp: "user", oid: ctx.out.agentUserId });
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
  });
});

describe("an --agent / agent name that is an Object.prototype member is no agent", () => {
  const inherited = ["constructor", "toString", "hasOwnProperty", "valueOf", "__proto__"];

  function fleet(): Record<string, unknown> {
    const one = { agentIdentityId: ctx.out.agentIdentityId, agentUserId: ctx.out.agentUserId, agentUserPrincipalName: ctx.out.agentUserPrincipalName };
    return { ...ctx.emulator.outputs(), agents: { alpha: one, beta: one } };
  }

  it.each(inherited)("fromStackOutputs(outputs, { agent: %j }) is the 'no agent named' usage error", (name) => {
    const err = refusal(() => AgentUserTokenProvider.fromStackOutputs(fleet(), { agent: name }));
    expect(err.message).toContain(`stack outputs has no agent named ${JSON.stringify(name)}`);
    expect(err.hint).toBe("agents: alpha, beta");
  });

  it("a stack without an agents map has no agent named constructor either", () => {
    const err = refusal(() => AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { agent: "constructor" }));
    expect(err.message).toContain('has no agent named "constructor"');
  });

  it.each(["constructor", "__proto__"])("token --agent %s exits 2 with the usage error and sends nothing", async (name) => {
    const file = writeOutputs(ctx.scratch.dir, ctx.out, { agents: fleet().agents });
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", file, "--agent", name, "--json"], NO_ENV);
    expect(run.code).toBe(2);
    expect(onlyJson(run)).toMatchObject({ ok: false, error: "usage", message: expect.stringContaining(`no agent named ${JSON.stringify(name)}`), hint: "agents: alpha, beta" });
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it('an agent literally named "__proto__" in the outputs JSON is an agent like any other', async () => {
    const other = addAgent(ctx.emulator);
    ctx.emulator.store.replicateGrantAt(other.grantId!, 0);
    const text = JSON.stringify({
      ...ctx.emulator.outputs(),
      agents: { alpha: { agentIdentityId: ctx.out.agentIdentityId, agentUserId: ctx.out.agentUserId, agentUserPrincipalName: ctx.out.agentUserPrincipalName } },
    }).replace(
      /"agents":\{/,
      `"agents":{"__proto__":${JSON.stringify({ agentIdentityId: other.identity.id, agentUserId: other.user.id, agentUserPrincipalName: other.user.userPrincipalName })},`,
    );
    // JSON.parse makes "__proto__" an own key, as it would for a stack output.
    const outputs: unknown = JSON.parse(text);
    expect(Object.keys(parseStackOutputs(outputs, "test").agents!)).toEqual(["__proto__", "alpha"]);
    expect(() => AgentUserTokenProvider.fromStackOutputs(outputs)).toThrow(/describes 2 agents; pick one/);
    const token = await AgentUserTokenProvider.fromStackOutputs(outputs, { agent: "__proto__" }).getToken();
    expect(token.claims.oid).toBe(other.user.id);
    expect(token.claims.azp ?? token.claims.appid).toBe(other.identity.id);

    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out, { agents: (outputs as { agents: unknown }).agents }), "--agent", "__proto__", "--show-token", "--json"], NO_ENV);
    expect(run.code).toBe(0);
    expect(claimsOf(String(onlyJson(run).token)).oid).toBe(other.user.id);
  });
});

describe("the constructor refuses options it cannot use, naming the option", () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["no tenantId", { tenantId: undefined }, /tenantId must be the tenant's GUID or a domain, got nothing/],
    ["a tenantId that is neither GUID nor domain", { tenantId: "not a tenant" }, /tenantId must be the tenant's GUID or a domain, got "not a tenant"/],
    ["no blueprintAppId", { blueprintAppId: undefined }, /blueprintAppId must be the blueprint's appId \(a GUID\), got nothing/],
    ["a blueprintAppId that is no GUID", { blueprintAppId: 42 }, /blueprintAppId must be the blueprint's appId \(a GUID\), got 42/],
    ["no credential", { credential: undefined }, /credential is missing/],
    ["a credential of an unknown kind", { credential: { kind: "bogus" } }, /credential\.kind must be "secret", "certificate" or "managedIdentity", got "bogus"/],
    ["an empty secret", { credential: { kind: "secret", secret: "" } }, /credential\.secret must be a non-empty string/],
    ["a blank secret", { credential: { kind: "secret", secret: " \n" } }, /credential\.secret must be a non-empty string/],
    ["a secret that is no string", { credential: { kind: "secret", secret: { value: SECRET } } }, /credential\.secret must be a non-empty string/],
    ["certificate: null", { credential: { kind: "certificate", certificate: null } }, /credential\.certificate must be what loadCertificate\(\) returns/],
    ["certificate PEM text instead of a loaded certificate", { credential: { kind: "certificate", certificate: { certificatePem: "x", privateKeyPem: SECRET } } }, /credential\.certificate must be what loadCertificate\(\) returns/],
    ["a managed identity clientId that is no string", { credential: { kind: "managedIdentity", clientId: 7 } }, /credential\.clientId must be a string/],
    ["a managed identity IMDS endpoint over plain http elsewhere", { credential: { kind: "managedIdentity", imdsEndpoint: REMOTE_HTTP } }, /credential\.imdsEndpoint must use https/],
    ["timeoutMs: -5", { timeoutMs: -5 }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got -5/],
    ["timeoutMs: 0", { timeoutMs: 0 }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got 0/],
    ["timeoutMs: NaN", { timeoutMs: NaN }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got NaN/],
    ["timeoutMs: Infinity", { timeoutMs: Infinity }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got Infinity/],
    ["timeoutMs past what a timer holds", { timeoutMs: 2 ** 31 }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got 2147483648/],
    ["timeoutMs as a string", { timeoutMs: "1000" }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got "1000"/],
    ["consistencyWindowMs: -1", { consistencyWindowMs: -1 }, /consistencyWindowMs must be a number of milliseconds, 0 to 2000000000, got -1/],
    ["consistencyWindowMs with its deprecated spelling replicationWindowMs", { consistencyWindowMs: 1000, replicationWindowMs: 1000 }, /give consistencyWindowMs only: replicationWindowMs is its deprecated spelling/],
    ["replicationWindowMs: -1", { replicationWindowMs: -1 }, /replicationWindowMs must be a number of milliseconds, 0 to 2000000000, got -1/],
    ["replicationWindowMs: NaN", { replicationWindowMs: NaN }, /replicationWindowMs must be a number of milliseconds, 0 to 2000000000, got NaN/],
    ["refreshWindowMs: -1", { refreshWindowMs: -1 }, /refreshWindowMs must be a number of milliseconds, 0 to 2000000000, got -1/],
    ["an empty resource", { resource: " " }, /resource must be a non-empty string/],
    ["a tokenExchangeAudience that is no api:// identifier", { tokenExchangeAudience: "https://example.com" }, /tokenExchangeAudience must be an api:\/\/ identifier/],
  ])("%s", (_what, patch, message) => {
    const before = ctx.emulator.requests.length;
    expect(refusal(() => new AgentUserTokenProvider(options(patch))).message).toMatch(message);
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it("names every problem at once, and refuses no options object at all", () => {
    expect(refusal(() => new AgentUserTokenProvider({} as AgentUserTokenProviderOptions)).message).toBe(
      "configuration: tenantId must be the tenant's GUID or a domain, got nothing; blueprintAppId must be the blueprint's appId (a GUID), got nothing; credential is missing",
    );
    expect(refusal(() => new AgentUserTokenProvider(undefined as unknown as AgentUserTokenProviderOptions)).message).toMatch(/the options must be an object/);
    expect(refusal(() => new AgentUserTokenProvider(null as unknown as AgentUserTokenProviderOptions)).message).toMatch(/the options must be an object/);
  });

  it("accepts every credential kind the CLI builds; a loaded certificate mints over HTTP", async () => {
    expect(new AgentUserTokenProvider(options({ credential: { kind: "managedIdentity" } }))).toBeInstanceOf(AgentUserTokenProvider);
    expect(new AgentUserTokenProvider(options({ credential: { kind: "managedIdentity", clientId: ctx.out.blueprintAppId, imdsEndpoint: "http://169.254.169.254" } }))).toBeInstanceOf(
      AgentUserTokenProvider,
    );
    expect(new AgentUserTokenProvider(options({ tenantId: "contoso.onmicrosoft.com", timeoutMs: 1, replicationWindowMs: 0, refreshWindowMs: 0 }))).toBeInstanceOf(AgentUserTokenProvider);
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir);
    const certificate = loadCertificate({ certificatePem: cert.certificatePem, privateKeyPem: cert.privateKeyPem }, "blueprint");
    const before = ctx.emulator.requests.length;
    const token = await new AgentUserTokenProvider(options({ credential: { kind: "certificate", certificate }, timeoutMs: 10_000 })).getToken();
    expect(token.claims).toMatchObject({ idtyp: "user", oid: ctx.out.agentUserId });
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
  });
});

describe("getToken({ claims }) refuses a claims request it cannot use, naming what is wrong", () => {
  it("a claims request nested 100,000 deep: a UsageError naming the depth limit, never a stack overflow, and nothing sent", async () => {
    const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    for (const enableCae of [false, true]) {
      const before = ctx.emulator.requests.length;
      const err = await new AgentUserTokenProvider(options()).getToken({ claims: deep, enableCae }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toMatch(/claims must be a claims request, a JSON object such as .*; this one is nested deeper than 512 levels, more than any claims request/);
      expect((err as UsageError).message).not.toMatch(/RangeError|call stack/);
      expect(ctx.emulator.requests.length).toBe(before);
    }
  });

  it("a claims request 511 levels deep is still one: it reaches hop 3", async () => {
    const deep = `{"access_token":{"nbf":${'{"a":'.repeat(509)}1${"}".repeat(509)}}}`;
    const recorder = recordingDispatcher();
    await new AgentUserTokenProvider({ ...options(), dispatcher: recorder.dispatcher }).getToken({ claims: deep });
    expect(recorder.sent.at(-1)!.form.claims).toBe(deep);
  });
});

describe("the token-exchange audience", () => {
  const USGOV = "api://AzureADTokenExchangeUSGov";

  it("follows the authority's cloud by default: the emulator's loopback authority is the public cloud's", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    await new AgentUserTokenProvider(options({ dispatcher })).getToken();
    expect(sent.filter((r) => r.form.scope?.startsWith("api://")).map((r) => r.form.scope)).toEqual(["api://AzureADTokenExchange/.default", "api://AzureADTokenExchange/.default"]);
  });

  it("tokenExchangeAudience overrides what hop 1 asks for", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    await new AgentUserTokenProvider(options({ tokenExchangeAudience: USGOV, dispatcher })).getToken().catch(() => undefined);
    expect(sent[0]?.form.scope).toBe(`${USGOV}/.default`);
  });

  it("fromStackOutputs reads the stack's tokenExchangeAudience output, and fromEnvironment AGENT_USER_TOKEN_EXCHANGE_AUDIENCE", async () => {
    const fromOutputs = recordingDispatcher();
    await AgentUserTokenProvider.fromStackOutputs({ ...ctx.out, tokenExchangeAudience: USGOV }, { dispatcher: fromOutputs.dispatcher }).getToken().catch(() => undefined);
    expect(fromOutputs.sent[0]?.form.scope).toBe(`${USGOV}/.default`);
    const env = {
      AGENT_USER_TENANT_ID: ctx.out.tenantId,
      AGENT_USER_AUTHORITY_URL: ctx.out.authorityUrl,
      AGENT_USER_BLUEPRINT_APP_ID: ctx.out.blueprintAppId,
      AGENT_USER_BLUEPRINT_SECRET: ctx.out.blueprintClientSecret,
      AGENT_USER_AGENT_IDENTITY_ID: ctx.out.agentIdentityId,
      AGENT_USER_AGENT_USER_ID: ctx.out.agentUserId,
      AGENT_USER_TOKEN_EXCHANGE_AUDIENCE: USGOV,
    };
    const fromEnv = recordingDispatcher();
    await AgentUserTokenProvider.fromEnvironment(env, { dispatcher: fromEnv.dispatcher }).getToken().catch(() => undefined);
    expect(fromEnv.sent[0]?.form.scope).toBe(`${USGOV}/.default`);
  });

  it("a stack output or variable that is no api:// identifier is a UsageError naming the output or the variable, never a flag", () => {
    const bad = "https://login.microsoftonline.us";
    expect(refusal(() => AgentUserTokenProvider.fromStackOutputs({ ...ctx.out, tokenExchangeAudience: bad })).message).toBe(
      `configuration: "tokenExchangeAudience" in the stack outputs must be an api:// identifier such as ${USGOV}, got "${bad}"`,
    );
    const env = { AGENT_USER_TENANT_ID: ctx.out.tenantId, AGENT_USER_BLUEPRINT_APP_ID: ctx.out.blueprintAppId, AGENT_USER_BLUEPRINT_SECRET: "s", AGENT_USER_TOKEN_EXCHANGE_AUDIENCE: bad };
    expect(refusal(() => AgentUserTokenProvider.fromEnvironment(env)).message).toMatch(/^configuration: AGENT_USER_TOKEN_EXCHANGE_AUDIENCE must be an api:\/\/ identifier/);
  });

  it("tokenExchangeAudience overrides the resource a managed identity asks IMDS for", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const credential = { kind: "managedIdentity", clientId: ctx.out.managedIdentityClientId, imdsEndpoint: ctx.emulator.httpUrl };
    await new AgentUserTokenProvider(options({ credential, tokenExchangeAudience: USGOV, dispatcher })).getToken().catch(() => undefined);
    const imds = sent.find((r) => r.url.includes("/metadata/identity/oauth2/token"));
    expect(new URL(imds!.url).searchParams.get("resource")).toBe(USGOV);
  });
});
