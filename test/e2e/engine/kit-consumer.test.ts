/**
 * A consumer's own program declaring AgentUserKit, installed from the packed
 * tarball, through its whole life under the real engine: Pulumi's Node.js
 * host, the azuread plugin and the kit's dynamic providers against the
 * emulator.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { packTarball } from "../package/consumer";
import { lifecycleTests } from "./lifecycle";
import { consumerProject, engineWorld, type PulumiProject } from "./pulumi-cli";

jest.setTimeout(900_000);

const AGENTS = ["alpha", "beta", "gamma"];
let work: string;
let emulator: Emulator;
let project: PulumiProject;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-engine-"));
  emulator = await startEmulator();
  const world = await engineWorld(work, emulator);
  project = consumerProject(world, "consumer", packTarball(work), join(__dirname, "kit-program.js"));
  await project.init("dev", {
    "consumer:graphUrl": emulator.httpsUrl,
    "consumer:authorityUrl": emulator.httpsUrl,
    "consumer:sponsors": JSON.stringify([DEFAULT_IDS.sponsorId]),
    "consumer:userDomain": DEFAULT_IDS.domain,
    "consumer:blueprintName": "Consumer blueprint",
    "consumer:agents": JSON.stringify(AGENTS),
  });
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

lifecycleTests("a consumer's AgentUserKit program, three agents, a client secret", () => ({
  project,
  emulator,
  agents: AGENTS,
  scopes: "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read",
}));
