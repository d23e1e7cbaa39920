/**
 * Usage and configuration errors exit 2, name the missing or invalid input,
 * and send nothing: not a single request reaches the identity provider.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveSettings } from "../../../probes/settings";
import { blueprintCertificate, NO_ENV, onlyJson, runCli, useEmulator, writeOutputs } from "../../harness";

const ctx = useEmulator();

let requestsBefore = 0;
beforeEach(() => {
  requestsBefore = ctx.emulator.requests.length;
});
afterEach(() => {
  expect(ctx.emulator.requests.slice(requestsBefore)).toEqual([]);
});

const file = (patch: Record<string, unknown> = {}) => writeOutputs(ctx.scratch.dir, ctx.out, patch);

/** Runs with --json and checks the usage failure object; returns its message and hint. */
async function usageError(argv: string[], env: NodeJS.ProcessEnv = NO_ENV): Promise<{ message: string; hint: string | null }> {
  const run = await runCli(["token", ...argv, "--json"], env);
  expect(run.code).toBe(2);
  // Nothing on stderr but the notice that a deprecated spelling was given: the refusal is the JSON on stdout.
  expect(run.stderr.replace(/^agent-user token: --[a-z-]+ is deprecated and goes in the next release; use --[a-z-]+\n/gm, "")).toBe("");
  const body = onlyJson(run);
  expect(body).toMatchObject({ ok: false, hop: null, status: null, error: "usage", codes: [] });
  return { message: String(body.message), hint: body.hint as string | null };
}

describe("missing inputs", () => {
  it("nothing configured: names the tenant flag and its environment variable; the human form goes to stderr", async () => {
    const { message } = await usageError([]);
    expect(message).toMatch(/missing --tenant \(or AGENT_USER_TENANT_ID, or "tenantId" in --outputs\)/);
    const human = await runCli(["token"], NO_ENV);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe("");
    expect(human.stderr).toMatch(/^error: configuration: missing --tenant/);
  });

  it.each([
    ["blueprintAppId", /missing --blueprint-app-id \(or AGENT_USER_BLUEPRINT_APP_ID/],
    ["agentIdentityId", /missing --agent-identity \(or AGENT_USER_AGENT_IDENTITY_ID/],
  ])("--outputs without %s", async (key, expected) => {
    expect((await usageError(["--outputs", file({ [key]: undefined })])).message).toMatch(expected);
  });

  it("--outputs without agentUserId and agentUserPrincipalName", async () => {
    const { message } = await usageError(["--outputs", file({ agentUserId: undefined, agentUserPrincipalName: undefined })]);
    expect(message).toMatch(/missing --agent-user \(or AGENT_USER_AGENT_USER_ID/);
  });

  it("no blueprint credential anywhere", async () => {
    const { message } = await usageError(["--outputs", file({ blueprintClientSecret: undefined, managedIdentityClientId: undefined })]);
    expect(message).toMatch(/no blueprint credential: set AGENT_USER_BLUEPRINT_SECRET/);
  });

  it("two blueprint credentials at once", async () => {
    const cert = blueprintCertificate(ctx.emulator, ctx.scratch.dir, { upload: false });
    const { message } = await usageError(["--outputs", file(), "--blueprint-cert", cert.certFile, "--blueprint-key", cert.keyFile], { AGENT_USER_BLUEPRINT_SECRET: "s" });
    expect(message).toMatch(/more than one blueprint credential given \(certificate, secret\)/);
  });

  it("a certificate without its key, and a key that does not belong to the certificate", async () => {
    const a = blueprintCertificate(ctx.emulator, ctx.scratch.dir, { upload: false });
    const b = blueprintCertificate(ctx.emulator, ctx.scratch.dir, { upload: false });
    expect((await usageError(["--outputs", file(), "--blueprint-cert", a.certFile])).message).toMatch(/needs both --blueprint-cert and --blueprint-key/);
    expect((await usageError(["--outputs", file(), "--blueprint-cert", a.certFile, "--blueprint-key", b.keyFile])).message).toMatch(/the blueprint private key does not belong to the certificate/);
  });

  it("a --blueprint-secret-file that cannot be read is refused in the words every unreadable file gets", async () => {
    const { message } = await usageError(["--outputs", file(), "--blueprint-secret-file", `${ctx.scratch.dir}/no-secret.txt`]);
    expect(message).toBe("configuration: cannot read the file --blueprint-secret-file names: ENOENT");
  });

  it("an --outputs file that cannot be read, or is not an object", async () => {
    expect((await usageError(["--outputs", `${ctx.scratch.dir}/nope.json`])).message).toMatch(/cannot read --outputs .*nope\.json: ENOENT/);
    const arrayFile = writeOutputs(ctx.scratch.dir, ctx.out, {}, "array.json");
    writeFileSync(arrayFile, "[1,2]");
    expect((await usageError(["--outputs", arrayFile])).message).toMatch(/is not a JSON object of stack outputs/);
  });

  it("a malformed --outputs file: the error names the position, never the text around it (the secret)", async () => {
    const broken = writeOutputs(ctx.scratch.dir, ctx.out, {}, "broken.json");
    writeFileSync(broken, '{"tenantId": "x", "blueprintClientSecret": s3cr3t-value-do-not-print}');
    const { message, hint } = await usageError(["--outputs", broken]);
    expect(message).toMatch(/cannot read --outputs .*broken\.json: not valid JSON at line 1, column 44: expected a value, found a letter$/);
    expect(message).not.toMatch(/s3cr3t/);
    expect(hint).toMatch(/pulumi stack output --json --show-secrets/);
  });

  it('an --outputs file written without --show-secrets ("[secret]")', async () => {
    const { message, hint } = await usageError(["--outputs", file({ blueprintClientSecret: "[secret]" })]);
    expect(message).toMatch(/blueprintClientSecret is "\[secret\]"/);
    expect(hint).toMatch(/pulumi stack output --json --show-secrets/);
  });
});

describe("invalid inputs", () => {
  it.each([
    ["--blueprint-app-id", "my-blueprint", /--blueprint-app-id must be the blueprint's appId \(a GUID\), got "my-blueprint"/],
    ["--agent-identity", "1234", /--agent-identity must be the agent identity's object id \(a GUID\), got "1234"/],
    ["--agent-user", "research-agent", /--agent-user must be the agent user's object id \(a GUID\) or its UPN, got "research-agent"/],
    // Entra's username policy: no period right before the @ (the stack config and the providers refuse it too).
    ["--agent-user", "research.@contoso.onmicrosoft.com", /--agent-user must be the agent user's object id \(a GUID\) or its UPN, got "research\.@contoso\.onmicrosoft\.com"/],
    ["--tenant", "not a tenant", /--tenant must be the tenant's GUID or a domain, got "not a tenant"/],
    ["--timeout", "soon", /--timeout must be a number of seconds, got "soon"/],
    ["--consistency-window", "2m", /--consistency-window must be a number of seconds, got "2m"/],
    ["--replication-window", "2m", /--replication-window must be a number of seconds, got "2m"/],
    // 0 s, or more than a Node timer holds (it then fires after 1 ms), would time out every request: exit 4 instead of 2.
    ["--timeout", "0", /--timeout must be a number of seconds, got "0"/],
    ["--timeout", "", /--timeout must be a number of seconds, got ""/],
    ["--timeout", "1e10", /--timeout must be a number of seconds, got "1e10"/],
  ])("%s %s", async (flag, value, expected) => {
    expect((await usageError(["--outputs", file(), flag, value])).message).toMatch(expected);
  });

  it("every bad input at once, each named by the flag, the variable or the --outputs key it came from", async () => {
    const { message } = await usageError(["--outputs", file({ agentIdentityId: "1234" }), "--tenant", "not a tenant"], { AGENT_USER_BLUEPRINT_APP_ID: "my-blueprint" });
    expect(message).toBe(
      'configuration: --tenant must be the tenant\'s GUID or a domain, got "not a tenant"; AGENT_USER_BLUEPRINT_APP_ID must be the blueprint\'s appId (a GUID), got "my-blueprint"; "agentIdentityId" in --outputs must be the agent identity\'s object id (a GUID), got "1234"',
    );
  });

  it("--consistency-window with its deprecated spelling --replication-window: refused, naming the one to keep", async () => {
    const refused = await usageError(["--outputs", file(), "--consistency-window", "10", "--replication-window", "10"]);
    expect(refused.message).toMatch(/--consistency-window and --replication-window were both given/);
    expect(refused.hint).toMatch(/give --consistency-window only/);
  });

  it("an empty --resource is refused rather than sending scope=/.default", async () => {
    expect((await usageError(["--outputs", file(), "--resource", " "])).message).toMatch(/--resource must be a non-empty string such as https:\/\/graph\.microsoft\.com, got " "/);
  });

  it("an authority URL with a user name and password is refused without repeating it", async () => {
    const { message } = await usageError(["--outputs", file(), "--authority", "https://ops:hunter2@login.example.com"]);
    expect(message).toMatch(/--authority must not carry a user name or password/);
    expect(message).not.toContain("hunter2");
  });

  it("an empty --blueprint-secret-file is an error, not a fall-back to the outputs file's secret", async () => {
    const empty = join(ctx.scratch.dir, "empty-secret");
    writeFileSync(empty, "\n");
    expect((await usageError(["--outputs", file(), "--blueprint-secret-file", empty])).message).toBe("configuration: the file --blueprint-secret-file names is empty");
  });

  it("an unknown flag names the command's --help", async () => {
    const { message, hint } = await usageError(["--outputs", file(), "--secret", "x"]);
    expect(message).toMatch(/--secret/);
    expect(hint).toMatch(/agent-user token --help/);
  });
});

describe("plain http is refused except on loopback", () => {
  it.each([
    ["the flag", ["--authority", "http://example.com"], NO_ENV, {}],
    ["the environment", [], { AGENT_USER_AUTHORITY_URL: "http://login.example.com:8080" }, {}],
    ["--outputs", [], NO_ENV, { authorityUrl: "http://10.0.0.5" }],
    ["the Graph URL", [], { AGENT_USER_GRAPH_URL: "http://graph.example.com" }, {}],
  ])("an http:// authority from %s: exit 2", async (_from, argv, env, patch) => {
    const { message } = await usageError(["--outputs", file(patch), ...argv], env);
    expect(message).toMatch(/must use https \(plain http is accepted only for loopback hosts/);
  });

  it("an IMDS endpoint on plain http that is neither IMDS nor loopback", async () => {
    const { message } = await usageError(["--outputs", file({ blueprintClientSecret: undefined })], { AGENT_USER_IMDS_ENDPOINT: "http://imds.example.com" });
    expect(message).toMatch(/AGENT_USER_IMDS_ENDPOINT must use https/);
  });

  it.each(["http://169.254.169.254.example.com", "http://169.254.169.254@imds.example.com"])("an IMDS endpoint that only starts like IMDS: %s", async (imds) => {
    const { message } = await usageError(["--outputs", file({ blueprintClientSecret: undefined })], { AGENT_USER_IMDS_ENDPOINT: imds });
    expect(message).toMatch(/AGENT_USER_IMDS_ENDPOINT must (use https|not carry a user name or password)/);
  });

  it("an authority with a path is refused, by the rule the stack config and the providers use", async () => {
    const { message } = await usageError(["--outputs", file(), "--authority", "https://login.microsoftonline.com/contoso.onmicrosoft.com"]);
    expect(message).toMatch(/--authority must be a base URL with no path, query or fragment, such as https:\/\/login\.microsoftonline\.com/);
  });

  it("a base URL is kept as its origin, as the stack config and the providers keep it: case, :443 and a slash are spelling", () => {
    const settings = resolveSettings({ outputs: file(), authority: "https://LOGIN.microsoftonline.com:443/", graph: "https://Graph.Microsoft.com/" }, NO_ENV, ctx.scratch.dir);
    expect(settings).toMatchObject({ authorityUrl: "https://login.microsoftonline.com", graphUrl: "https://graph.microsoft.com" });
  });

  it("an authority that is not a URL", async () => {
    expect((await usageError(["--outputs", file(), "--authority", "login.microsoftonline.com"])).message).toMatch(/--authority is not an absolute URL/);
  });
});

describe("empty environment variables", () => {
  it("count as unset, so --outputs and the defaults still apply (as for the credential variables)", () => {
    const settings = resolveSettings({ outputs: file() }, { AGENT_USER_TENANT_ID: "", AGENT_USER_RESOURCE_URL: "", AGENT_USER_AGENT_USER_ID: "", AGENT_USER_AUTHORITY_URL: "" }, ctx.scratch.dir);
    expect(settings).toMatchObject({ tenantId: ctx.out.tenantId, resource: ctx.out.resourceUrl, agentUser: ctx.out.agentUserId, authorityUrl: ctx.out.authorityUrl });
  });
});

describe("help", () => {
  it("agent-user --help and agent-user token --help exit 0 and print usage", async () => {
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/agent-user token \[options\]/);
    expect(top.stdout).toMatch(/2 usage or configuration error/);
    const token = await runCli(["token", "--help"]);
    expect(token.code).toBe(0);
    expect(token.stdout).toMatch(/--show-token/);
    expect(token.stdout).toMatch(/--consistency-window SECONDS/);
    expect(token.stdout).toMatch(/--replication-window SECONDS +deprecated spelling of --consistency-window/);
  });

  it("no command, or an unknown one, exits 2", async () => {
    expect((await runCli([])).code).toBe(2);
    const unknown = await runCli(["tokens"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "tokens"/);
  });

  it("help --help and help -h print the usage, exit 0", async () => {
    for (const flag of ["--help", "-h"]) {
      const run = await runCli(["help", flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^agent-user: mint and probe Microsoft Entra agent user tokens/);
    }
  });

  it("help for a command that does not exist exits 2, with the likely one", async () => {
    const run = await runCli(["help", "tokn"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^agent-user: no command "tokn" to help with; did you mean "token"\?/);
  });
});
