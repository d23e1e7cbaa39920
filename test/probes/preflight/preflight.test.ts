import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { forgetProvisioner } from "../../provisioner-state";
import { runCli, type CliRun } from "../../harness";
import { usePreflightTenant, writeStackConfig } from "./stack-config";

/**
 * `agent-user preflight` over real HTTP against the emulator: the checklist
 * of a new stack, each failure it exists to catch, and never a Graph write.
 */

const t = usePreflightTenant();

/** The stack config of a new stack, against the t.emulator. */
function configFile(overrides: Record<string, string | string[]> = {}): string {
  return writeStackConfig(t.scratch.dir, { graphUrl: t.emulator.httpUrl, authorityUrl: t.emulator.httpUrl, ...overrides });
}

async function preflight(args: string[]): Promise<CliRun> {
  const before = t.emulator.requests.length;
  const run = await runCli(["preflight", ...args], t.env);
  const graph = t.emulator.requests.slice(before).filter((r) => r.surface === "graph");
  expect(graph.filter((r) => r.method !== "GET")).toEqual([]);
  return run;
}

const line = (stdout: string, status: string, link: string, id: string) =>
  new RegExp(`^${status}\\s+${link}\\s+${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s`, "m").test(stdout);

describe("agent-user preflight", () => {
  it("a new stack's configuration: every check ok, exit 0, only GETs", async () => {
    const run = await preflight(["--config-from-stack", configFile()]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(line(run.stdout, "ok", "provisioner permissions", DEFAULT_IDS.provisionerAppId)).toBe(true);
    expect(line(run.stdout, "ok", "upn domain", DEFAULT_IDS.domain)).toBe(true);
    expect(line(run.stdout, "ok", "sponsor", DEFAULT_IDS.sponsorId)).toBe(true);
    expect(line(run.stdout, "ok", "resource", DEFAULT_IDS.graphPrincipalId)).toBe(true);
    expect(line(run.stdout, "ok", "scope", "Chat.ReadWrite")).toBe(true);
    expect(line(run.stdout, "ok", "blueprint name", "Support agent blueprint")).toBe(true);
    expect(line(run.stdout, "ok", "agent user upn", `support-agent@${DEFAULT_IDS.domain}`)).toBe(true);
  });

  it("the provisioner's token, asked for before any Graph call, is retried on a 429 or 503: exit 0", async () => {
    t.emulator.faults.set({ throttle: 1, unavailable: 1, retryAfterS: 0, target: "token" });
    try {
      const before = t.emulator.requests.length;
      const run = await preflight(["--config-from-stack", configFile()]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      // The faults did fire, and the third try got the token.
      expect(t.emulator.requests.slice(before).filter((r) => r.surface === "token").map((r) => r.status)).toEqual([429, 503, 200]);
      expect(line(run.stdout, "ok", "provisioner permissions", DEFAULT_IDS.provisionerAppId)).toBe(true);
    } finally {
      t.emulator.faults.reset();
    }
  });

  it("a typo scope (Chat.ReadWritte) is caught here, with the scope it likely meant: exit 8", async () => {
    const file = configFile({ scopes: ["Chat.ReadWritte", "User.Read"], allowedScopes: ["Chat.ReadWritte", "User.Read"] });
    const run = await preflight(["--config-from-stack", file, "--json"]);
    expect(run.code).toBe(8);
    const json = JSON.parse(run.stdout) as { ok: boolean; links: Array<{ link: string; status: string; id: string; detail: string; fix: string }> };
    expect(json.ok).toBe(false);
    const scope = json.links.find((l) => l.id === "Chat.ReadWritte")!;
    expect(scope).toMatchObject({ link: "scope", status: "failed" });
    expect(scope.detail).toMatch(/not a delegated scope of Microsoft Graph; did you mean Chat\.ReadWrite\?/);
    expect(scope.fix).toMatch(/agent-user-kit:scopes/);
    expect(json.links.filter((l) => l.status === "failed")).toHaveLength(1);
  });

  it("an unknown UPN domain and a sponsor who does not exist: each failed, named, with its fix", async () => {
    const gone = "0a1b2c3d-4e5f-4a6b-8c7d-000000000099";
    const run = await preflight(["--config-from-stack", configFile(), "--user-domain", "fabrikam.example", "--sponsors", `${DEFAULT_IDS.sponsorId},${gone}`]);
    expect(run.code).toBe(8);
    expect(run.stdout).toMatch(/^failed\s+upn domain\s+fabrikam\.example\s+not a domain of this tenant$/m);
    expect(run.stdout).toMatch(new RegExp(`^failed\\s+sponsor\\s+${gone}\\s+no user with this object id in the tenant$`, "m"));
    expect(line(run.stdout, "ok", "sponsor", DEFAULT_IDS.sponsorId)).toBe(true);
    expect(run.stdout).toMatch(/upn domain: set agent-user-kit:userDomain to one of the tenant's verified domains/);
    expect(run.stdout).toMatch(/sponsor: set agent-user-kit:sponsors to the object ids of people in this tenant/);
  });

  it("names held by another chain fail; held by this stack (--stack) they pass", async () => {
    const taken = configFile({ blueprintName: "Research agent blueprint", agentUserName: "research-agent" });
    const other = await preflight(["--config-from-stack", taken]);
    expect(other.code).toBe(8);
    expect(other.stdout).toMatch(/^warning\s+blueprint name\s+Research agent blueprint\s+1 other blueprint\(s\) already carry this display name/m);
    expect(other.stdout).toMatch(/^failed\s+agent user upn\s+research-agent@\S+\s+already taken by another chain's agent user/m);

    t.emulator.store.updateApplication(DEFAULT_IDS.blueprintObjectId, { tags: ["agent-user-kit:agent-user-kit/dev/agent-user-kit-blueprint"] });
    try {
      const mine = await preflight(["--config-from-stack", taken, "--stack", "dev"]);
      expect(mine.code).toBe(0);
      expect(mine.stdout).toMatch(/^ok\s+blueprint name\s+Research agent blueprint\s+held by this stack's blueprint/m);
      expect(mine.stdout).toMatch(/^ok\s+agent user upn\s+research-agent@\S+\s+held by this stack's agent user/m);
      expect((await preflight(["--config-from-stack", taken, "--stack", "prod"])).code).toBe(8);
    } finally {
      t.emulator.store.updateApplication(DEFAULT_IDS.blueprintObjectId, { tags: [] });
    }
  });

  it("a missing provisioning permission fails naming it and the admin-consent step; a missing read permission only warns", async () => {
    const { store } = t.emulator;
    const roles = (graphAppRoles: string[]) => store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles });
    const saved = [...store.servicePrincipal(DEFAULT_IDS.provisionerPrincipalId)!.graphAppRoles];
    try {
      roles(saved.filter((r) => r !== "AgentIdUser.ReadWrite.All" && r !== "Domain.Read.All"));
      const run = await preflight(["--config-from-stack", configFile()]);
      expect(run.code).toBe(8);
      expect(run.stdout).toMatch(/^failed\s+provisioner permissions\s+\S+\s+the token's roles lack AgentIdUser\.ReadWrite\.All \(to create an agent user, to update an agent user, to delete an agent user\)$/m);
      expect(run.stdout).toMatch(/provisioner permissions: for each of them: .*Grant admin consent/);
      expect(run.stdout).toMatch(/^warning\s+upn domain\s+\S+\s+not checked: the provisioner may not read it \(403 Authorization_RequestDenied\)$/m);
      expect(run.stdout).toMatch(/^ {2}upn domain: to read a domain of the tenant the provisioner needs the application permission Domain\.Read\.All /m);
      forgetProvisioner();
      roles(saved.filter((r) => r !== "Domain.Read.All"));
      const readOnly = await preflight(["--config-from-stack", configFile()]);
      expect(readOnly.code).toBe(0);
      expect(readOnly.stdout).toMatch(/^warning\s+provisioner permissions\s+\S+\s+every provisioning permission; not Domain\.Read\.All \(to read a domain of the tenant\)/m);
    } finally {
      roles(saved);
    }
  });

  it("reads the provisioner from the file's azuread: keys when no ARM_* is set", async () => {
    const p = t.emulator.provisioner()!;
    const file = configFile();
    const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    json["azuread:tenantId"] = { value: p.tenantId, secret: false };
    json["azuread:clientId"] = { value: p.clientId, secret: false };
    json["azuread:clientSecret"] = { value: p.clientSecret, secret: true };
    writeFileSync(file, JSON.stringify(json));
    const run = await runCli(["preflight", "--config-from-stack", file], {});
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("a kit key the file leaves out as a secret is exit 2 naming it and its flag, unless the flag gives it", async () => {
    const file = configFile();
    const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    json["agent-user-kit:sponsors"] = { secret: true };
    writeFileSync(file, JSON.stringify(json));
    const leftOut = await runCli(["preflight", "--config-from-stack", file], t.env);
    expect(leftOut.code).toBe(2);
    expect(leftOut.stderr).toMatch(/agent-user-kit:sponsors is a secret/);
    expect(leftOut.stderr).toMatch(/pass --sponsors/);
    const given = await runCli(["preflight", "--config-from-stack", file, "--sponsors", DEFAULT_IDS.sponsorId], t.env);
    expect(given.code).toBe(0);
  });

  it("takes the keys as flags alone, without a file", async () => {
    const run = await preflight([
      "--user-domain", DEFAULT_IDS.domain, "--blueprint-name", "Flag blueprint", "--agent-identity-name", "Flag agent", "--agent-user-name", "flag-agent",
      "--sponsors", DEFAULT_IDS.sponsorId, "--graph", t.emulator.httpUrl, "--authority", t.emulator.httpUrl,
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(line(run.stdout, "ok", "agent user upn", `flag-agent@${DEFAULT_IDS.domain}`)).toBe(true);
  });

  const flagsAlone = ["--user-domain", DEFAULT_IDS.domain, "--blueprint-name", "Env blueprint", "--agent-identity-name", "Env agent", "--agent-user-name", "env-agent", "--sponsors", DEFAULT_IDS.sponsorId];

  it("reads AGENT_USER_GRAPH_URL and AGENT_USER_AUTHORITY_URL as the other commands do, over the file's graphUrl and authorityUrl", async () => {
    const elsewhere = writeStackConfig(t.scratch.dir, { graphUrl: "https://graph.invalid", authorityUrl: "https://login.invalid", userDomain: DEFAULT_IDS.domain });
    const before = t.emulator.requests.length;
    const run = await runCli(["preflight", "--config-from-stack", elsewhere, ...flagsAlone.slice(2)], { ...t.env, AGENT_USER_GRAPH_URL: t.emulator.httpUrl, AGENT_USER_AUTHORITY_URL: t.emulator.httpUrl });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(t.emulator.requests.slice(before).map((r) => r.surface)).toEqual(expect.arrayContaining(["token", "graph"]));
  });

  it("the old --graph-url and --authority-url still work, each with a deprecation line on stderr; with the new flag too it is exit 2", async () => {
    const run = await preflight([...flagsAlone, "--graph-url", t.emulator.httpUrl, "--authority-url", t.emulator.httpUrl]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      "agent-user preflight: --graph-url is deprecated and goes in the next release; use --graph\n" +
        "agent-user preflight: --authority-url is deprecated and goes in the next release; use --authority\n",
    );
    const both = await preflight([...flagsAlone, "--graph", t.emulator.httpUrl, "--graph-url", t.emulator.httpUrl, "--authority", t.emulator.httpUrl]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--graph and --graph-url are the same setting/);
  });

  it("a misspelt scope outside the allow-list is exit 2 with the allowed scope it likely meant, with nothing sent to Graph", async () => {
    const before = t.emulator.requests.length;
    const run = await runCli(["preflight", "--config-from-stack", configFile({ scopes: ["Chat.ReadWritte", "User.Read"] })], t.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/agent-user-kit:scopes holds Chat\.ReadWritte \(did you mean Chat\.ReadWrite\?\), not in the allow-list/);
    expect(t.emulator.requests.length).toBe(before);
  });

  it("a malformed --config-from-stack file is exit 2 at its line and column, never quoting it (it may hold the provisioner secret)", async () => {
    const file = join(t.scratch.dir, "broken-config.json");
    writeFileSync(file, '{\n  "azuread:clientSecret": {"value": s3cr3t-provisioner, "secret": true}\n}');
    const run = await preflight(["--config-from-stack", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot read --config-from-stack ${file}: not valid JSON at line 2, column 37: expected a value, found a letter`);
    expect(run.stderr).not.toContain("s3cr3t");
  });

  it("invalid configuration is exit 2 naming the key, with nothing sent to Graph", async () => {
    const before = t.emulator.requests.length;
    const run = await runCli(["preflight", "--config-from-stack", configFile({ sponsors: ["ada@contoso.onmicrosoft.com"] })], t.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/agent-user-kit:sponsors must hold user object ids/);
    expect(t.emulator.requests.length).toBe(before);
  });

  describe("a stack's opt-in features", () => {
    /** A stack whose one agent holds Graph's User.Read.All, with the blueprint's exposed API when `onBehalfOf`. */
    function optInFile(onBehalfOf: boolean): string {
      const file = configFile(onBehalfOf ? { onBehalfOfScope: "access_agent" } : {});
      const json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      delete json["agent-user-kit:agentIdentityName"];
      delete json["agent-user-kit:agentUserName"];
      const agents = [{ name: "ops", userName: "ops-agent", appRoles: [{ resource: "00000003-0000-0000-c000-000000000000", roles: ["User.Read.All"] }], ...(onBehalfOf ? { onBehalfOfScopes: ["User.Read"] } : {}) }];
      json["agent-user-kit:agents"] = { value: JSON.stringify(agents), objectValue: agents, secret: false };
      writeFileSync(file, JSON.stringify(json));
      return file;
    }

    it("asks the provisioner for a feature's permission only for a stack that uses it, naming what it is for", async () => {
      const { store } = t.emulator;
      const saved = [...store.servicePrincipal(DEFAULT_IDS.provisionerPrincipalId)!.graphAppRoles];
      expect(saved).not.toContain("AppRoleAssignment.ReadWrite.All");
      const lacking = await preflight(["--config-from-stack", optInFile(true)]);
      expect(lacking.code).toBe(8);
      expect(lacking.stdout).toMatch(/^failed\s+provisioner permissions\s+\S+\s+the token's roles lack AppRoleAssignment\.ReadWrite\.All \(to assign an app role[^)]*\); AgentIdentityBlueprint\.UpdateAuthProperties\.All \(to /m);
      try {
        store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles: [...saved, "AppRoleAssignment.ReadWrite.All", "AgentIdentityBlueprint.UpdateAuthProperties.All"] });
        forgetProvisioner();
        const held = await preflight(["--config-from-stack", optInFile(true)]);
        expect(held.code).toBe(0);
        expect(held.stdout).toMatch(/^ok\s+provisioner permissions\s+\S+\s+every provisioning permission \(with this stack's appRoles and onBehalfOf: AppRoleAssignment\.ReadWrite\.All, AgentIdentityBlueprint\.UpdateAuthProperties\.All\)/m);
      } finally {
        store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles: saved });
      }
      // The stack without the exposed API is not asked for its permission.
      forgetProvisioner();
      const appRolesOnly = await preflight(["--config-from-stack", optInFile(false)]);
      expect(appRolesOnly.stdout).not.toMatch(/UpdateAuthProperties/);
      expect(appRolesOnly.stdout).toMatch(/lack AppRoleAssignment\.ReadWrite\.All/);
    });
  });
});
