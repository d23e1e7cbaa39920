/**
 * A JavaScript program over the SDK generated from the installed package's
 * schema (`pulumi package gen-sdk`, or on an engine built from Go modules
 * Pulumi's same code generators: pulumi-cli.ts's addKitPackage),
 * the path Python, Go and C# programs take: the engine runs the kit's
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

const AGENTS = ["js-one", "js-two"];
/** What a TypeScript stack in secret mode exports. */
const OUTPUTS = [...STACK_OUTPUT_KEYS.filter((key) => key !== "managedIdentityClientId" && !(OPT_IN_OUTPUT_KEYS as readonly string[]).includes(key)), "agents"];
/** The client secret's expiry the program gives in the credential object. */
const PASSWORD_EXPIRY = "2099-06-30T00:00:00Z";
let work: string;
let emulator: Emulator;
let project: PulumiProject;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-package-js-"));
  emulator = await startEmulator();
  const world = await engineWorld(work, emulator);
  project = packageProject(world, "js-sdk", packTarball(work), {
    "Pulumi.yaml": "name: js-sdk\nruntime: nodejs\nmain: index.js\n",
    "index.js": readFileSync(join(__dirname, "kit-sdk-program.js"), "utf8"),
  });
  await addKitPackage(project, "nodejs");
  await project.init("dev", {
    sponsor: DEFAULT_IDS.sponsorId,
    userDomain: DEFAULT_IDS.domain,
    url: emulator.httpsUrl,
    agents: JSON.stringify(AGENTS),
    outputs: JSON.stringify(OUTPUTS),
    credentialExpiry: PASSWORD_EXPIRY,
  });
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("adding the package generates @pulumi/agent-user-kit into the program's dependencies and lists the plugin in Pulumi.yaml", () => {
  const pkg = JSON.parse(readFileSync(join(project.dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  expect(pkg.dependencies["@pulumi/agent-user-kit"]).toBe("file:sdks/agent-user-kit");
  expect(readFileSync(join(project.dir, "Pulumi.yaml"), "utf8")).toMatch(/\nplugins:\n {2}providers:\n {4}- name: agent-user-kit\n {6}path: \.\/node_modules\/agent-user-kit\n/);
});

packageLifecycleTests("a JavaScript program over the generated SDK, two agents, the credential one object", () => ({
  project,
  emulator,
  agents: AGENTS,
  scopes: "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read",
  outputs: OUTPUTS,
  // The credential object crossed the wire whole: the client secret expires when the program said.
  made: (outputs) => expect(emulator.store.applicationByAppId(outputs.blueprintAppId)?.passwordCredentials.map((p) => p.endDateTime)).toEqual([new Date(PASSWORD_EXPIRY).toISOString()]),
}));
