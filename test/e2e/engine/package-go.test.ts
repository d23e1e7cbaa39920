/**
 * A Go program over the SDK generated from the installed package's schema
 * (`pulumi package gen-sdk`, or on an engine built from Go modules Pulumi's
 * same code generators: pulumi-cli.ts's addKitPackage): Pulumi's Go
 * host builds it with the Go toolchain, and the engine runs the kit's
 * executable plugin to construct AgentUserKit, against the emulator, through
 * up, `agent-user token --all` and destroy.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { OPT_IN_OUTPUT_KEYS, STACK_OUTPUT_KEYS } from "../../../lib/stack-outputs";
import { packTarball } from "../package/consumer";
import { packageLifecycleTests } from "./lifecycle";
import { addKitPackage, engineWorld, packageProject, type PulumiProject } from "./pulumi-cli";

jest.setTimeout(900_000);

const AGENTS = ["go-one"];
let work: string;
let emulator: Emulator;
let project: PulumiProject;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-package-go-"));
  emulator = await startEmulator();
  const world = await engineWorld(work, emulator);
  project = packageProject(world, "go-sdk", packTarball(work), {
    "Pulumi.yaml": "name: go-sdk\nruntime: go\n",
    "go.mod": "module go-sdk\n\ngo 1.25\n",
    "main.go": readFileSync(join(__dirname, "kit-sdk-program.go"), "utf8"),
  });
  await addKitPackage(project, "go");
  // As a Go user does once the program imports the SDK: its requirements, from the Go module proxy.
  await project.tool("go", ["mod", "tidy"]);
  await project.init("dev", { sponsor: DEFAULT_IDS.sponsorId, userDomain: DEFAULT_IDS.domain, url: emulator.httpsUrl, agents: JSON.stringify(AGENTS) });
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("adding the package points the Go module at the SDK it generated", () => {
  expect(readFileSync(join(project.dir, "go.mod"), "utf8")).toMatch(/\nreplace example\.com\/pulumi-agent-user-kit\/sdk\/go => \.\/sdks\/agent-user-kit\n/);
});

packageLifecycleTests("a Go program over the generated SDK, one agent", () => ({
  project,
  emulator,
  agents: AGENTS,
  scopes: "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read",
  // What a TypeScript stack in secret mode exports.
  outputs: [...STACK_OUTPUT_KEYS.filter((key) => key !== "managedIdentityClientId" && !(OPT_IN_OUTPUT_KEYS as readonly string[]).includes(key)), "agents"],
}));
