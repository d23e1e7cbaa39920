import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrokenLink } from "../../../emulator/faults";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { forgetProvisioner } from "../../provisioner-state";
import { formatChecks, ok } from "../../../probes/checks";
import { runCli, scratchDir, type CliRun } from "../../harness";

/**
 * `agent-user doctor` over real HTTP against the emulator: a healthy chain,
 * then each `--faults break=LINK`, diagnosed by exit code, link and fix; and
 * never a Graph write, by the emulator's request log.
 */

const scratch = scratchDir();
afterAll(() => scratch.remove());

interface Run extends CliRun {
  emulator: Emulator;
}

/** Starts an emulator with `breaks`, runs doctor against its outputs as its provisioner, and closes it. */
async function doctor(breaks: BrokenLink[], args: string[] = [], agents?: number, prepare?: (e: Emulator) => void, env: Record<string, string> = {}): Promise<Run> {
  const emulator = await startEmulator({ breaks, agents });
  prepare?.(emulator);
  try {
    const outputs = join(scratch.dir, `outputs-${breaks.join("-") || "healthy"}-${agents ?? 1}.json`);
    writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
    const p = emulator.provisioner()!;
    forgetProvisioner();
    const run = await runCli(["doctor", "--outputs", outputs, ...args], { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret, ...env });
    return { ...run, emulator };
  } finally {
    await emulator.close();
  }
}

/** The request log holds no Graph write: only GETs on Graph, and token requests. */
function onlyReads(emulator: Emulator): void {
  const graph = emulator.requests.filter((r) => r.surface === "graph");
  expect(graph.length).toBeGreaterThan(5);
  expect(graph.filter((r) => r.method !== "GET")).toEqual([]);
  expect(emulator.requests.filter((r) => r.surface !== "graph" && r.surface !== "token")).toEqual([]);
}

const line = (stdout: string, status: string, link: string) => new RegExp(`^\\s*${status}\\s+${link}\\s{2,}`, "m").test(stdout);

describe("agent-user doctor", () => {
  it("a healthy chain: every link ok, exit 0, only reads", async () => {
    const run = await doctor([]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    for (const link of ["blueprint", "blueprint credential", "blueprint principal", "agent identity", "agent user", "grant", "tokens"]) {
      expect(line(run.stdout, "ok", link)).toBe(true);
    }
    expect(run.stdout).toContain(DEFAULT_IDS.agentIdentityId);
    expect(run.stdout).not.toContain("what to do");
    expect(run.stdout).not.toMatch(/emu~|eyJ[A-Za-z0-9_-]+\./);
    onlyReads(run.emulator);
  });

  it("--json: one object with a links array", async () => {
    const run = await doctor([], ["--json"]);
    const json = JSON.parse(run.stdout) as { ok: boolean; links: Array<{ link: string; status: string; id?: string }> };
    expect(json.ok).toBe(true);
    expect(json.links.map((l) => l.link)).toEqual(["blueprint", "blueprint credential", "blueprint principal", "agent identity", "agent user", "grant", "tokens"]);
    expect(json.links.find((l) => l.link === "agent user")?.id).toBe(DEFAULT_IDS.agentUserId);
  });

  const cases: Array<[BrokenLink, string, RegExp, RegExp]> = [
    ["blueprint-secret-expired", "blueprint credential", /the secret in use, password "dev" \(keyId [0-9a-f-]+\), expired on \d{4}-\d\d-\d\d/, /blueprint credential: rotate the secret: .*secretEndDate.*pulumi up/],
    ["grant-other-user", "grant", new RegExp(`grant is for user ${DEFAULT_IDS.sponsorId}, not the agent user ${DEFAULT_IDS.agentUserId}`), /grant: run `pulumi refresh`, then `pulumi up`, which grants the scopes/],
    ["user-other-parent", "agent user", /its identityParentId is [0-9a-f-]+, not the agent identity/, /agent user: run `pulumi refresh`, then `pulumi up`/],
    ["identity-disabled", "agent identity", /"Research agent" is disabled: no token is issued to it \(AADSTS7000112\)/, /agent identity: enable it again in the Microsoft Entra admin center/],
    ["sponsor-deleted", "agent identity", /it has no sponsor left: every sponsor was deleted/, /agent identity: set agent-user-kit:sponsors to people who are still in the tenant and run `pulumi up`/],
  ];

  it.each(cases)("break=%s: exit 8, the %s link failed, with its fix; only reads", async (fault, link, detail, fix) => {
    const run = await doctor([fault]);
    expect(run.code).toBe(8);
    expect(line(run.stdout, "failed", link)).toBe(true);
    expect(run.stdout).toMatch(detail);
    expect(run.stdout).toMatch(fix);
    // Only the broken link and the tokens it explains fail.
    const failedLinks = [...run.stdout.matchAll(/^failed\s+(\S+(?: \S+)?)\s{2,}/gm)].map((m) => m[1]);
    expect(failedLinks.filter((l) => l !== link && l !== "tokens")).toEqual([]);
    onlyReads(run.emulator);
  });

  it.each([
    ["blueprint-secret-expired", "blueprint credential", "AADSTS7000222"],
    ["grant-other-user", "grant", "AADSTS65001"],
    ["identity-disabled", "agent identity", "AADSTS7000112"],
  ] as const)("break=%s: the failed hop is laid on the %s link (%s)", async (fault, link, code) => {
    const run = await doctor([fault]);
    expect(run.stdout).toMatch(new RegExp(`^failed\\s+tokens\\s+hop \\d \\([a-z ]+\\) failed: ${code}.*; explained by the ${link} link$`, "m"));
  });

  const appId = "7c3e9a12-5d4b-4e6f-8a1c-2b3d4e5f6a7b";
  const resource = `api://${appId}`;
  it.each([
    [true, resource],
    [false, resource],
    [true, `${resource}/`],
  ])("a resource other than Graph, named by its identifier URI, has its grant checked (granted: %s; registered as %s)", async (granted, registered) => {
    const run = await doctor([], ["--resource", resource, "--fail-on-warning"], undefined, (e) => {
      const sp = e.store.createServicePrincipal({
        id: e.store.newId(),
        appId,
        kind: "servicePrincipal",
        displayName: "Contoso MCP tools",
        servicePrincipalType: "Application",
        servicePrincipalNames: [registered, appId],
        sponsors: [],
        graphAppRoles: [],
        // An hour old: long replicated, as a resource API an admin consented to.
        createdAt: Date.now() - 3_600_000,
      });
      const scope = e.outputs().grantScopes as string;
      if (granted) e.store.createGrant({ id: e.store.newId(), clientId: DEFAULT_IDS.agentIdentityId, consentType: "Principal", principalId: DEFAULT_IDS.agentUserId, resourceId: sp.id, scope, effectiveAt: 0 });
    });
    if (granted) {
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^ok\\s+grant\\s+\\S+\\s+Principal grant on ${appId}: `, "m"));
      expect(line(run.stdout, "ok", "tokens")).toBe(true);
    } else {
      expect(run.code).toBe(8);
      expect(run.stdout).toMatch(/^failed\s+grant\s+.*no delegated permission grant from the agent identity to this resource for the agent user: hop 3 fails with AADSTS65001$/m);
      expect(run.stdout).toMatch(/^failed\s+tokens\s+hop 3 \(agent user token\) failed: AADSTS65001.*; explained by the grant link$/m);
    }
    expect(run.stdout).not.toMatch(/^warning/m);
    onlyReads(run.emulator);
  });

  it("a resource with no service principal in the tenant: the grant link says so", async () => {
    const run = await doctor([], ["--resource", "api://contoso-unknown-api"]);
    expect(run.code).toBe(8);
    expect(run.stdout).toMatch(/^failed\s+grant\s+.*the resource api:\/\/contoso-unknown-api has no service principal in the tenant$/m);
    expect(run.stdout).toMatch(/^failed\s+tokens\s+hop 3 \(agent user token\) failed: AADSTS500011.*; explained by the grant link$/m);
  });

  it("a secret ending within --warn-days is a warning: exit 0, or 8 with --fail-on-warning", async () => {
    const warned = await doctor([], ["--warn-days", "400"]);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toMatch(/^warning\s+blueprint credential\s+[0-9a-f-]+\s+the secret in use ends on \d{4}-\d\d-\d\d, within 400 days$/m);
    const strict = await doctor([], ["--warn-days", "400", "--fail-on-warning", "--json"]);
    expect(strict.code).toBe(8);
    expect(JSON.parse(strict.stdout).ok).toBe(false);
  });

  it("--all checks every agent of a fleet, naming each", async () => {
    const run = await doctor(["grant-other-user"], ["--all"], 3);
    expect(run.code).toBe(8);
    expect(run.stdout).toMatch(/^agent research-agent\n/m);
    expect(run.stdout).toMatch(/^agent agent-3\n/m);
    expect(run.stdout).toMatch(/research-agent: grant: run `pulumi refresh`/);
    expect(run.stdout).not.toMatch(/agent-2: grant:/);
    onlyReads(run.emulator);
    // What the agents share (the blueprint, its credentials and principal, the resource) is read once per run.
    const gets = run.emulator.requests.filter((r) => r.surface === "graph" && r.method === "GET").map((r) => r.path);
    const times = (path: RegExp) => gets.filter((p) => path.test(p)).length;
    expect(times(/\/federatedIdentityCredentials$/)).toBe(1);
    expect(times(/^\/v1\.0\/servicePrincipals$/)).toBe(1);
    expect(times(/agentIdentityBlueprint$/)).toBe(1);
    expect(times(/microsoft\.graph\.agentIdentity$/)).toBe(3);
  });

  it("--all: each agent is checked with its own ids from the file; the agent variables of the environment are not read", async () => {
    const other = "00000000-0000-4000-8000-000000000001";
    const run = await doctor([], ["--all", "--json"], 3, undefined, { AGENT_USER_AGENT_IDENTITY_ID: other, AGENT_USER_AGENT_USER_ID: other });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const json = JSON.parse(run.stdout) as { ok: boolean; links: Array<{ agent: string; link: string; status: string; id?: string }> };
    expect(json.ok).toBe(true);
    const outputs = run.emulator.outputs();
    expect([...new Set(json.links.map((l) => l.agent))]).toEqual(Object.keys(outputs.agents!));
    for (const [name, agent] of Object.entries(outputs.agents!)) {
      expect(json.links.find((l) => l.agent === name && l.link === "agent identity")?.id).toBe(agent.agentIdentityId);
      expect(json.links.find((l) => l.agent === name && l.link === "agent user")?.id).toBe(agent.agentUserId);
    }
    expect(run.stdout).not.toContain(other);
    onlyReads(run.emulator);
  });

  it("objects that look right but a grant not yet replicated: the tokens link says replication lag, and how old the newest object is", async () => {
    const run = await doctor([], [], undefined, (e) => {
      // The agent user was made a minute ago, and its grant has not reached the token endpoint yet.
      e.store.setCreatedAt(DEFAULT_IDS.agentUserId, Date.now() - 60_000);
      e.store.replicateGrantAt(DEFAULT_IDS.grantId, Date.now() + 600_000);
    });
    expect(run.code).toBe(8);
    expect(line(run.stdout, "ok", "grant")).toBe(true);
    expect(run.stdout).toMatch(/^failed\s+tokens\s+hop 3 \(agent user token\) failed: AADSTS65001.*; the objects look right, so this is likely replication lag; the newest object, the agent user, was created 1 min ago$/m);
    expect(run.stdout).toMatch(/tokens: wait 2 to 5 minutes and run doctor again/);
  });

  it("without --outputs, from the AGENT_USER_* variables: the blueprint and its principal are found by appId", async () => {
    const emulator = await startEmulator();
    try {
      const out = emulator.outputs();
      const p = emulator.provisioner()!;
      forgetProvisioner();
      const run = await runCli(["doctor", "--json"], {
        ARM_TENANT_ID: p.tenantId,
        ARM_CLIENT_ID: p.clientId,
        ARM_CLIENT_SECRET: p.clientSecret,
        AGENT_USER_TENANT_ID: out.tenantId,
        AGENT_USER_AUTHORITY_URL: out.authorityUrl,
        AGENT_USER_GRAPH_URL: out.graphUrl,
        AGENT_USER_BLUEPRINT_APP_ID: out.blueprintAppId,
        AGENT_USER_BLUEPRINT_SECRET: out.blueprintClientSecret,
        AGENT_USER_AGENT_IDENTITY_ID: out.agentIdentityId,
        AGENT_USER_AGENT_USER_ID: out.agentUserPrincipalName,
      });
      expect(run.code).toBe(0);
      const links = (JSON.parse(run.stdout) as { links: Array<{ link: string; id?: string; status: string }> }).links;
      expect(links.find((l) => l.link === "blueprint")).toMatchObject({ status: "ok", id: DEFAULT_IDS.blueprintObjectId });
      expect(links.find((l) => l.link === "blueprint principal")).toMatchObject({ status: "ok", id: DEFAULT_IDS.blueprintPrincipalId });
      expect(links.find((l) => l.link === "agent user")).toMatchObject({ status: "ok", id: DEFAULT_IDS.agentUserId });
    } finally {
      await emulator.close();
    }
  });

  it("no provisioner credential is exit 2, naming ARM_* and --env-out, with nothing sent", async () => {
    const emulator = await startEmulator();
    try {
      const outputs = join(scratch.dir, "outputs-nocred.json");
      writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
      const run = await runCli(["doctor", "--outputs", outputs], {});
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/ARM_TENANT_ID/);
      expect(run.stderr).toMatch(/--env-out/);
      expect(emulator.requests).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("--config-from-stack: the stack's azuread: keys win over ARM_*, as in `pulumi up`; a secret left out of the file gives way to its ARM_* twin, or is exit 2", async () => {
    const emulator = await startEmulator();
    try {
      const outputs = join(scratch.dir, "outputs-azuread.json");
      writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
      const p = emulator.provisioner()!;
      // What `pulumi config --json` prints: fully qualified keys, a secret's value only with --show-secrets.
      const stackFile = (secret: string | undefined) => {
        const file = join(scratch.dir, `config-${secret ?? "left-out"}.json`);
        const clientSecret = secret === undefined ? { secret: true } : { value: secret, secret: true };
        // A kit key kept secret and left out is preflight's concern, never doctor's.
        writeFileSync(file, JSON.stringify({ "agent-user-kit:sponsors": { secret: true }, "azuread:tenantId": { value: p.tenantId, secret: false }, "azuread:clientId": { value: p.clientId, secret: false }, "azuread:clientSecret": clientSecret }), { mode: 0o600 });
        return file;
      };
      const wrongArm = { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: "wrong" };

      forgetProvisioner();
      const fromFileOnly = await runCli(["doctor", "--outputs", outputs, "--config-from-stack", stackFile(p.clientSecret)], {});
      expect(fromFileOnly.code).toBe(0);
      forgetProvisioner();
      const overArm = await runCli(["doctor", "--outputs", outputs, "--config-from-stack", stackFile(p.clientSecret)], wrongArm);
      expect(overArm.code).toBe(0);

      forgetProvisioner();
      const leftOutWithArm = await runCli(["doctor", "--outputs", outputs, "--config-from-stack", stackFile(undefined)], wrongArm);
      expect(leftOutWithArm.code).toBe(3);
      expect(leftOutWithArm.stderr).toMatch(/AADSTS7000215/);

      const sent = emulator.requests.length;
      const leftOut = await runCli(["doctor", "--outputs", outputs, "--config-from-stack", stackFile(undefined)], {});
      expect(leftOut.code).toBe(2);
      expect(leftOut.stderr).toMatch(/azuread:clientSecret is a secret/);
      expect(leftOut.stderr).toMatch(/pulumi config --json --show-secrets/);
      expect(leftOut.stderr).toMatch(/ARM_CLIENT_SECRET/);
      expect(emulator.requests.length).toBe(sent);
      for (const run of [fromFileOnly, overArm, leftOutWithArm, leftOut]) expect(`${run.stdout}${run.stderr}`).not.toContain(p.clientSecret);
    } finally {
      await emulator.close();
    }
  });

  it("a refused provisioner is exit 3 (AADSTS7000215), not 8, with a hint about the provisioner's secret, not the blueprint's", async () => {
    const run = await doctor([], [], undefined, undefined, { ARM_CLIENT_SECRET: "wrong" });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/AADSTS7000215/);
    expect(run.stderr).toMatch(/the provisioner's client secret \(ARM_CLIENT_SECRET\) is wrong or has expired/);
    expect(run.stderr).not.toMatch(/blueprintClientSecret/);
  });
});

it("a report of 200,000 checks (doctor --all over a large fleet) is printed whole, one line each", () => {
  const checks = Array.from({ length: 200_000 }, (_, i) => ({ ...ok(i === 0 ? "blueprint principal" : "grant", undefined, "found"), agent: `agent-${i}` }));
  const lines = formatChecks(checks).trimEnd().split("\n");
  expect(lines).toHaveLength(400_000);
  expect(lines[3]).toBe("  ok       grant                found");
});
