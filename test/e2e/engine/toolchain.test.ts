/**
 * The engine under test is Pulumi's own: the CLI built from Go modules, with
 * Pulumi's Node.js host and the azuread plugin 6.9.1 that `pulumi about`
 * reports, and Pulumi's Go and YAML hosts beside it, each binary the one
 * shared/engine's SHA256SUMS names.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { packTarball } from "../package/consumer";
import { AZUREAD_VERSION, azureadPlugin, consumerProject, engineBin, engineWorld, sharedEngine, type PulumiProject } from "./pulumi-cli";

jest.setTimeout(300_000);

let work: string;
let emulator: Emulator;
let project: PulumiProject;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-engine-"));
  emulator = await startEmulator();
  const world = await engineWorld(work, emulator);
  const program = join(work, "empty-program.js");
  writeFileSync(program, 'require("@pulumi/pulumi");\n');
  project = consumerProject(world, "about", packTarball(work), program);
  await project.init("dev", {});
});

afterAll(async () => {
  await emulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

it("pulumi about lists the azuread plugin and Pulumi's Node.js language host", async () => {
  const { stdout } = await project.ok(["about"]);
  expect(stdout).toMatch(new RegExp(`resource\\s+azuread\\s+${AZUREAD_VERSION.replace(/\./g, "\\.")}`));
  expect(stdout).toMatch(/language\s+nodejs\s+3\.\d+\.\d+/);
});

it("the PATH dir holds pulumi and Pulumi's Node.js, Go and YAML hosts, and not the provider, which the plugin cache holds", () => {
  const bin = engineBin();
  for (const name of ["pulumi", "pulumi-language-nodejs", "pulumi-language-go", "pulumi-language-yaml", "pulumi-resource-pulumi-nodejs"]) expect([name, existsSync(join(bin, name))]).toEqual([name, true]);
  expect(existsSync(join(bin, "pulumi-resource-azuread"))).toBe(false);
});

it("the four binaries built from shared/engine are the ones its SHA256SUMS names", () => {
  const plugin = azureadPlugin();
  // A Pulumi CLI found on PATH acquires its own released plugins, which no SHA256SUMS here names.
  if (!plugin) return expect(process.env.PULUMI_AZUREAD_PLUGIN).toBe("");
  const expected = Object.fromEntries(
    readFileSync(join(sharedEngine(), "SHA256SUMS"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/).reverse()),
  ) as Record<string, string>;
  const built = { "pulumi-resource-azuread": plugin, ...Object.fromEntries(["nodejs", "go", "yaml"].map((h) => [`pulumi-language-${h}`, join(engineBin(), `pulumi-language-${h}`)])) };
  expect(Object.fromEntries(Object.entries(built).map(([name, file]) => [name, sha256(file)]))).toEqual(expected);
});
