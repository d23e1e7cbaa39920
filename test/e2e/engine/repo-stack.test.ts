/**
 * The repository's own stack, Pulumi.yaml's infra/stack.ts, as a user runs
 * `pulumi up` in the clone: Pulumi's Node.js host compiles it with ts-node,
 * the agents come from stack configuration. Its whole life with three agents,
 * and a one-agent stack (the shorthand keys) moved to the fleet layout by the
 * same program with every Graph object kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { allMinted, graphGrantId, lifecycleTests } from "./lifecycle";
import { engineWorld, repoProject, type EngineWorld, type PulumiProject } from "./pulumi-cli";

jest.setTimeout(900_000);

const SCOPES = "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read";
let work: string;
let emulator: Emulator;
let world: EngineWorld;

/** The keys every stack of this file sets, as the README's walk-through sets them. */
const common = (stack: string): Record<string, string> => ({
  "agent-user-kit:userDomain": DEFAULT_IDS.domain,
  "agent-user-kit:blueprintName": `Repository stack (${stack})`,
  "agent-user-kit:sponsors[0]": DEFAULT_IDS.sponsorId,
  "agent-user-kit:graphUrl": emulator.httpsUrl,
  "agent-user-kit:authorityUrl": emulator.httpsUrl,
  "agent-user-kit:consistencyWindowSeconds": "0",
});

/** `agents[i].name` and `agents[i].userName` for each name. */
const fleet = (names: readonly string[]): Record<string, string> =>
  Object.fromEntries(names.flatMap((n, i) => [[`agent-user-kit:agents[${i}].name`, n], [`agent-user-kit:agents[${i}].userName`, n]]));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-engine-"));
  emulator = await startEmulator();
  world = await engineWorld(work, emulator);
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const AGENTS = ["repo-alpha", "repo-beta", "repo-gamma"];
let fleetStack: PulumiProject;
beforeAll(async () => {
  fleetStack = repoProject(world, "fleet");
  await fleetStack.init("dev", { ...common("fleet"), ...fleet(AGENTS) });
});
lifecycleTests("infra/stack.ts with three agents from stack configuration", () => ({ project: fleetStack, emulator, agents: AGENTS, scopes: SCOPES }));

describe("a one-agent stack made with the shorthand keys", () => {
  it("moves to the fleet layout by the same program: up keeps every Graph object, with no create, delete or replace of them", async () => {
    const project = repoProject(world, "solo");
    await project.init("dev", { ...common("solo"), "agent-user-kit:agentIdentityName": "solo", "agent-user-kit:agentUserName": "solo" });
    await project.ok(["up", "--yes", "--skip-preview"]);
    const before = (await project.outputs()).values;

    // The same agent first, then two more.
    await project.ok(["config", "rm", "agent-user-kit:agentIdentityName"]);
    await project.ok(["config", "rm", "agent-user-kit:agentUserName"]);
    for (const [key, value] of Object.entries(fleet(["solo", "solo-two", "solo-three"]))) await project.ok(["config", "set", "--path", key, value]);
    const preview = JSON.parse((await project.ok(["preview", "--json"])).stdout) as { steps: Array<{ op: string; urn: string }> };
    const graphSteps = preview.steps.filter((s) => /dynamic\/|azuread:index\//.test(s.urn.split("::")[2]!));
    const changed = graphSteps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn.split("::")[3]}`).sort();
    expect(changed).toEqual(
      ["agent-user-kit-solo-two", "agent-user-kit-solo-three"].flatMap((p) => [`create ${p}-grant`, `create ${p}-identity`, `create ${p}-user`]).sort(),
    );
    await project.ok(["up", "--yes", "--skip-preview"]);

    const { values: after, file } = await project.outputs();
    const solo = after.agents.solo!;
    expect([solo.agentIdentityId, solo.agentUserId, graphGrantId(solo.grantId), after.blueprintAppId]).toEqual([
      before.agentIdentityId,
      before.agentUserId,
      graphGrantId(String(before.grantId)),
      before.blueprintAppId,
    ]);
    const minted = await project.agentUser(["token", "--outputs", file, "--all"]);
    expect([minted.code, minted.stdout.trim().split("\n").pop()]).toEqual([0, allMinted(3)]);
    await project.ok(["preview", "--expect-no-changes"]);
    await project.ok(["destroy", "--yes", "--skip-preview"]);
    expect(emulator.store.agentIdentity(solo.agentIdentityId)).toBeUndefined();
  });
});
