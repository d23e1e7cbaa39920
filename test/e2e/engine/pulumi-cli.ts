/**
 * The Pulumi engine `npm run engine` built from Go modules (PULUMI_ENGINE_BIN),
 * run as a user runs it against the emulator: a local file backend with a
 * passphrase, no plugin downloads, the provisioner's ARM_* and the emulator's
 * cloud metadata host in the environment, and the trust bundle `agent-user
 * emulator --env-out` writes. No registry serves the azuread plugin, so an
 * engine built here gets the test-only stand-in (test/azuread-stand-in); a
 * Pulumi CLI found on PATH (PULUMI_ENGINE_SOURCE=path) installs the real one.
 */
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Emulator } from "../../../emulator/server";
import { trustBundle } from "../../../probes/trust-bundle";
import { standInLauncher } from "../../azuread-stand-in/launcher";
import { installConsumer, pinned, REPO } from "../package/consumer";

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

export const PASSPHRASE = "engine test passphrase";
/** The azuread plugin `@pulumi/azuread` asks for. */
export const AZUREAD_VERSION = pinned("@pulumi/azuread").split("@").pop()!;

/** The directory of the built engine; a missing one is an error that says how to get it, never a skip. */
export function engineBin(): string {
  const bin = process.env.PULUMI_ENGINE_BIN;
  if (!bin) throw new Error("PULUMI_ENGINE_BIN is not set: run `npm run test:engine`, which builds the engine (npm run engine) first");
  return bin;
}

/** True for the engine `npm run engine` built from Go modules; false for a Pulumi CLI it found on PATH, which acquires its own plugins. */
export function engineBuiltHere(): boolean {
  return process.env.PULUMI_ENGINE_SOURCE !== "path";
}

/**
 * What the engine's subprocesses share with this process: Go's module and
 * build caches and npm's cache, which the test's own HOME would start empty
 * (a Go program's first build compiles Pulumi's Go SDK for a minute and more).
 * Go is there when `npm run engine` built the engine; without it, a Go
 * program's test fails at its first `go` command, saying so.
 */
function toolCaches(): NodeJS.ProcessEnv {
  const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
  let go: NodeJS.ProcessEnv = {};
  try {
    const [cache, modules, path] = execFileSync("go", ["env", "GOCACHE", "GOMODCACHE", "GOPATH"], { encoding: "utf8" }).trim().split("\n");
    go = { GOCACHE: cache, GOMODCACHE: modules, GOPATH: path };
  } catch {
    // no go on PATH: only a Go program needs it
  }
  return { npm_config_cache: npmCache, npm_config_prefer_offline: "true", ...go };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CommandRun> {
  return new Promise((done) => {
    // Asynchronous: the emulator answers from this process.
    execFile(command, args, { cwd, env, encoding: "utf8", timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

/** What every project of one test file shares: the emulator, a PULUMI_HOME with the azuread plugin, and the environment. */
export interface EngineWorld {
  work: string;
  emulator: Emulator;
  env: NodeJS.ProcessEnv;
}

/** The world under `work`: the trust bundle written, the azuread plugin installed once into its PULUMI_HOME. */
export async function engineWorld(work: string, emulator: Emulator): Promise<EngineWorld> {
  const caFile = join(work, "emulator-ca.pem");
  writeFileSync(caFile, emulator.caPem);
  const bundle = join(work, "emulator-trust.pem");
  writeFileSync(bundle, trustBundle(emulator.caPem, {}).text);
  const provisioner = emulator.provisioner()!;
  const builtHere = engineBuiltHere();
  const env: NodeJS.ProcessEnv = {
    PATH: `${engineBin()}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    HOME: work,
    PULUMI_HOME: join(work, "pulumi-home"),
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    ...(builtHere ? { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } : {}),
    ARM_TENANT_ID: provisioner.tenantId,
    ARM_CLIENT_ID: provisioner.clientId,
    ARM_CLIENT_SECRET: provisioner.clientSecret,
    // What `agent-user emulator --env-out` writes: the cloud metadata host, and one bundle for Go and Node.
    ARM_METADATA_HOSTNAME: new URL(emulator.httpsUrl).host,
    SSL_CERT_FILE: bundle,
    NODE_EXTRA_CA_CERTS: bundle,
    ...toolCaches(),
  };
  await installAzuread(work, env);
  return { work, emulator, env };
}

/** Into env's PULUMI_HOME: the stand-in for an engine built here, the released plugin for a CLI that acquires its own. */
export async function installAzuread(work: string, env: NodeJS.ProcessEnv): Promise<void> {
  const args = ["plugin", "install", "resource", "azuread", AZUREAD_VERSION];
  if (engineBuiltHere()) args.push("--file", standInLauncher(work));
  const installed = await run("pulumi", args, work, env);
  if (installed.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${installed.code}\n${installed.stderr}`);
}

export interface PulumiProject {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs `pulumi ARGS` in the project, for at most ten minutes; resolves with its exit code and output. */
  run(args: string[]): Promise<CommandRun>;
  /** The same, failing with its output when the exit code is not 0. */
  ok(args: string[]): Promise<CommandRun>;
  /** `pulumi stack init` with each key set in the stack's configuration; a key with `[` is set with --path. */
  init(stack: string, config: Record<string, string>): Promise<void>;
  /** `pulumi stack output --json --show-secrets`, parsed, and the file it was written to. */
  outputs(): Promise<{ file: string; values: StackOutputsJson }>;
  /** `agent-user ARGS` as this project's user runs it, with extra environment. */
  agentUser(args: string[], env?: NodeJS.ProcessEnv): Promise<CommandRun>;
  /** Another command in the project, with its environment (`go mod tidy`, say), failing with its output when the exit code is not 0. */
  tool(command: string, args: string[]): Promise<CommandRun>;
  /** The state directory of its file backend. */
  stateDir: string;
}

export interface StackOutputsJson {
  [key: string]: unknown;
  blueprintAppId: string;
  blueprintObjectId: string;
  agents: Record<string, { agentIdentityId: string; agentUserId: string; agentUserPrincipalName: string; grantId: string; grantScopes: string; onBehalfOfScopes?: string }>;
}

function project(world: EngineWorld, dir: string, agentUserBin: string[]): PulumiProject {
  const stateDir = `${dir}-state`;
  mkdirSync(stateDir, { recursive: true });
  const env = { ...world.env, PULUMI_BACKEND_URL: `file://${stateDir}` };
  const pulumi = (args: string[]) => run("pulumi", ["--non-interactive", ...args], dir, env);
  const ok = async (args: string[]) => {
    const result = await pulumi(args);
    if (result.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
    return result;
  };
  return {
    dir,
    env,
    stateDir,
    run: pulumi,
    ok,
    async init(stack, config) {
      await ok(["stack", "init", stack]);
      for (const [key, value] of Object.entries(config)) {
        const path = key.includes("[") ? ["--path"] : [];
        await ok(["config", "set", ...path, key, "--", value]);
      }
    },
    async outputs() {
      const { stdout } = await ok(["stack", "output", "--json", "--show-secrets"]);
      const file = join(dir, "outputs.json");
      writeFileSync(file, stdout, { mode: 0o600 });
      return { file, values: JSON.parse(stdout) as StackOutputsJson };
    },
    agentUser: (args, extra = {}) => run(agentUserBin[0]!, [...agentUserBin.slice(1), ...args], dir, { ...env, ...extra }),
    async tool(command, args) {
      const result = await run(command, args, dir, env);
      if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
      return result;
    },
  };
}

/**
 * A project in `work`/`name` that installs the packed tarball and the two
 * Pulumi peers, as a user installs them in a program's folder, whatever the
 * program's language (the component plugin runs on Node.js, and Pulumi runs
 * the kit's dynamic providers from the program's folder), with `files`
 * (Pulumi.yaml among them, and the program) written beside them.
 */
export function packageProject(world: EngineWorld, name: string, tarball: string, files: Record<string, string>): PulumiProject {
  const dir = installConsumer(join(world.work, name), tarball, [pinned("@pulumi/pulumi"), pinned("@pulumi/azuread")]);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return project(world, dir, [process.execPath, join(dir, "node_modules", "agent-user-kit", "dist", "probes", "agent-user.js")]);
}

/** A project in `work`/`name` with `files` alone: nothing installed in its folder. */
export function bareProject(world: EngineWorld, name: string, files: Record<string, string>): PulumiProject {
  const dir = join(world.work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return project(world, dir, [process.execPath, join(REPO, "dist", "probes", "agent-user.js")]);
}

/** A consumer project in `work`/`name` that installs the packed tarball and the peers, with `program` as its index.js. */
export function consumerProject(world: EngineWorld, name: string, tarball: string, program: string): PulumiProject {
  return packageProject(world, name, tarball, { "Pulumi.yaml": `name: ${name}\nruntime: nodejs\nmain: index.js\n`, "index.js": readFileSync(program, "utf8") });
}

/**
 * The repository's own stack (Pulumi.yaml, infra/stack.ts) as a user runs it
 * from the clone, in a directory of its own whose sources are the clone's, so
 * `pulumi stack init` writes its stack file there and nothing in the clone.
 */
export function repoProject(world: EngineWorld, name: string): PulumiProject {
  const dir = join(world.work, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(REPO, "Pulumi.yaml"), join(dir, "Pulumi.yaml"));
  for (const entry of ["infra", "lib", "node_modules", "package.json", "tsconfig.json"]) symlinkSync(join(REPO, entry), join(dir, entry));
  return project(world, dir, [process.execPath, join(REPO, "dist", "probes", "agent-user.js")]);
}

/** The package's name, the folder a program installs it in, and the plugin executable there. */
const KIT = "agent-user-kit";
const KIT_FOLDER = `./node_modules/${KIT}`;
export const KIT_PLUGIN = `${KIT_FOLDER}/pulumi-resource-${KIT}`;

/**
 * What a Python, Go, C# or JavaScript user does to use the kit's plugin, as
 * the README says: Pulumi.yaml names the plugin's folder under
 * `plugins.providers`; the package's SDK is generated from the schema the
 * plugin serves into `sdks/agent-user-kit`; the SDK is linked into the program
 * (package.json and `npm install` for JavaScript; a `replace` in go.mod for
 * Go). A released CLI (found on PATH) generates it with `pulumi package
 * gen-sdk`; the language hosts the Go module proxy serves cannot, so an engine
 * built here uses `npm run engine`'s gensdk, Pulumi's same code generators.
 */
export async function addKitPackage(project: PulumiProject, language: "nodejs" | "go"): Promise<void> {
  const manifest = join(project.dir, "Pulumi.yaml");
  writeFileSync(manifest, `${readFileSync(manifest, "utf8").replace(/\n?$/, "\n")}plugins:\n  providers:\n    - name: ${KIT}\n      path: ${KIT_FOLDER}\n`);
  const sdk = join(project.dir, "sdks", KIT);
  const generator = process.env.PULUMI_SDK_GENERATOR;
  if (engineBuiltHere() && generator) {
    const schema = join(dirname(project.dir), `${KIT}-schema.json`);
    writeFileSync(schema, (await project.ok(["package", "get-schema", KIT_PLUGIN])).stdout);
    await project.tool(generator, [language, schema, sdk]);
  } else {
    const out = join(dirname(project.dir), `${KIT}-sdks`);
    await project.ok(["package", "gen-sdk", KIT_PLUGIN, "--language", language, "--local", "--out", out]);
    mkdirSync(dirname(sdk), { recursive: true });
    renameSync(join(out, language), sdk);
  }
  if (language === "go") {
    const goMod = join(project.dir, "go.mod");
    const module = /^module (\S+)$/m.exec(readFileSync(join(sdk, "go.mod"), "utf8"))![1]!;
    writeFileSync(goMod, `${readFileSync(goMod, "utf8").replace(/\n?$/, "\n")}\nreplace ${module} => ./sdks/${KIT}\n`);
    return;
  }
  const pkgFile = join(project.dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { dependencies?: Record<string, string> };
  const name = (JSON.parse(readFileSync(join(sdk, "package.json"), "utf8")) as { name: string }).name;
  pkg.dependencies = { ...pkg.dependencies, [name]: `file:sdks/${KIT}` };
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  await project.tool("npm", ["install", "--no-audit", "--no-fund"]);
}
