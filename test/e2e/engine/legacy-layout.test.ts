/**
 * Stacks made before the fleet layout hold each agent identity and agent user
 * inside the component that wrapped it. The real engine moves them to today's
 * layout by aliases: the Graph objects stay, with no create, delete or
 * replace. The program declares the package's dynamic resources itself
 * (test/e2e/engine/consumer-program.js), as such a stack's program did.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { packTarball } from "../package/consumer";
import { consumerProject, engineWorld } from "./pulumi-cli";

jest.setTimeout(900_000);

let work: string;
let emulator: Emulator;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-engine-"));
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A URN's own type, without its parents' types. */
const typeOf = (urn: string) => urn.split("::")[2]!.split("$").pop()!;

it("agent identities and agent users made inside their old wrapper components move to the unwrapped layout by aliases", async () => {
  const world = await engineWorld(work, emulator);
  const project = consumerProject(world, "legacy", packTarball(work), join(__dirname, "consumer-program.js"));
  await project.init("dev", {
    "consumer:graphUrl": emulator.httpsUrl,
    "consumer:authorityUrl": emulator.httpsUrl,
    "consumer:sponsors": JSON.stringify([DEFAULT_IDS.sponsorId]),
    "consumer:userDomain": DEFAULT_IDS.domain,
    "consumer:blueprintName": "Legacy layout blueprint",
    "consumer:agents": JSON.stringify(["solo"]),
    "consumer:layout": "wrapped",
  });
  await project.ok(["up", "--yes", "--skip-preview"]);
  const made = (await project.outputs()).values.agents.solo!;

  await project.ok(["config", "set", "consumer:layout", "unwrapped"]);
  const { steps } = JSON.parse((await project.ok(["preview", "--json"])).stdout) as { steps: Array<{ op: string; urn: string }> };
  expect(steps.filter((s) => s.op !== "same" && typeOf(s.urn).startsWith("pulumi-nodejs:dynamic/")).map((s) => `${s.op} ${s.urn}`)).toEqual([]);
  // Only the wrappers, which hold no Graph object, go.
  expect(steps.filter((s) => s.op === "delete").map((s) => typeOf(s.urn))).toEqual(expect.arrayContaining(["agent-user-kit:index:AgentIdentity", "agent-user-kit:index:AgentUser"]));
  await project.ok(["up", "--yes", "--skip-preview"]);

  expect((await project.outputs()).values.agents.solo).toEqual(made);
  expect(emulator.store.agentIdentity(made.agentIdentityId)?.displayName).toBe("solo identity");
  expect(emulator.store.user(made.agentUserId)?.identityParentId).toBe(made.agentIdentityId);
  await project.ok(["preview", "--expect-no-changes"]);
  await project.ok(["destroy", "--yes", "--skip-preview"]);
  expect(emulator.store.agentIdentity(made.agentIdentityId)).toBeUndefined();
});
