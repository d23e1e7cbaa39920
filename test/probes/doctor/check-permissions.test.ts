import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentEntries, DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { forgetProvisioner } from "../../provisioner-state";
import { CHECK_OPERATIONS, CHECK_PERMISSIONS, GRAPH_OPERATIONS, operationOf, PROVISIONER_PERMISSIONS, uncovered, type OperationId } from "../../../lib/graph-permissions";
import { writeStackConfig } from "../preflight/stack-config";
import { runCli, scratchDir, type CliRun } from "../../harness";

/**
 * doctor's and preflight's reads against the emulated Graph, which authorizes
 * from Microsoft's permission tables: holding the kit's documented set (the
 * provisioner's permissions and CHECK_PERMISSIONS) both pass and between them
 * make every read the table gives them; with each permission one of those
 * reads needs taken away in turn, the check that makes the read is refused
 * with 403 Authorization_RequestDenied, and the kit's message names the
 * permission. One emulator; the provisioner's roles change through the store.
 */

const KIT_SET: readonly string[] = [...PROVISIONER_PERMISSIONS, ...CHECK_PERMISSIONS];
type Command = "doctor" | "preflight";

/** The reads of `command` that a holder of the kit's set without `missing` cannot make. */
const lostReads = (missing: string, command: Command): OperationId[] =>
  uncovered(CHECK_OPERATIONS, KIT_SET.filter((p) => p !== missing))
    .map(({ id }) => id)
    .filter((id) => GRAPH_OPERATIONS[id].callers.includes(command));

/** Every permission of the set that one of doctor's or preflight's reads cannot do without. */
const READ_SET = KIT_SET.filter((p) => lostReads(p, "doctor").length + lostReads(p, "preflight").length > 0);

const scratch = scratchDir();
let emulator: Emulator;
let env: NodeJS.ProcessEnv;
let outputs: string;
let config: string;
let plantedConfig: string;

/**
 * Beside the stack's chain, objects of its stack that another application
 * made, which preflight fails naming their owners (the owners reads): a
 * blueprint carrying the stack's tag, and an agent identity under the stack's
 * own blueprint of the same name, holding the stack's agent user UPN.
 */
function plantForeignObjects(): void {
  const { store } = emulator;
  const other = { appId: randomUUID(), principalId: randomUUID() };
  store.createServicePrincipal({ id: other.principalId, appId: other.appId, kind: "servicePrincipal", displayName: "Another app", servicePrincipalType: "Application", servicePrincipalNames: [], sponsors: [], graphAppRoles: [], createdAt: 0 });
  const blueprint = (createdBy: { appId: string; principalId: string }) =>
    store.createApplication({
      id: randomUUID(),
      appId: randomUUID(),
      kind: "agentIdentityBlueprint",
      displayName: "Planted blueprint",
      tags: ["agent-user-kit:agent-user-kit/dev/planted-blueprint"],
      sponsors: [DEFAULT_IDS.sponsorId],
      owners: [createdBy.principalId],
      createdByAppId: createdBy.appId,
      passwordCredentials: [],
      keyCredentials: [],
      federatedIdentityCredentials: [],
      createdAt: 0,
    });
  blueprint(other);
  const own = blueprint({ appId: DEFAULT_IDS.provisionerAppId, principalId: DEFAULT_IDS.provisionerPrincipalId });
  const userPrincipalName = `planted-agent@${DEFAULT_IDS.domain}`;
  const agent = agentEntries({ identityId: randomUUID(), userId: randomUUID(), displayName: "Planted agent", userPrincipalName, blueprintAppId: own.appId, sponsors: [DEFAULT_IDS.sponsorId], createdBy: other });
  store.createServicePrincipal({ ...agent.identity, createdAt: 0 });
  store.createUser({ ...agent.user, createdAt: 0 });
  plantedConfig = writeStackConfig(scratch.dir, { graphUrl: emulator.httpUrl, authorityUrl: emulator.httpUrl, blueprintName: "Planted blueprint", agentUserName: "planted-agent" });
}
beforeAll(async () => {
  emulator = await startEmulator();
  const p = emulator.provisioner()!;
  env = { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret };
  outputs = join(scratch.dir, "outputs.json");
  writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
  // preflight against this very chain, held by the stack "dev": its UPN check then reads the agent user and its identity too.
  emulator.store.updateApplication(DEFAULT_IDS.blueprintObjectId, { tags: ["agent-user-kit:agent-user-kit/dev/agent-user-kit-blueprint"] });
  config = writeStackConfig(scratch.dir, { graphUrl: emulator.httpUrl, authorityUrl: emulator.httpUrl, blueprintName: "Research agent blueprint", agentUserName: "research-agent" });
  plantForeignObjects();
});
afterAll(async () => {
  await emulator.close();
  scratch.remove();
});

function setRoles(graphAppRoles: readonly string[]): void {
  emulator.store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles: [...graphAppRoles] });
}

interface Run extends CliRun {
  /** The operations of the Graph calls made, each with its status. */
  calls: Array<{ op: OperationId | undefined; status: number }>;
}

/**
 * doctor both ways it finds the chain (by the ids of --outputs; by the
 * AGENT_USER_* variables, which lists blueprints and principals), or
 * preflight; each with a fresh provisioner token.
 */
async function runs(command: Command): Promise<Run[]> {
  const o = emulator.outputs();
  const byVariables = {
    AGENT_USER_TENANT_ID: o.tenantId,
    AGENT_USER_AUTHORITY_URL: o.authorityUrl,
    AGENT_USER_GRAPH_URL: o.graphUrl,
    AGENT_USER_BLUEPRINT_APP_ID: o.blueprintAppId,
    AGENT_USER_BLUEPRINT_SECRET: o.blueprintClientSecret,
    AGENT_USER_AGENT_IDENTITY_ID: o.agentIdentityId,
    AGENT_USER_AGENT_USER_ID: o.agentUserPrincipalName,
  };
  const ways: Array<[string[], NodeJS.ProcessEnv]> =
    command === "doctor"
      ? [
          [["doctor", "--outputs", outputs], env],
          [["doctor"], { ...env, ...byVariables }],
        ]
      : [
          [["preflight", "--config-from-stack", config, "--stack", "dev"], env],
          [["preflight", "--config-from-stack", plantedConfig, "--stack", "dev"], env],
        ];
  const all: Run[] = [];
  for (const [argv, vars] of ways) {
    forgetProvisioner();
    const from = emulator.requests.length;
    const run = await runCli(argv, vars);
    const graph = emulator.requests.slice(from).filter((r) => r.surface === "graph");
    expect(graph.filter((r) => r.method !== "GET")).toEqual([]);
    all.push({ ...run, calls: graph.map((r) => ({ op: operationOf(r.method, r.path.split("?")[0]!), status: r.status })) });
  }
  return all;
}

describe("doctor's and preflight's Graph permissions", () => {
  it("holding the kit's set, doctor and preflight pass and between them make every read the table gives them", async () => {
    setRoles(KIT_SET);
    const done = [...(await runs("doctor")), ...(await runs("preflight"))];
    // The last run meets the planted objects, their owners read and named: the agent user's UPN fails
    // (exit 8); the blueprint only warns, as `pulumi up` neither adopts nor stops for another's blueprint.
    expect(done.map((r) => [r.code, r.stderr])).toEqual([...done.slice(0, -1).map(() => [0, ""]), [8, ""]]);
    expect(done.at(-1)!.stdout).toMatch(/^warning\s+blueprint name\s+Planted blueprint\s+1 other blueprint\(s\) already carry this display name \(\S+\); the blueprint "Planted blueprint" \(\S+\) was created by application \S+, not by the provisioner \S+; its owners: application "Another app"/m);
    expect(done.at(-1)!.stdout).toMatch(/^failed\s+agent user upn\s+planted-agent@\S+\s+held by agent user \S+, whose agent identity "Planted agent" \(\S+\) was created by application \S+, not by the provisioner \S+; its owners: application "Another app"/m);
    const made = new Set(done.flatMap((r) => r.calls.filter((c) => c.status === 200).map((c) => c.op)));
    expect(CHECK_OPERATIONS.filter((id) => !made.has(id))).toEqual([]);
    // Every read permission the kit documents for these two is one the removal cases below take away.
    expect(CHECK_PERMISSIONS.filter((p) => !READ_SET.includes(p))).toEqual([]);
  });

  const cases = READ_SET.flatMap((missing) => (["doctor", "preflight"] as const).filter((c) => lostReads(missing, c).length > 0).map((command) => [command, missing] as const));

  it.each(cases)("%s without %s: the check that needs it is refused with 403 Authorization_RequestDenied, and the kit names the permission", async (command, missing) => {
    setRoles(KIT_SET.filter((p) => p !== missing));
    const lost = lostReads(missing, command);
    const done = await runs(command);
    const refused = done.flatMap((r) => r.calls.filter((c) => c.status === 403).map((c) => c.op));
    expect(refused.length).toBeGreaterThan(0);
    // Only reads the table says this permission is needed for are refused.
    expect(refused.filter((op) => !op || !lost.includes(op))).toEqual([]);
    for (const run of done.filter((r) => r.calls.some((c) => c.status === 403))) {
      const text = `${run.stdout}${run.stderr}`;
      expect(text).toContain("Authorization_RequestDenied");
      // The kit's own words, from the table: not Graph's message, which lists every permission the call accepts.
      expect(text).toContain(`needs the application permission ${missing}`);
      // doctor stops at the refused read (exit 3, the Graph code shown); preflight reports the check it could not run.
      if (command === "doctor") expect(run.code).toBe(3);
      else expect(text).toMatch(/^(?:warning .*not checked: the provisioner may not read it \(403 Authorization_RequestDenied\)|error: Graph GET .*Authorization_RequestDenied \(HTTP 403\))/m);
    }
  });
});
