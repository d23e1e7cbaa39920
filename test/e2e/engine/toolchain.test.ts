/**
 * The engine under test is Pulumi's own, built from Go modules at the
 * versions the wrapper modules under engine/ pin: the CLI, the Node.js,
 * Python, Go and YAML language hosts (each answers `pulumi about` for a
 * project of its language with its pinned version) and the SDK generator;
 * the azuread plugin that `pulumi about` lists is the test-only stand-in,
 * since no registry serves the real one.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../package/consumer";
import { AZUREAD_VERSION, bareProject, engineBin, engineBuiltHere, type PulumiProject } from "./pulumi-cli";
import { useEngineWorld } from "./world";

jest.setTimeout(300_000);

const t = useEngineWorld();

/** The version a wrapper module under engine/ requires of `module`. */
function pinnedIn(dir: string, module: string): string {
  const found = new RegExp(`^\\s*(?:require )?${module.replace(/[./]/g, "\\$&")} v(\\S+)`, "m").exec(readFileSync(join(REPO, "engine", dir, "go.mod"), "utf8"));
  if (!found) throw new Error(`engine/${dir}/go.mod requires no ${module}`);
  return found[1]!;
}

interface About {
  plugins: Array<{ name: string; kind?: string; version: string }>;
}

/** `pulumi about --json` in a project of `runtime` with nothing else in its folder. */
async function about(runtime: string): Promise<About> {
  const project: PulumiProject = bareProject(t.world, `about-${runtime}`, { "Pulumi.yaml": `name: about-${runtime}\nruntime: ${runtime}\n` });
  return JSON.parse((await project.ok(["about", "--json"])).stdout) as About;
}

const HOSTS: Array<[runtime: string, dir: string, module: string]> = [
  ["nodejs", "hosts/nodejs", "github.com/pulumi/pulumi/sdk/v3"],
  ["python", "hosts/python", "github.com/pulumi/pulumi/sdk/v3"],
  ["go", "hosts/go", "github.com/pulumi/pulumi/sdk/v3"],
  ["yaml", "hosts/yaml", "github.com/pulumi/pulumi-yaml"],
];

describe("on the engine npm run engine built from Go modules", () => {
  beforeAll(() => {
    if (!engineBuiltHere()) throw new Error("PULUMI_ENGINE_SOURCE=path: this file checks the engine built from Go modules; a CLI found on PATH brings its own");
  });

  it("pulumi version is the CLI engine/go.mod pins", () => {
    expect(execFileSync(join(engineBin(), "pulumi"), ["version"], { encoding: "utf8" }).trim()).toBe(`v${pinnedIn(".", "github.com/pulumi/pulumi/pkg/v3")}`);
  });

  it.each(HOSTS)("the %s host answers pulumi about with the version its wrapper module pins", async (runtime, dir, module) => {
    const { plugins } = await about(runtime);
    expect(plugins.filter((p) => p.kind === "language")).toEqual([expect.objectContaining({ name: runtime, version: pinnedIn(dir, module) })]);
  });

  it("the PATH dir holds pulumi, the four hosts, the Python host's exec script and the dynamic-provider host, and no azuread plugin", () => {
    const bin = engineBin();
    const names = ["pulumi", ...HOSTS.map(([runtime]) => `pulumi-language-${runtime}`), "pulumi-language-python-exec", "pulumi-resource-pulumi-nodejs"];
    expect(names.filter((name) => !existsSync(join(bin, name)))).toEqual([]);
    expect(existsSync(join(bin, "pulumi-resource-azuread"))).toBe(false);
  });

  it("the SDK generator writes a Node.js, Python and Go SDK of the kit's schema", () => {
    const generator = process.env.PULUMI_SDK_GENERATOR!;
    const out = join(t.work, "sdks");
    mkdirSync(out);
    const schema = join(out, "schema.json");
    writeFileSync(schema, readFileSync(join(REPO, "docs/schema.json")));
    for (const language of ["nodejs", "python", "go"]) execFileSync(generator, [language, schema, join(out, language)]);
    expect(JSON.parse(readFileSync(join(out, "nodejs", "package.json"), "utf8"))).toMatchObject({ name: "@pulumi/agent-user-kit", pulumi: { resource: true, name: "agent-user-kit" } });
    expect(readFileSync(join(out, "python", "pulumi_agent_user_kit", "agent_user_kit.py"), "utf8")).toContain("class AgentUserKit(pulumi.ComponentResource)");
    expect(readFileSync(join(out, "go", "go.mod"), "utf8")).toMatch(/^module example\.com\/pulumi-agent-user-kit\/sdk\/go$/m);
  });

  it("pulumi plugin ls lists the azuread plugin at the version @pulumi/azuread asks for: the stand-in, installed into PULUMI_HOME", async () => {
    const project = bareProject(t.world, "plugins", { "Pulumi.yaml": "name: plugins\nruntime: nodejs\n" });
    const plugins = JSON.parse((await project.ok(["plugin", "ls", "--json"])).stdout) as Array<{ name: string; kind: string; version: string }>;
    expect(plugins).toContainEqual(expect.objectContaining({ name: "azuread", kind: "resource", version: AZUREAD_VERSION }));
    const installed = join(t.world.env.PULUMI_HOME!, "plugins", `resource-azuread-v${AZUREAD_VERSION}`, "pulumi-resource-azuread");
    expect(readFileSync(installed, "utf8")).toContain(join("azuread-stand-in", "main.js"));
  });
});
