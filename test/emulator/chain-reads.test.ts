import { execFile, spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseFaultSpec, type BrokenLink } from "../../emulator/faults";
import { DEFAULT_IDS, defaultTenant } from "../../emulator/seed";
import { CHECK_PERMISSIONS, PROVISIONER_PERMISSIONS } from "../../lib/graph-permissions";
import type { Emulator } from "../../emulator/server";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { decodeJwtClaims } from "../../lib/jwt";
import { runCli, scratchDir } from "../harness";

const execFileAsync = promisify(execFile);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
import { startDirectory, type Directory } from "./directory-client";

/**
 * The Graph reads `agent-user doctor` and `preflight` make, with Graph's
 * shapes; `--faults break=LINK`; and `emulator --env-out`.
 */

/** Hop 1 to 3 through the CLI, as JSON. */
async function mint(emulator: Emulator, dir: string): Promise<{ code: number; json: Record<string, unknown> }> {
  const file = join(dir, `outputs-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(emulator.outputs()), { mode: 0o600 });
  const run = await runCli(["token", "--outputs", file, "--json"]);
  return { code: run.code, json: JSON.parse(run.stdout) as Record<string, unknown> };
}

describe("emulated Graph: the reads of doctor and preflight", () => {
  let d: Directory;
  beforeAll(async () => {
    d = await startDirectory({ tenant: defaultTenant() });
  });
  afterAll(() => d.close());

  it("the provisioner's token carries the kit's provisioning permissions and the reads doctor and preflight add", () => {
    expect(d.emulator.provisioner()).toMatchObject({ tenantId: DEFAULT_IDS.tenantId, clientId: DEFAULT_IDS.provisionerAppId });
    expect(decodeJwtClaims(d.token)?.roles).toEqual([...PROVISIONER_PERMISSIONS, ...CHECK_PERMISSIONS]);
  });

  it("GET /v1.0/domains/{id}: a verified domain, and 404 Request_ResourceNotFound for another", async () => {
    const ok = await d.call("GET", `/v1.0/domains/${DEFAULT_IDS.domain}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: DEFAULT_IDS.domain, isVerified: true, isDefault: true, authenticationType: "Managed" });
    const missing = await d.call("GET", "/v1.0/domains/fabrikam.example");
    expect(missing.status).toBe(404);
    expect((missing.body.error as { code: string }).code).toBe("Request_ResourceNotFound");
  });

  it("GET /v1.0/users/{id}: a person and an agent user, and 404 for an unknown id; identityParentId only on the agent user's typed URL", async () => {
    const person = await d.call("GET", `/v1.0/users/${DEFAULT_IDS.sponsorId}`);
    expect(person.status).toBe(200);
    expect(person.body).toMatchObject({ id: DEFAULT_IDS.sponsorId, userPrincipalName: `ada@${DEFAULT_IDS.domain}` });
    const agent = await d.call("GET", `/v1.0/users/${DEFAULT_IDS.agentUserId}`);
    expect(agent.body).toMatchObject({ "@odata.type": "#microsoft.graph.agentUser", id: DEFAULT_IDS.agentUserId });
    expect(agent.body.identityParentId).toBeUndefined();
    const typed = await d.call("GET", `/v1.0/users/microsoft.graph.agentUser/${DEFAULT_IDS.agentUserId}?$select=id,identityParentId`);
    expect(typed.body).toMatchObject({ identityParentId: DEFAULT_IDS.agentIdentityId });
    expect((await d.call("GET", "/v1.0/users/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });

  it("a blueprint's credentials with their end dates: passwords, certificates and federated credentials", async () => {
    const blueprint = await d.call("GET", `/v1.0/applications/${DEFAULT_IDS.blueprintObjectId}/microsoft.graph.agentIdentityBlueprint`);
    const [password] = blueprint.body.passwordCredentials as Array<Record<string, unknown>>;
    expect(password).toMatchObject({ displayName: "dev", secretText: null });
    expect(Date.parse(password!.endDateTime as string)).toBeGreaterThan(Date.now());
    expect(blueprint.body.keyCredentials).toEqual([]);
    expect(typeof blueprint.body.createdDateTime).toBe("string");
    const fics = await d.call("GET", `/v1.0/applications/${DEFAULT_IDS.blueprintObjectId}/federatedIdentityCredentials`);
    expect((fics.body.value as Array<Record<string, unknown>>)[0]).toMatchObject({ subject: DEFAULT_IDS.managedIdentityPrincipalId, audiences: ["api://AzureADTokenExchange"] });
  });

  it("Microsoft Graph's service principal publishes its delegated scopes in oauth2PermissionScopes", async () => {
    const answer = await d.call("GET", `/v1.0/servicePrincipals?$filter=appId eq '${MICROSOFT_GRAPH_APP_ID}'&$select=id,oauth2PermissionScopes`);
    const [graph] = answer.body.value as Array<{ oauth2PermissionScopes: Array<Record<string, unknown>> }>;
    const values = graph!.oauth2PermissionScopes.map((s) => s.value);
    expect(values).toEqual(expect.arrayContaining(["Chat.ReadWrite", "User.Read", "Files.Read.All"]));
    expect(graph!.oauth2PermissionScopes[0]).toMatchObject({ isEnabled: true, type: "User", id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it("service principals by an identifier URI among servicePrincipalNames (any); that collection with eq, or appId with any, is refused", async () => {
    const found = await d.call("GET", `/v1.0/servicePrincipals?$filter=${encodeURIComponent("servicePrincipalNames/any(n:n eq 'https://graph.microsoft.com')")}&$select=id,appId`);
    expect(found.body.value).toEqual([{ id: expect.any(String), appId: MICROSOFT_GRAPH_APP_ID }]);
    for (const filter of ["servicePrincipalNames eq 'https://graph.microsoft.com'", `appId/any(n:n eq '${MICROSOFT_GRAPH_APP_ID}')`]) {
      const refused = await d.call("GET", `/v1.0/servicePrincipals?$filter=${encodeURIComponent(filter)}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: "Request_UnsupportedQuery" } });
    }
  });

  it("grants by $filter on clientId and consentType, the properties Graph documents as filterable; principalId is refused", async () => {
    const filter = `clientId eq '${DEFAULT_IDS.agentIdentityId}' and consentType eq 'Principal'`;
    const answer = await d.call("GET", `/v1.0/oauth2PermissionGrants?$filter=${encodeURIComponent(filter)}`);
    // The agent user's grant, and the identity's on-behalf-of consent for the seeded person.
    expect(answer.body.value).toEqual([
      expect.objectContaining({ principalId: DEFAULT_IDS.agentUserId, scope: expect.stringContaining("Chat.ReadWrite") }),
      expect.objectContaining({ id: DEFAULT_IDS.oboGrantId, principalId: DEFAULT_IDS.sponsorId, scope: "User.Read" }),
    ]);
    const refused = await d.call("GET", `/v1.0/oauth2PermissionGrants?$filter=${encodeURIComponent(`principalId eq '${DEFAULT_IDS.agentUserId}'`)}`);
    expect(refused.status).toBe(400);
    expect((refused.body.error as { code: string }).code).toBe("Request_UnsupportedQuery");
  });
});

describe("--faults break=LINK", () => {
  const scratch = scratchDir();
  afterAll(() => scratch.remove());

  it("parses each link, repeatable, and refuses an unknown one naming the five", () => {
    expect(parseFaultSpec("break=identity-disabled,break=sponsor-deleted,break=identity-disabled").breaks).toEqual(["identity-disabled", "sponsor-deleted"]);
    expect(() => parseFaultSpec("break=grant")).toThrow(
      /break=grant must be one of blueprint-secret-expired, grant-other-user, user-other-parent, identity-disabled, sponsor-deleted/,
    );
  });

  const cases: Array<[BrokenLink, (d: Directory) => Promise<void>]> = [
    [
      "blueprint-secret-expired",
      async (d) => {
        const { code, json } = await mint(d.emulator, scratch.dir);
        expect([code, json.hop, json.codes]).toEqual([3, 1, [7000222]]);
      },
    ],
    [
      "grant-other-user",
      async (d) => {
        const { code, json } = await mint(d.emulator, scratch.dir);
        expect([code, json.hop, json.codes]).toEqual([3, 3, [65001]]);
        const grants = await d.call("GET", `/v1.0/oauth2PermissionGrants?$filter=clientId eq '${DEFAULT_IDS.agentIdentityId}'`);
        expect(grants.body.value).toEqual([expect.objectContaining({ principalId: DEFAULT_IDS.sponsorId }), expect.objectContaining({ id: DEFAULT_IDS.oboGrantId })]);
      },
    ],
    [
      "user-other-parent",
      async (d) => {
        const user = await d.call("GET", `/v1.0/users/microsoft.graph.agentUser/${DEFAULT_IDS.agentUserId}`);
        expect(user.body.identityParentId).not.toBe(DEFAULT_IDS.agentIdentityId);
        const { code, json } = await mint(d.emulator, scratch.dir);
        expect([code, json.hop]).toEqual([3, 3]);
      },
    ],
    [
      "identity-disabled",
      async (d) => {
        const identity = await d.call("GET", `/v1.0/servicePrincipals/${DEFAULT_IDS.agentIdentityId}/microsoft.graph.agentIdentity`);
        expect(identity.body.accountEnabled).toBe(false);
        const { code, json } = await mint(d.emulator, scratch.dir);
        expect([code, json.hop, json.codes]).toEqual([3, 2, [7000112]]);
      },
    ],
    [
      "sponsor-deleted",
      async (d) => {
        const sponsors = await d.call("GET", `/v1.0/servicePrincipals/${DEFAULT_IDS.agentIdentityId}/microsoft.graph.agentIdentity/sponsors`);
        expect(sponsors.body.value).toEqual([]);
        expect((await d.call("GET", `/v1.0/users/${DEFAULT_IDS.sponsorId}`)).status).toBe(404);
      },
    ],
  ];
  it.each(cases)("break=%s breaks that link, and the outputs stay those of the chain before", async (link, check) => {
    const d = await startDirectory({ tenant: defaultTenant(), breaks: [link] });
    try {
      expect(d.emulator.outputs()).toMatchObject({ agentIdentityId: DEFAULT_IDS.agentIdentityId, agentUserId: DEFAULT_IDS.agentUserId, grantId: DEFAULT_IDS.grantId });
      await check(d);
    } finally {
      await d.close();
    }
  });
});

describe("agent-user emulator --env-out", () => {
  const scratch = scratchDir();
  afterAll(() => scratch.remove());

  it("writes the provisioner's ARM_* settings, the azuread provider's cloud and the certificate's trust (0600) that a shell sources with set -a", async () => {
    const envFile = join(scratch.dir, "arm.env");
    const outputs = join(scratch.dir, "outputs.json");
    const ca = join(scratch.dir, "ca.pem");
    const running = runCli(["emulator", "--env-out", envFile, "--outputs", outputs, "--ca-file", ca], {}, scratch.dir);
    try {
      for (let i = 0; i < 200 && !existsSync(outputs); i++) await new Promise((r) => setTimeout(r, 25));
      expect(lstatSync(envFile).mode & 0o777).toBe(0o600);
      const text = readFileSync(envFile, "utf8");
      // Both trust variables name the bundle beside the certificate, which ends with it.
      const bundle = join(scratch.dir, "emulator-trust.pem");
      const quotedBundle = `'${bundle.replace(/'/g, "'\\''")}'`;
      expect(text).toMatch(
        new RegExp(
          `^ARM_TENANT_ID='[0-9a-f-]{36}'\nARM_CLIENT_ID='[0-9a-f-]{36}'\nARM_CLIENT_SECRET='emu~[^']+'\nARM_METADATA_HOSTNAME='127\\.0\\.0\\.1:[0-9]+'\n` +
            `SSL_CERT_FILE=${escapeRegExp(quotedBundle)}\nNODE_EXTRA_CA_CERTS=${escapeRegExp(quotedBundle)}\n$`,
        ),
      );
      expect(readFileSync(bundle, "utf8").trimEnd().endsWith(readFileSync(ca, "utf8").trimEnd())).toBe(true);
      const shell = spawnSync("bash", ["-c", `set -a; . "${envFile}"; set +a; printf '%s %s %s' "$ARM_TENANT_ID" "$ARM_CLIENT_ID" "\${#ARM_CLIENT_SECRET}"`], { encoding: "utf8" });
      expect(shell.stdout).toBe(`${DEFAULT_IDS.tenantId} ${DEFAULT_IDS.provisionerAppId} ${/ARM_CLIENT_SECRET='([^']+)'/.exec(text)![1]!.length}`);
      // The sourced shell alone trusts the HTTPS listener by its IP address and finds the cloud metadata there.
      const probe = `fetch("https://" + process.env.ARM_METADATA_HOSTNAME + "/metadata/endpoints?api-version=2022-09-01").then(async (r) => console.log(r.status, JSON.stringify(await r.json())))`;
      // Asynchronous: the emulator answers from this process.
      const metadata = await execFileAsync("bash", ["-c", `set -a; . "${envFile}"; set +a; exec "${process.execPath}" -e '${probe}'`], { encoding: "utf8", timeout: 20_000 });
      expect(metadata.stderr).toBe("");
      const host = /ARM_METADATA_HOSTNAME='([^']+)'/.exec(text)![1]!;
      const [status, body] = [metadata.stdout.slice(0, 3), JSON.parse(metadata.stdout.slice(4)) as Record<string, unknown>];
      expect(status).toBe("200");
      expect(body).toMatchObject({
        resourceManager: `https://${host}/`,
        microsoftGraphResourceId: `https://${host}/`,
        authentication: { loginEndpoint: `https://${host}`, audiences: [`https://${host}/`], tenant: "common" },
      });
      expect(typeof body.name).toBe("string");
    } finally {
      process.emit("SIGTERM");
    }
    const run = await running;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`provisioner settings written to ${envFile}`);
  });

  it("never writes through a symbolic link", async () => {
    const target = join(scratch.dir, "elsewhere");
    const link = join(scratch.dir, "link.env");
    symlinkSync(target, link);
    const run = await runCli(["emulator", "--env-out", link], {}, scratch.dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--env-out .*link\.env is a symbolic link/);
    expect(existsSync(target)).toBe(false);
  });

  it("refuses the old --env-file (and Node's --env-file-if-exists), which Node reads itself, with exit 2 naming --env-out", async () => {
    const old = join(scratch.dir, "old.env");
    writeFileSync(old, "ARM_TENANT_ID='kept'\n");
    for (const argv of [["--env-file", old], [`--env-file=${old}`], ["--outputs", join(scratch.dir, "never.json"), "--env-file-if-exists", old]]) {
      const run = await runCli(["emulator", ...argv], {}, scratch.dir);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--env-file was renamed to --env-out: Node reads --env-file itself");
      expect(run.stderr).toContain("hint: write the provisioner settings with --env-out FILE");
    }
    expect(readFileSync(old, "utf8")).toBe("ARM_TENANT_ID='kept'\n");
    expect(existsSync(join(scratch.dir, "never.json"))).toBe(false);
  });
});
