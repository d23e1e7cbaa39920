/**
 * A YAML program using the kit's executable plugin: the README's
 * `Pulumi.yaml`, as written (it names the plugin's folder under
 * `plugins.providers`), in a folder where the packed tarball and the two
 * Pulumi peers are installed as the README's `npm install` installs them.
 * `pulumi package get-schema` of the installed executable prints
 * docs/schema.json; the program goes through up, `agent-user token --all`
 * and destroy against the emulator; a program whose folder lacks the install
 * is refused at preview, naming the fix; so is a secret argument that
 * fails a check, which the error names without its value.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { PACKAGE_VERSION } from "../../../lib/version";
import { packTarball, readmeExample, REPO } from "../package/consumer";
import { packageLifecycleTests } from "./lifecycle";
import { bareProject, engineWorld, packageProject, type EngineWorld, type PulumiProject } from "./pulumi-cli";

jest.setTimeout(900_000);

const PROGRAM = readmeExample("### From Python, Go, C# or YAML", "yaml package");
const AGENTS = ["support", "triage"];
let work: string;
let emulator: Emulator;
let world: EngineWorld;
let project: PulumiProject;
let tarball: string;

/** The README program's configuration on the emulator: its sponsor, and the emulator's URLs for Graph and the authority. */
const config = () => ({ sponsor: DEFAULT_IDS.sponsorId, graphUrl: emulator.httpsUrl, authorityUrl: emulator.httpsUrl });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-package-yaml-"));
  emulator = await startEmulator();
  world = await engineWorld(work, emulator);
  tarball = packTarball(work);
  project = packageProject(world, "yaml", tarball, { "Pulumi.yaml": PROGRAM });
  await project.init("dev", config());
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("`pulumi package get-schema` of the installed plugin executable prints docs/schema.json, byte for byte", async () => {
  const { stdout } = await project.ok(["package", "get-schema", "./node_modules/agent-user-kit/pulumi-resource-agent-user-kit"]);
  expect(stdout).toBe(readFileSync(join(REPO, "docs/schema.json"), "utf8"));
});

packageLifecycleTests("the README's YAML program, two agents", () => ({
  project,
  emulator,
  agents: AGENTS,
  scopes: "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read",
  outputs: ["tenantId", "authorityUrl", "graphUrl", "resourceUrl", "blueprintAppId", "blueprintClientSecret", "agents"],
}));

it("a program whose folder lacks the npm install fails at preview, naming the folder and the install that fixes it", async () => {
  const plugin = join(project.dir, "node_modules", "agent-user-kit");
  const bare = bareProject(world, "bare", { "Pulumi.yaml": PROGRAM.replace("name: agents", "name: bare").replace("./node_modules/agent-user-kit", plugin) });
  await bare.init("dev", config());
  const preview = await bare.run(["preview"]);
  expect(preview.code).not.toBe(0);
  expect(`${preview.stdout}${preview.stderr}`.replace(/\s+/g, " ")).toContain(
    `AgentUserKit "kit": Pulumi runs the kit's Graph resources (dynamic providers) from the program's folder, ${bare.dir}, and @pulumi/pulumi is not installed there; agent-user-kit is not installed there (pulumi/pulumi#5455) (in that folder: npm install agent-user-kit@${PACKAGE_VERSION} @pulumi/pulumi @pulumi/azuread)`,
  );
  expect(emulator.store.applications().filter((app) => app.displayName === "Support agents")).toEqual([]);
});

it("a secret argument (fn::secret) that fails a check fails preview, naming the argument and never showing the value", async () => {
  const program = PROGRAM.replace("name: agents", "name: secret-check").replace(
    "        mode: secret\n",
    "        mode: secret\n        endDate:\n          fn::secret: not-a-date-hunter2\n",
  );
  expect(program).toContain("fn::secret: not-a-date-hunter2");
  const checked = packageProject(world, "secret-check", tarball, { "Pulumi.yaml": program });
  await checked.init("dev", config());
  const preview = await checked.run(["preview"]);
  const shown = `${preview.stdout}${preview.stderr}`;
  expect(preview.code).not.toBe(0);
  expect(shown.replace(/\s+/g, " ")).toContain('AgentUserKit "kit": secretEndDate ');
  expect(shown).toContain("[secret]");
  expect(shown).not.toContain("hunter2");
});
