import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { runCli, type CliRun } from "../../harness";
import { usePreflightTenant, writeStackConfig } from "./stack-config";

/**
 * What `agent-user preflight` counts as "held by this stack": a blueprint
 * carrying the stack's adoption tag, with the project and stack names the
 * component writes into it (`agent-user-kit:<project>/<stack>/<component>`),
 * that the provisioner itself created, as `pulumi up` would adopt it. A
 * tagged blueprint another application made is neither the stack's nor in
 * its way, as for `pulumi up`: a warning naming who made it. And a provisioner that may not list blueprints still gets the
 * whole checklist, the missing permission named as a failed check.
 */

const t = usePreflightTenant();

/** The seeded chain's blueprint and agent user, as the stack's names. */
const taken = () => writeStackConfig(t.scratch.dir, { graphUrl: t.emulator.httpUrl, authorityUrl: t.emulator.httpUrl, blueprintName: "Research agent blueprint", agentUserName: "research-agent" });

/** A stack directory whose Pulumi.yaml names `project`, as `pulumi new` writes it. */
function stackDir(project: string): string {
  const dir = join(t.scratch.dir, `stack-${project}`);
  mkdirSync(join(dir, "infra"), { recursive: true });
  writeFileSync(join(dir, "Pulumi.yaml"), `name: ${project}\nruntime:\n  name: nodejs\ndescription: a stack  # with a comment\n`);
  return dir;
}

async function preflight(args: string[], cwd?: string): Promise<CliRun> {
  const before = t.emulator.requests.length;
  const run = await runCli(["preflight", ...args], t.env, cwd);
  expect(t.emulator.requests.slice(before).filter((r) => r.surface === "graph" && r.method !== "GET")).toEqual([]);
  return run;
}

/** Runs `body` with the seeded blueprint carrying `tags`, then takes them off. */
async function tagged(tags: string[], body: () => Promise<void>): Promise<void> {
  t.emulator.store.updateApplication(DEFAULT_IDS.blueprintObjectId, { tags });
  try {
    await body();
  } finally {
    t.emulator.store.updateApplication(DEFAULT_IDS.blueprintObjectId, { tags: [] });
  }
}

const HELD = /^ok\s+blueprint name\s+Research agent blueprint\s+held by this stack's blueprint/m;
const UPN_HELD = /^ok\s+agent user upn\s+research-agent@\S+\s+held by this stack's agent user/m;

describe("agent-user preflight: which blueprint is this stack's", () => {
  it("reads the project's name from Pulumi.yaml (here or above), as the component writes it into the tag; another project's tag is not this stack's", async () => {
    const dir = stackDir("contoso-agents");
    await tagged(["agent-user-kit:contoso-agents/dev/kit-blueprint"], async () => {
      for (const cwd of [dir, join(dir, "infra")]) {
        const mine = await preflight(["--config-from-stack", taken(), "--stack", "dev"], cwd);
        expect({ cwd, code: mine.code, stderr: mine.stderr }).toEqual({ cwd, code: 0, stderr: "" });
        expect(mine.stdout).toMatch(HELD);
        expect(mine.stdout).toMatch(UPN_HELD);
      }
      expect((await preflight(["--config-from-stack", taken(), "--stack", "prod"], dir)).code).toBe(8);
      const other = await preflight(["--config-from-stack", taken(), "--stack", "dev"], stackDir("agent-user-kit"));
      expect(other.code).toBe(8);
      expect(other.stdout).not.toMatch(HELD);
      // --project names it where no Pulumi.yaml is at hand.
      expect((await preflight(["--config-from-stack", taken(), "--stack", "dev", "--project", "contoso-agents"])).stdout).toMatch(HELD);
    });
  });

  it("counts a blueprint whose tag ends in the stack's nonce, made by the provisioner, as this stack's, as it does one with the base tag alone", async () => {
    await tagged([`agent-user-kit:contoso-agents/dev/kit-blueprint/${"0f".repeat(16)}`], async () => {
      const mine = await preflight(["--config-from-stack", taken(), "--stack", "dev", "--project", "contoso-agents"]);
      expect(mine.stdout).toMatch(HELD);
      expect(mine.stdout).toMatch(UPN_HELD);
    });
  });

  it("a Pulumi.yaml without a project name is exit 2 naming the file and --project, before any Graph call", async () => {
    const dir = join(t.scratch.dir, "nameless");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "Pulumi.yaml"), "runtime: nodejs\n");
    const before = t.emulator.requests.length;
    const run = await runCli(["preflight", "--config-from-stack", taken()], t.env, dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(dir, "Pulumi.yaml")} names no project (a top-level "name:" line)`);
    expect(run.stderr).toContain("--project NAME");
    expect(t.emulator.requests.length).toBe(before);
  });

  it("a blueprint carrying this stack's tag that another application created is not in the way, as for `pulumi up`: a warning naming it, its creator and its owners; its agent user is not this stack's", async () => {
    const planter = { appId: "7e57a11e-0000-4000-8000-0000000000aa", principalId: "7e57a11e-0000-4000-8000-0000000000ab" };
    t.emulator.store.createServicePrincipal({ id: planter.principalId, appId: planter.appId, kind: "servicePrincipal", displayName: "Another app", servicePrincipalType: "Application", servicePrincipalNames: [], sponsors: [], graphAppRoles: [], createdAt: 0 });
    const blueprint = t.emulator.store.application(DEFAULT_IDS.blueprintObjectId)!;
    const made = { createdByAppId: blueprint.createdByAppId, owners: blueprint.owners };
    Object.assign(blueprint, { createdByAppId: planter.appId, owners: [planter.principalId, DEFAULT_IDS.sponsorId] });
    try {
      await tagged(["agent-user-kit:contoso-agents/dev/kit-blueprint"], async () => {
        const run = await preflight(["--config-from-stack", taken(), "--stack", "dev", "--project", "contoso-agents", "--json"]);
        expect(run.code).toBe(8);
        const links = (JSON.parse(run.stdout) as { links: Array<{ link: string; status: string; detail: string; fix?: string }> }).links;
        const name = links.find((l) => l.link === "blueprint name")!;
        expect(name.status).toBe("warning");
        expect(name.detail).toContain(`the blueprint "Research agent blueprint" (${DEFAULT_IDS.blueprintObjectId}) was created by application ${planter.appId}, not by the provisioner ${DEFAULT_IDS.provisionerAppId}`);
        expect(name.detail).toContain(`its owners: application "Another app" (appId ${planter.appId}, principal ${planter.principalId}), user "Ada Sponsor" <ada@${DEFAULT_IDS.domain}>`);
        expect(name.detail).toContain("carrying this stack's adoption tag form, made by another application: `pulumi up` neither adopts them nor stops for them");
        // The exit 8 is the UPN's, taken by an agent user of no chain of this stack's.
        expect(links.filter((l) => l.status === "failed").map((l) => l.link)).toEqual(["agent user upn"]);
      });
    } finally {
      Object.assign(blueprint, made);
    }
  });

  it("a provisioner that may not list blueprints gets the whole checklist: the permission named as a failed check (exit 8), the name check not run", async () => {
    const roles = (graphAppRoles: string[]) => t.emulator.store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles });
    const saved = [...t.emulator.store.servicePrincipal(DEFAULT_IDS.provisionerPrincipalId)!.graphAppRoles];
    roles(saved.filter((r) => r !== "AgentIdentityBlueprint.Read.All"));
    try {
      const run = await preflight(["--config-from-stack", taken()]);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 8, stderr: "" });
      expect(run.stdout).toMatch(/^failed\s+provisioner permissions\s+\S+\s+the token's roles lack AgentIdentityBlueprint\.Read\.All \(to list agent identity blueprints/m);
      expect(run.stdout).toMatch(/^warning\s+blueprint name\s+Research agent blueprint\s+not checked: the provisioner may not read it \(403 Authorization_RequestDenied\)$/m);
      expect(run.stdout).toMatch(/^ {2}blueprint name: to list agent identity blueprints the provisioner needs the application permission AgentIdentityBlueprint\.Read\.All/m);
      // Whose agent user holds the UPN cannot be told without the blueprints: not checked, rather than guessed.
      expect(run.stdout).toMatch(/^warning\s+agent user upn\s+research-agent@\S+\s+not checked/m);
      expect(run.stdout).toMatch(/^ok\s+upn domain\s/m);
    } finally {
      roles(saved);
    }
  });
});
