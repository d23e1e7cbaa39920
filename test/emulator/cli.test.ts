import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { DEFAULT_IDS, defaultTenant } from "../../emulator/seed";

const ROOT = resolve(__dirname, "../..");
const CLI = join(ROOT, "dist/probes/agent-user.js");
const TENANT_ID = "11111111-2222-4333-8444-555555555555";

/** Starts `agent-user emulator` and resolves once it says it is listening. */
function startCli(args: string[], cwd: string): Promise<{ child: ChildProcessWithoutNullStreams; stdout: () => string }> {
  const child = spawn(process.execPath, [CLI, "emulator", ...args], { cwd });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((done, fail) => {
    child.stdout.on("data", () => out.includes("press Ctrl+C") && done({ child, stdout: () => out }));
    child.on("exit", (code) => fail(new Error(`emulator exited early with ${code}: ${out}`)));
  });
}

/** Its exit code once its output is all read: "exit" can come before the last stdout chunk, "close" cannot. */
function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((done) => child.on("close", (code) => done(code)));
}

describe("agent-user emulator", () => {
  let dir: string;
  beforeAll(() => {
    // `npm test` builds first; rebuilding here would rewrite the bundles other test workers are loading.
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    dir = mkdtempSync(join(tmpdir(), "agent-user-emulator-cli-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("serves a --tenant file with --faults, writes its outputs, and exits 0 on SIGTERM", async () => {
    writeFileSync(join(dir, "tenant.json"), JSON.stringify({ ...defaultTenant(), tenantId: TENANT_ID }));
    const { child, stdout } = await startCli(["--tenant", "tenant.json", "--faults", "429=1,retry-after=0,on=token", "--outputs", "outputs.json", "--ca-file", "ca.pem"], dir);
    try {
      expect(stdout()).toContain(`tenant ${TENANT_ID}`);
      expect(stdout()).toMatch(/http: +http:\/\/127\.0\.0\.1:\d+/);
      const outputs = JSON.parse(readFileSync(join(dir, "outputs.json"), "utf8"));
      expect(outputs.tenantId).toBe(TENANT_ID);
      expect(statSync(join(dir, "outputs.json")).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, "ca.pem"), "utf8")).toContain("BEGIN CERTIFICATE");

      // The first token request meets the injected 429 and is retried.
      const token = spawnSync(process.execPath, [CLI, "token", "--outputs", "outputs.json", "--json"], { cwd: dir, encoding: "utf8" });
      expect(token.status).toBe(0);
      expect(JSON.parse(token.stdout).claims.tid).toBe(TENANT_ID);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
    expect(stdout()).toContain("emulator stopped (SIGTERM)");
  });

  it("removes an earlier run's --outputs and --env-out files at start, before it listens", async () => {
    const stale = mkdtempSync(join(dir, "stale-"));
    writeFileSync(join(stale, "outputs.json"), '{"tenantId":"stale"}');
    writeFileSync(join(stale, "arm.env"), "ARM_TENANT_ID='stale'\n");
    // A port in use stops it after start-up began and before it listens: nothing of the earlier run may be left to wait on.
    const blocker = createServer();
    await new Promise<void>((ready) => blocker.listen(0, "127.0.0.1", ready));
    try {
      const port = String((blocker.address() as AddressInfo).port);
      const run = spawnSync(process.execPath, [CLI, "emulator", "--port", port, "--outputs", "outputs.json", "--env-out", "arm.env"], { cwd: stale, encoding: "utf8" });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`port ${port} is in use`);
      expect([existsSync(join(stale, "outputs.json")), existsSync(join(stale, "arm.env"))]).toEqual([false, false]);
    } finally {
      await new Promise((done) => blocker.close(done));
    }
  });

  it("--https: the outputs name the https URLs and the certificate, and a client given NODE_EXTRA_CA_CERTS runs over TLS", async () => {
    const tls = mkdtempSync(join(dir, "https-"));
    const { child } = await startCli(["--outputs", "outputs.json", "--https"], tls);
    try {
      const outputs = JSON.parse(readFileSync(join(tls, "outputs.json"), "utf8"));
      expect(outputs.authorityUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(outputs.graphUrl).toBe(outputs.authorityUrl);
      expect(outputs.caFile).toBe(join(tls, "emulator-ca.pem"));
      const token = spawnSync(process.execPath, [CLI, "token", "--outputs", "outputs.json", "--json"], {
        cwd: tls,
        encoding: "utf8",
        env: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: outputs.caFile },
      });
      expect(token.status).toBe(0);
      expect(JSON.parse(token.stdout).claims.tid).toBe(outputs.tenantId);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
  });

  it("refuses --https without --outputs with exit 2", () => {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--https"], { cwd: dir, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--https chooses the URLs the --outputs file names; give --outputs FILE too");
  });

  it("an unknown --json is a usage error in text, as the emulator prints no JSON, exit 2", () => {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--json"], { cwd: dir, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe('error: usage: unknown flag --json for agent-user emulator\nhint: see "agent-user emulator --help"\n');
  });

  it("refuses a --tenant file that is JSON but not an object with exit 2, not an internal error", () => {
    writeFileSync(join(dir, "null-tenant.json"), "null");
    const run = spawnSync(process.execPath, [CLI, "emulator", "--tenant", "null-tenant.json"], { cwd: dir, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("null-tenant.json: must be a JSON object");
  });

  it("--provisioner-roles gives the built-in provisioner exactly those permissions, which the emulated Graph enforces", async () => {
    const { child, stdout } = await startCli(["--provisioner-roles", "AgentIdentityBlueprint.Read.All, Domain.Read.All", "--env-out", "roles.env", "--outputs", "roles.json"], dir);
    try {
      const env = Object.fromEntries(
        readFileSync(join(dir, "roles.env"), "utf8")
          .trim()
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 2, -1)]),
      );
      const base = /http: +(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout())![1]!;
      const tokenAnswer = await fetch(`${base}/${env.ARM_TENANT_ID}/oauth2/v2.0/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "client_credentials", client_id: env.ARM_CLIENT_ID!, client_secret: env.ARM_CLIENT_SECRET!, scope: `${base}/.default` }),
      });
      const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
      const roles = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).roles;
      expect(roles).toEqual(["AgentIdentityBlueprint.Read.All", "Domain.Read.All"]);
      const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect((await get("/v1.0/applications/microsoft.graph.agentIdentityBlueprint")).status).toBe(200);
      const refused = await get("/v1.0/servicePrincipals/microsoft.graph.agentIdentity");
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("Authorization_RequestDenied");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
  });

  it("--features and --test-user-out: the outputs declare the opt-ins, and the seeded person's test sign-in feeds token --on-behalf-of", async () => {
    const { child } = await startCli(["--features", "appRoles,onBehalfOf", "--outputs", "features.json", "--test-user-out", "person.env"], dir);
    try {
      const outputs = JSON.parse(readFileSync(join(dir, "features.json"), "utf8"));
      expect(outputs.appRoles).toEqual([{ resource: "00000003-0000-0000-c000-000000000000", roles: ["User.Read.All"] }]);
      expect(outputs).toMatchObject({ blueprintIdentifierUri: `api://${outputs.blueprintAppId}`, blueprintScope: "access_agent", onBehalfOfScopes: "User.Read" });
      expect(statSync(join(dir, "person.env")).mode & 0o777).toBe(0o600);
      const person = Object.fromEntries(
        readFileSync(join(dir, "person.env"), "utf8")
          .trim()
          .split("\n")
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 2, -1)]),
      );
      expect(person.AGENT_USER_TEST_SCOPE).toBe(`api://${outputs.blueprintAppId}/access_agent`);
      const signIn = await fetch(person.AGENT_USER_TEST_TOKEN_URL!, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "password", client_id: person.AGENT_USER_TEST_CLIENT_ID!, username: person.AGENT_USER_TEST_USERNAME!, password: person.AGENT_USER_TEST_PASSWORD!, scope: person.AGENT_USER_TEST_SCOPE! }),
      });
      expect(signIn.status).toBe(200);
      writeFileSync(join(dir, "assertion.jwt"), ((await signIn.json()) as { access_token: string }).access_token);
      const token = (args: string[]) => spawnSync(process.execPath, [CLI, "token", "--outputs", "features.json", "--json", ...args], { cwd: dir, encoding: "utf8" });
      const app = token(["--as", "app"]);
      expect({ status: app.status, stderr: app.stderr }).toEqual({ status: 0, stderr: "" });
      expect(JSON.parse(app.stdout)).toMatchObject({ flow: "app", claims: { idtyp: "app", roles: ["User.Read.All"] } });
      const obo = token(["--on-behalf-of", "assertion.jwt"]);
      expect({ status: obo.status, stderr: obo.stderr }).toEqual({ status: 0, stderr: "" });
      expect(JSON.parse(obo.stdout)).toMatchObject({ flow: "onBehalfOf", claims: { idtyp: "user", scp: "User.Read" } });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited(child)).toBe(0);
  });

  it("serves the password grant only when a person is asked for: --test-user-out alone signs the sponsor in; a start without it or onBehalfOf gives no one a password (AADSTS50056)", async () => {
    const signIn = async (outputs: { authorityUrl: string; tenantId: string; blueprintAppId: string }, password: string) => {
      const res = await fetch(`${outputs.authorityUrl}/${outputs.tenantId}/oauth2/v2.0/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "password", client_id: DEFAULT_IDS.testClientAppId, username: `ada@${DEFAULT_IDS.domain}`, password, scope: `api://${outputs.blueprintAppId}/access_agent` }),
      });
      return [res.status, ((await res.json()) as { error_codes?: number[] }).error_codes];
    };
    for (const [args, person] of [
      [["--outputs", "plain.json"], false],
      [["--outputs", "plain.json", "--features", "appRoles"], false],
      [["--outputs", "plain.json", "--test-user-out", "plain-person.env"], true],
    ] as const) {
      const { child } = await startCli([...args], dir);
      try {
        const outputs = JSON.parse(readFileSync(join(dir, "plain.json"), "utf8"));
        const file = person ? readFileSync(join(dir, "plain-person.env"), "utf8") : undefined;
        const password = file === undefined ? "emu-pw~guess" : /^AGENT_USER_TEST_PASSWORD='([^']+)'$/m.exec(file)![1]!;
        expect({ args, answer: await signIn(outputs, password) }).toEqual({ args, answer: person ? [200, undefined] : [400, [50056]] });
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exited(child)).toBe(0);
    }
  });

  it("refuses a --features name it does not know with exit 2, listing the ones it knows", () => {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--features", "appRoles,obo"], { cwd: dir, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--features takes appRoles, onBehalfOf, comma-separated; got "obo"');
  });

  it("refuses a --provisioner-roles name it does not know with exit 2, naming the likely one", () => {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--provisioner-roles", "AgentIdentityBlueprint.Reed.All"], { cwd: dir, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("did you mean AgentIdentityBlueprint.Read.All?");
  });

  it("refuses a bad --faults spec with exit 2 before listening", () => {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--faults", "jitter=5"], { cwd: dir, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown fault "jitter"');
  });
});
