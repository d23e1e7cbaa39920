/**
 * Every fenced block of README.md and docs/*.md is run or checked, by the rule
 * its info string names after the language (docs/README.md, "How the code
 * blocks are tested", is the user's view of the rules). A block no rule
 * covers, or a rule no block uses, is a failure: nothing is skipped.
 *
 * `sh emulator` and `sh tenant` blocks run in bash exactly as written, with
 * `set -e`: every command must succeed. `npx agent-user` is the built command
 * (dist/), reached as an installed package's bin; a tenant block's `pulumi` and
 * `az`, which need a real tenant, are recorders whose calls are checked
 * afterwards against what test/e2e/engine runs on the real engine and against the
 * provisioner's permission set.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { CHECK_PERMISSIONS, PROVISIONER_PERMISSIONS } from "../../lib/graph-permissions";
import { gatherSettings, resolveProvisionerCredential } from "../../infra/provisioner-credential";
import { validateConfig, type RawConfig } from "../../infra/config";
import { startEmulator } from "../../emulator/server";
import { DEFAULT_IDS, defaultTenant } from "../../emulator/seed";
import { typeCheck } from "./package/consumer";
import { runCli, scratchDir, useEmulator, type ScratchDir } from "../harness";

const ROOT = resolve(__dirname, "../..");
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const GRANTED = [...PROVISIONER_PERMISSIONS, ...CHECK_PERMISSIONS];

interface Block {
  page: string;
  line: number;
  lang: string;
  /** The info string after the language: the rule (for a `ts` block, the file it is saved as). */
  tag: string;
  body: string;
}

function blocksOf(page: string): Block[] {
  const lines = readFileSync(join(ROOT, page), "utf8").split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    expect({ page, line: i + 1, closed: end > i }).toEqual({ page, line: i + 1, closed: true });
    out.push({ page, line: i + 1, lang: open[1]!, tag: open[2]!.trim(), body: lines.slice(i + 1, end).join("\n") + "\n" });
    i = end;
  }
  return out;
}

const BLOCKS = PAGES.flatMap(blocksOf);
const rule = (b: Block): string => (b.tag ? `${b.lang} ${b.tag.split(/\s+/)[0]}` : b.lang);
const fileBlocks = (page: string): Block[] => BLOCKS.filter((b) => b.page === page && b.lang === "ts");

// ---------------------------------------------------------------------------------------------
// A directory where `npx agent-user` and `import "agent-user-kit"` find this repository's build.

let shared: ScratchDir;
let modules: string;
const groups = new Set<number>();

beforeAll(() => {
  shared = scratchDir();
  modules = join(shared.dir, "node_modules");
  mkdirSync(join(modules, ".bin"), { recursive: true });
  symlinkSync(ROOT, join(modules, "agent-user-kit"));
  symlinkSync(join(ROOT, "node_modules/@pulumi"), join(modules, "@pulumi"));
  symlinkSync(join(ROOT, "dist/probes/agent-user.js"), join(modules, ".bin/agent-user"));
});
afterAll(() => {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  shared?.remove();
});

/** A new working directory with the package installed, and the files of `page`'s `ts FILE` blocks saved in it. */
function workDir(page: string): string {
  const dir = mkdtempSync(join(shared.dir, "run-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "docs-reader", version: "1.0.0", private: true }));
  symlinkSync(modules, join(dir, "node_modules"));
  for (const b of fileBlocks(page)) writeFileSync(join(dir, b.tag), b.body);
  return dir;
}

/** Sends `signal` to the process group; whether the group was there to take it. */
const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};
const alive = (pgid: number): boolean => signalGroup(pgid, 0);

interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Whether a process of the block's group outlived it by more than 10 s. */
  leftover: boolean;
}

/** Runs `script` with bash -e in `cwd`, in a process group of its own; resolves once every process of the group is gone. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ShellRun> {
  return new Promise((done) => {
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const pgid = child.pid!;
    groups.add(pgid);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
    // A shell or a process it started that is still there after this long is stuck: it is killed and reported.
    let stuck = false;
    const ceiling = setTimeout(() => {
      stuck = true;
      signalGroup(pgid, "SIGKILL");
    }, 90_000);
    child.on("exit", (code) => {
      // A background emulator ends when the shell that started it is gone (its launcher watch): wait for that, however long it takes on a loaded machine.
      const check = (): void => {
        if (alive(pgid) && !stuck) {
          setTimeout(check, 50);
          return;
        }
        clearTimeout(ceiling);
        const leftover = stuck;
        signalGroup(pgid, "SIGKILL");
        groups.delete(pgid);
        done({ code, stdout, stderr, leftover });
      };
      check();
    });
  });
}

const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, npm_config_update_notifier: "false" });

// ---------------------------------------------------------------------------------------------
// `sh tenant`: recorders for the commands that need a real tenant.

const PULUMI_RECORDER = `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.DOCS_RECORDER_LOG, JSON.stringify(["pulumi", ...args]) + "\\n");
const file = process.env.DOCS_PULUMI_CONFIG;
const config = JSON.parse(fs.readFileSync(file, "utf8"));
if (args[0] === "config" && args[1] === "set") {
  let rest = args.slice(2).filter((a) => a !== "--secret");
  const path = rest[0] === "--path";
  if (path) rest = rest.slice(1);
  const [key, value] = rest;
  const list = path ? /^(.*)\\[(\\d+)\\]$/.exec(key) : null;
  if (list) {
    const items = Array.isArray(config[list[1]]) ? config[list[1]] : [];
    items[Number(list[2])] = value;
    config[list[1]] = items;
  } else config[key] = value;
  fs.writeFileSync(file, JSON.stringify(config));
} else if (args[0] === "config" && args.includes("--json")) {
  const out = {};
  for (const [key, value] of Object.entries(config)) {
    out[key] = Array.isArray(value) ? { value: JSON.stringify(value), objectValue: value, secret: false } : { value, secret: false };
  }
  process.stdout.write(JSON.stringify(out, null, 2) + "\\n");
} else if (args[0] === "stack" && args[1] === "output") {
  process.stdout.write(fs.readFileSync(process.env.DOCS_STACK_OUTPUTS, "utf8") + "\\n");
}
`;

const AZ_RECORDER = `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(process.env.DOCS_RECORDER_LOG, JSON.stringify(["az", ...args]) + "\\n");
const flag = (name) => args[args.indexOf(name) + 1];
if (args[0] === "ad" && args[1] === "sp" && args[2] === "show") {
  const role = /^appRoles\\[\\?value=='([^']+)'\\]\\.id$/.exec(flag("--query"));
  process.stdout.write((role ? "role-" + role[1] : "sp-" + flag("--id")) + "\\n");
}
`;

/** pulumi commands a tenant block may use, by their leading words, and where each runs for real. */
function engineCommands(): string[][] {
  const dir = join(ROOT, "test/e2e/engine");
  const source = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
  const runs = [...source.matchAll(/\bok\(\[([^\]]*)\]/g)].map((m) => [...m[1]!.matchAll(/"([^"]+)"/g)].map((w) => w[1]!));
  return runs.map((words) => words.slice(0, words.findIndex((w) => w.startsWith("-")) >>> 0));
}

/** Commands no engine test runs, each with the file and text by which this repository relies on it, or none. */
const OTHER_PULUMI: Array<{ words: string[]; evidence: [string, RegExp] | null }> = [
  // `pulumi login --local` is a file backend, the one the engine test uses.
  { words: ["login"], evidence: ["test/e2e/engine/pulumi-cli.ts", /PULUMI_BACKEND_URL: `file:\/\//] },
  // `pulumi config --json` is what preflight and doctor read with --config-from-stack, as the preflight tests write it.
  { words: ["config"], evidence: ["test/probes/preflight/stack-config.ts", /what `pulumi config --json` prints/] },
  // `pulumi stack select --create`: the workflow needs the stack's configuration before `pulumi up`; no test here runs it.
  { words: ["stack", "select"], evidence: null },
];

const leading = (argv: string[]): string[] => argv.slice(0, argv.findIndex((w) => w.startsWith("-")) >>> 0);
const isPrefix = (words: string[], of: string[]): boolean => words.length > 0 && words.every((w, i) => of[i] === w);

const tenant = useEmulator(() => ({
  // The walk-through's names are free before `pulumi up` makes them; the stack outputs are this tenant's seeded agent.
  tenant: defaultTenant({ ...DEFAULT_IDS, agentUserPrincipalName: "seeded-agent@contoso.onmicrosoft.com" } as unknown as typeof DEFAULT_IDS),
}));

interface TenantRun extends ShellRun {
  pulumi: string[][];
  az: string[][];
  config: Record<string, unknown>;
  dir: string;
}

/** The example stack file's configuration, with a real sponsor of the tenant, as `pulumi stack init dev` starts it. */
function initialConfig(): Record<string, unknown> {
  const stack = (parse(readFileSync(join(ROOT, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> }).config;
  return { ...stack, "agent-user-kit:sponsors": [DEFAULT_IDS.sponsorId] };
}

function tenantEnv(dir: string): NodeJS.ProcessEnv {
  const bin = join(dir, ".recorders");
  if (!existsSync(bin)) {
    mkdirSync(bin);
    writeFileSync(join(bin, "pulumi"), PULUMI_RECORDER);
    writeFileSync(join(bin, "az"), AZ_RECORDER);
    chmodSync(join(bin, "pulumi"), 0o755);
    chmodSync(join(bin, "az"), 0o755);
    writeFileSync(join(bin, "log"), "");
    writeFileSync(join(bin, "config.json"), JSON.stringify(initialConfig()));
    writeFileSync(join(bin, "outputs.json"), JSON.stringify(tenant.emulator.outputs()));
  }
  const p = tenant.emulator.provisioner()!;
  return {
    ...baseEnv(),
    PATH: `${bin}:${process.env.PATH}`,
    DOCS_RECORDER_LOG: join(bin, "log"),
    DOCS_PULUMI_CONFIG: join(bin, "config.json"),
    DOCS_STACK_OUTPUTS: join(bin, "outputs.json"),
    // The placeholders the pages name, and the provisioner a deploy exports.
    SPONSOR_OBJECT_ID: DEFAULT_IDS.sponsorId,
    PROVISIONER_TENANT_ID: p.tenantId,
    PROVISIONER_CLIENT_ID: p.clientId,
    PROVISIONER_SECRET: p.clientSecret,
    ARM_TENANT_ID: p.tenantId,
    ARM_CLIENT_ID: p.clientId,
    ARM_CLIENT_SECRET: p.clientSecret,
    // A real tenant's endpoints are the defaults; this one's are the emulator's.
    AGENT_USER_GRAPH_URL: tenant.emulator.httpUrl,
    AGENT_USER_AUTHORITY_URL: tenant.emulator.httpUrl,
  };
}

async function runTenant(script: string, dir: string): Promise<TenantRun> {
  const env = tenantEnv(dir);
  const run = await bash(script, dir, env);
  const calls = readFileSync(env.DOCS_RECORDER_LOG!, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
  const config = JSON.parse(readFileSync(env.DOCS_PULUMI_CONFIG!, "utf8")) as Record<string, unknown>;
  return { ...run, dir, config, pulumi: calls.filter((c) => c[0] === "pulumi").map((c) => c.slice(1)), az: calls.filter((c) => c[0] === "az").map((c) => c.slice(1)) };
}

/** What every tenant run must show: success, pulumi commands the engine runs, a configuration preview accepts, and the exact grant. */
function checkTenantRun(run: TenantRun, where: string): void {
  expect({ where, code: run.code, stderr: run.code === 0 ? "" : run.stderr, leftover: run.leftover }).toEqual({ where, code: 0, stderr: "", leftover: false });
  const engine = engineCommands();
  for (const argv of run.pulumi) {
    const words = leading(argv);
    const other = OTHER_PULUMI.find((o) => isPrefix(o.words, words));
    if (other?.evidence) expect(readFileSync(join(ROOT, other.evidence[0]), "utf8")).toMatch(other.evidence[1]);
    const covered = engine.some((e) => isPrefix(e, words)) || other !== undefined;
    expect({ where, pulumi: argv.join(" "), covered }).toEqual({ where, pulumi: argv.join(" "), covered: true });
  }
  if (run.pulumi.some((argv) => argv[0] === "config" && argv[1] === "set")) {
    const raw = Object.fromEntries(
      Object.entries(run.config)
        .filter(([k]) => k.startsWith("agent-user-kit:"))
        .map(([k, v]) => [k.slice("agent-user-kit:".length), v]),
    ) as RawConfig;
    expect(() => validateConfig(raw)).not.toThrow();
  }
  if (run.az.length > 0) {
    const sp = `sp-${tenant.emulator.provisioner()!.clientId}`;
    const grants = run.az.filter((a) => a[0] === "rest");
    for (const g of grants) {
      expect(g.slice(0, 5)).toEqual(["rest", "--method", "POST", "--uri", `https://graph.microsoft.com/v1.0/servicePrincipals/${sp}/appRoleAssignments`]);
      expect(JSON.parse(g[g.indexOf("--body") + 1]!)).toMatchObject({ principalId: sp, resourceId: "sp-00000003-0000-0000-c000-000000000000" });
    }
    expect(grants.map((g) => (JSON.parse(g[g.indexOf("--body") + 1]!) as { appRoleId: string }).appRoleId)).toEqual(GRANTED.map((p) => `role-${p}`));
  }
}

// ---------------------------------------------------------------------------------------------
// The rules.

/** `your-agent.js` of the emulator page: code that reads its endpoints from the outputs and must reach them over TLS. */
const YOUR_AGENT = `const { readFileSync } = require("node:fs");
const { AgentUserCredential } = require("agent-user-kit");
const outputs = JSON.parse(readFileSync("outputs.json", "utf8"));
if (!outputs.authorityUrl.startsWith("https://")) throw new Error("not https: " + outputs.authorityUrl);
AgentUserCredential.fromStackOutputs(outputs).getToken("https://graph.microsoft.com/.default")
  .then((t) => console.log("your agent: a token over " + new URL(outputs.authorityUrl).protocol + " " + t.token.length))
  .catch((err) => { console.error(String(err)); process.exitCode = 1; });
`;

type Rule = (b: Block) => Promise<void> | void;

/** A program an agent runs (`ts FILE`): it type-checks both ways, and runs where the page says how, a `sh emulator` block of the same page. */
const agentProgram: Rule = (b) => {
  const dir = workDir(b.page);
  typeCheck(dir, [b.tag], "node16");
  typeCheck(dir, [b.tag], "bundler");
  expect(BLOCKS.some((o) => o.page === b.page && rule(o) === "sh emulator" && o.body.includes(`node ${b.tag}`))).toBe(true);
};

const RULES: Record<string, Rule> = {
  "sh emulator": async (b) => {
    const dir = workDir(b.page);
    writeFileSync(join(dir, "your-agent.js"), YOUR_AGENT);
    const run = await bash(b.body, dir, baseEnv());
    expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr, leftover: run.leftover }).toEqual({ code: 0, stderr: "", leftover: false });
    // What each program the blocks run says when it works.
    if (b.body.includes("node agent.ts")) expect(run.stdout).toMatch(/^a \d+-character token for research-agent@contoso\.onmicrosoft\.com until \d{4}-.*\nGraph token ends with .{4}$/m);
    if (b.body.includes("node your-agent.js")) expect(run.stdout).toMatch(/^your agent: a token over https: \d+$/m);
    if (b.body.includes("node app.ts")) expect(run.stdout).toMatch(new RegExp(`^an app token for ${DEFAULT_IDS.agentIdentityId} with roles User\\.Read\\.All$`, "m"));
    if (b.body.includes("node obo.ts") || b.body.includes("node flows.ts")) expect(run.stdout).toMatch(/^on behalf of ada@contoso\.onmicrosoft\.com$/m);
    if (b.body.includes("node flows.ts")) expect(run.stdout).toMatch(/^app: roles User\.Read\.All$/m);
    if (/agent-user token --outputs outputs\.json --json/.test(b.body)) expect(run.stdout).toMatch(/^\{"ok":true,"hops":\[/m);
    if (b.body.includes("break=grant-other-user")) expect(run.stdout).toMatch(/^failed\s+grant\s+[\s\S]*\ndoctor: exit 8\n/m);
  },

  "sh tenant": async (b) => {
    const run = await runTenant(b.body, workDir(b.page));
    checkTenantRun(run, `${b.page}:${b.line}`);
    // Each token command minted, once each: its summary (`idtyp  user`, or `app` with --as app), its fleet table's row, or its JSON.
    const commands = b.body.match(/npx agent-user token .*/g) ?? [];
    const count = (pattern: RegExp) => run.stdout.match(pattern)?.length ?? 0;
    expect({
      json: count(/^\{"ok":true,"(hops|agents|flow)":/gm),
      fleet: count(/^seeded-agent\s+ok\s/gm),
      summary: count(/^\s*idtyp\s+(user|app)$/gm),
    }).toEqual({
      json: commands.filter((l) => l.includes("--json")).length,
      fleet: commands.filter((l) => !l.includes("--json") && l.includes("--all")).length,
      summary: commands.filter((l) => !l.includes("--json") && !l.includes("--all")).length,
    });
  },

  "sh engine": (b) => {
    // npm run test:engine runs README's block with bash, exactly as written, on the engine it built.
    expect(b.page).toBe("README.md");
    expect(readFileSync(join(ROOT, "test/e2e/engine/readme-up.test.ts"), "utf8")).toContain('readmeExample("## Try `pulumi up` locally", "sh engine")');
    // `npm run engine` prints only NAME=value lines on stdout, which the block evaluates once the command succeeded.
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(b.body.split("\n")[0]).toBe('engine=$(npm run --silent engine) && eval "$engine" && export PATH="$PULUMI_ENGINE_BIN:$PATH"');
    expect(pkg.scripts.engine).toBe("bash scripts/engine.sh");
    const printed = [...readFileSync(join(ROOT, "scripts/engine.sh"), "utf8").matchAll(/^\s*echo "([A-Z_]+)=/gm)].map((m) => m[1]);
    expect([...new Set(printed)].sort()).toEqual(["PULUMI_ENGINE_BIN", "PULUMI_ENGINE_SOURCE", "PULUMI_SDK_GENERATOR"]);
  },

  "sh plugin": (b) => {
    // The package and the two Pulumi peers, installed in the program's folder, whose Pulumi.yaml names the plugin there.
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; files: string[]; bin: Record<string, string> };
    expect(b.body).toBe(`npm install ${pkg.name} @pulumi/pulumi @pulumi/azuread\n`);
    // The executable Pulumi starts from the folder: shipped, and made executable by npm as a bin.
    expect([pkg.files, pkg.bin[`pulumi-resource-${pkg.name}`]]).toEqual([expect.arrayContaining([`pulumi-resource-${pkg.name}`]), `pulumi-resource-${pkg.name}`]);
    // test/e2e/engine installs the packed tarball with the same two peers in each program's folder.
    expect(readFileSync(join(ROOT, "test/e2e/engine/pulumi-cli.ts"), "utf8")).toContain('installConsumer(join(world.work, name), tarball, [pinned("@pulumi/pulumi"), pinned("@pulumi/azuread")])');
  },

  "yaml package": (b) => {
    // npm run test:engine runs it as written, on the engine it built, against the emulator.
    expect(b.page).toBe("README.md");
    expect(readFileSync(join(ROOT, "test/e2e/engine/package-yaml.test.ts"), "utf8")).toContain('readmeExample("### From Python, Go, C# or YAML", "yaml package")');
    // And here, against the schema: each argument one the component takes, each output one it gives.
    const program = parse(b.body) as {
      runtime: string;
      plugins: { providers: Array<{ name: string; path: string }> };
      resources: Record<string, { type: string; properties: Record<string, unknown> }>;
      outputs: Record<string, string>;
    };
    const schema = JSON.parse(readFileSync(join(ROOT, "docs/schema.json"), "utf8")) as { resources: Record<string, { inputProperties: Record<string, unknown>; properties: Record<string, unknown> }> };
    const kit = schema.resources["agent-user-kit:index:AgentUserKit"]!;
    expect({ runtime: program.runtime, plugins: program.plugins, type: program.resources.kit!.type }).toEqual({
      runtime: "yaml",
      plugins: { providers: [{ name: "agent-user-kit", path: "./node_modules/agent-user-kit" }] },
      type: "agent-user-kit:index:AgentUserKit",
    });
    expect(Object.keys(program.resources.kit!.properties).filter((key) => !(key in kit.inputProperties))).toEqual([]);
    // Each output is the component's property of the same name, as `agent-user token --outputs` reads it.
    expect(Object.entries(program.outputs).filter(([name, value]) => value !== `\${kit.${name}}` || !(name in kit.properties))).toEqual([]);
  },

  "yaml plugins": (b) => {
    // The lines a program's Pulumi.yaml adds: exactly the README program's, which test:engine runs.
    const readme = BLOCKS.find((x) => x.page === "README.md" && `${x.lang} ${x.tag}` === "yaml package")!;
    expect(parse(b.body)).toEqual({ plugins: (parse(readme.body) as { plugins: unknown }).plugins });
  },

  "sh setup": (b) => {
    const commands = b.body.split("\n").filter(Boolean).map((l) => l.replace(/\s+#.*$/, ""));
    expect(commands).toEqual(["npm ci && npm start", "npm ci && npm test"]);
    // The test command is what CI runs, in this order; npm start is the demo test/e2e/demo.test.ts runs.
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
    expect(ci).toMatch(/npm ci --no-audit --no-fund && PATH="\$path" npm test /);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toMatch(/ && node dist\/probes\/demo\.js$/);
    expect(readFileSync(join(ROOT, "test/e2e/demo.test.ts"), "utf8")).toContain('join(ROOT, "dist/probes/demo.js")');
  },

  "sh install": (b) => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; private?: boolean };
    expect(b.body).toBe(`npm install ${pkg.name}\n`);
    expect(pkg.private).toBeUndefined();
    // test/e2e/package installs the packed tarball the registry would serve, the same way.
    expect(readFileSync(join(ROOT, "test/e2e/package/consumer.ts"), "utf8")).toContain('npm(["install", tarball, ...extra], dir)');
  },

  "ts agent.ts": agentProgram,
  "ts app.ts": agentProgram,
  "ts obo.ts": agentProgram,
  "ts flows.ts": agentProgram,

  "ts index.ts": async (b) => {
    const dir = workDir(b.page);
    typeCheck(dir, ["index.ts"], "bundler");
    typeCheck(dir, ["index.ts"], "node16", true);
    // Run under the kit's Pulumi mocks, with the stack configuration the program requires.
    writeFileSync(
      join(dir, "test.js"),
      `const { setAgentUserKitMocks } = require("agent-user-kit/testing");
const valueOf = (o) => new Promise((r) => o.apply(r));
(async () => {
  const resources = await setAgentUserKitMocks();
  const program = require("./out/index.js");
  const agents = await valueOf(program.agents);
  console.log(JSON.stringify({ names: resources.map((r) => r.name).sort(), agents: Object.keys(agents), secret: typeof (await valueOf(program.blueprintClientSecret)) }));
})().catch((err) => { console.error(err); process.exit(1); });
`,
    );
    const run = await bash("node test.js", dir, { ...baseEnv(), PULUMI_CONFIG: JSON.stringify({ "project:sponsors": JSON.stringify([DEFAULT_IDS.sponsorId]) }) });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const out = JSON.parse(run.stdout) as { names: string[]; agents: string[]; secret: string };
    expect(out.agents).toEqual(["research", "writer"]);
    expect(out.names).toEqual(expect.arrayContaining(["agents", "agents-blueprint", "agents-research-identity", "agents-research-user", "agents-research-grant", "agents-writer-identity", "agents-writer-user", "agents-writer-grant"]));
    expect(out.secret).toBe("string");
  },

  "yaml ci": async (b) => {
    const workflow = parse(b.body) as {
      jobs: { up: { env: Record<string, string>; steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown>; if?: string }> } };
    };
    const { env, steps } = workflow.jobs.up;
    const pulumiStep = steps.find((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command === "up")!;
    expect(pulumiStep.with).toMatchObject({ command: "up", upsert: true });
    // preflight checks the stack's configuration before `pulumi up`, from `pulumi config --json`.
    const preflight = steps.findIndex((s) => s.run?.startsWith("npx agent-user preflight --config-from-stack config.json"));
    expect(preflight).toBeGreaterThan(steps.findIndex((s) => s.run?.includes("pulumi config --json > config.json")));
    expect(preflight).toBeLessThan(steps.indexOf(pulumiStep));
    // State that outlives the runner: Pulumi Cloud's token, or a cloud-url the action logs in to.
    expect(env.PULUMI_ACCESS_TOKEN !== undefined || pulumiStep.with?.["cloud-url"] !== undefined).toBe(true);
    // The provisioner fetches its own refreshed ID token (ARM_USE_OIDC), so no step pins a static one that expires mid-run.
    expect(env.ARM_USE_OIDC).toBe("true");
    expect(steps.filter((s) => s.run?.includes("ARM_OIDC_TOKEN"))).toEqual([]);
    // Every action is one of these; the build step is this package's.
    expect([...new Set(steps.filter((s) => s.uses).map((s) => s.uses!.split("@")[0]))].sort()).toEqual(["actions/checkout", "actions/setup-node", "pulumi/actions"]);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(steps.filter((s) => s.run?.startsWith("npm ")).map((s) => s.run)).toEqual(["npm ci && npm run build"]);
    expect(pkg.scripts.build).toBeDefined();

    // The run steps that are not the build, in order, in one directory of the tenant: pulumi recorded, agent-user for real.
    const dir = workDir(b.page);
    writeFileSync(join(dir, "ToolingManifest.json"), readFileSync(join(ROOT, "probes/samples/ToolingManifest.json")));
    const runs = steps.filter((s) => s.run && !s.run.startsWith("npm "));
    expect(runs.map((s) => s.run!.split(" ").slice(0, 3).join(" "))).toEqual([
      "pulumi stack select",
      "npx agent-user preflight",
      "pulumi stack output",
      "npx agent-user token",
      "npx agent-user manifest",
      "npx agent-user doctor",
    ]);
    for (const step of runs) checkTenantRun(await runTenant(step.run!, dir), step.run!);

    // The fleet smoke step mints for every agent of a fleet stack.
    const smoke = runs.find((s) => s.run!.startsWith("npx agent-user token ") && s.run!.includes(" --all"))!;
    expect(smoke.run).toMatch(/--outputs outputs\.json .*--json/);
    const fleet = await startEmulator({ agents: 3 });
    try {
      const fleetDir = workDir(b.page);
      writeFileSync(join(fleetDir, "outputs.json"), JSON.stringify(fleet.outputs()), { mode: 0o600 });
      const run = await bash(smoke.run!, fleetDir, baseEnv());
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      const json = JSON.parse(run.stdout) as { ok: boolean; agents: Array<{ name: string; ok: boolean }> };
      expect(json.agents.map((a) => [a.name, a.ok])).toEqual([
        ["research-agent", true],
        ["agent-2", true],
        ["agent-3", true],
      ]);
    } finally {
      await fleet.close();
    }
  },

  "powershell grant": (b) => {
    const list = /foreach \(\$p in @\(([^)]*)\)\)/.exec(b.body)![1]!;
    expect([...list.matchAll(/'([^']+)'/g)].map((m) => m[1])).toEqual(GRANTED);
    // Graph's service principal, the provisioner's, and an app role assignment per permission.
    expect(b.body).toContain(`Get-MgServicePrincipal -Filter "appId eq '00000003-0000-0000-c000-000000000000'"`);
    expect(b.body).toContain(`Get-MgServicePrincipal -Filter "appId eq '$env:PROVISIONER_CLIENT_ID'"`);
    expect(b.body).toContain("New-MgServicePrincipalAppRoleAssignment -ServicePrincipalId $sp.Id -PrincipalId $sp.Id -ResourceId $graph.Id -AppRoleId $role.Id");
  },

  "text token-all": async (b) => {
    // Two agents and a ghost (an agent user that does not exist), as the sample shows.
    const fleet = await startEmulator({ agents: 2 });
    const dir = scratchDir();
    try {
      const outputs = fleet.outputs();
      const first = Object.values(outputs.agents!)[0]!;
      const agents = { ...outputs.agents, ghost: { agentIdentityId: first.agentIdentityId, agentUserId: "0f000000-0000-0000-0000-0000000000f0", agentUserPrincipalName: "ghost@contoso.onmicrosoft.com" } };
      const file = join(dir.dir, "outputs.json");
      writeFileSync(file, JSON.stringify({ ...outputs, agents }), { mode: 0o600 });
      const run = await runCli(["token", "--outputs", file, "--all"]);
      const mask = (text: string) => text.replace(/ +\d+ +(\d{4}-\S+|-)$/gm, " ms expires").replace(/ +/g, " ").trimEnd();
      expect(mask(run.stdout)).toBe(mask(b.body));
    } finally {
      dir.remove();
      await fleet.close();
    }
  },

  text: (b) => {
    // Wire examples of the protocol page only; elsewhere a block says what checks it.
    expect(b.page).toBe("docs/protocol.md");
  },
};

describe("the pages' code blocks", () => {
  it("each has a rule, and each rule is used", () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    expect(BLOCKS.filter((b) => !(rule(b) in RULES) && !(`${b.lang} ${b.tag}` in RULES)).map((b) => `${b.page}:${b.line} ${b.lang} ${b.tag}`)).toEqual([]);
    const used = new Set(BLOCKS.map((b) => (`${b.lang} ${b.tag}` in RULES ? `${b.lang} ${b.tag}` : rule(b))));
    expect(Object.keys(RULES).filter((r) => r !== "text" && !used.has(r))).toEqual([]);
  });

  for (const b of BLOCKS) {
    const key = `${b.lang} ${b.tag}` in RULES ? `${b.lang} ${b.tag}` : rule(b);
    it(`${b.page}:${b.line} (${key})`, async () => {
      expect(RULES[key]).toBeDefined();
      await RULES[key]!(b);
    }, 180_000);
  }
});

describe("the README's walk-through stack", () => {
  const block = BLOCKS.find((b) => b.page === "README.md" && b.lang === "sh" && b.body.startsWith("pulumi login --local"))!;
  const stack = (parse(readFileSync(join(ROOT, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> }).config;

  it("the example stack file alone is refused at preview, naming the placeholder", () => {
    const raw = Object.fromEntries(Object.entries(stack).map(([k, v]) => [k.replace(/^agent-user-kit:/, ""), v])) as RawConfig;
    expect(() => validateConfig(raw)).toThrow(/agent-user-kit:sponsors is the placeholder 00000000-0000-0000-0000-000000000000 of the example stack file/);
  });

  it("the exported ARM_* values win over the example stack file", () => {
    const env: Record<string, string> = {};
    const vars: Record<string, string> = { PROVISIONER_TENANT_ID: "72f988bf-86f1-41af-91ab-2d7cd011db47", PROVISIONER_CLIENT_ID: "0c000000-0000-0000-0000-00000000000c", PROVISIONER_SECRET: "s" };
    for (const line of block.body.split("\n").filter((l) => l.startsWith("export "))) {
      for (const m of line.replace(/\s+#.*$/, "").matchAll(/(\w+)=("[^"]*"|'[^']*'|\S+)/g)) env[m[1]!] = m[2]!.replace(/^["']|["']$/g, "").replace(/\$(\w+)/g, (_, n: string) => vars[n] ?? "");
    }
    const lookup = { get: (key: string) => (typeof stack[key] === "string" ? (stack[key] as string) : undefined) };
    expect(resolveProvisionerCredential(gatherSettings(lookup, env))).toMatchObject({ tenantId: vars.PROVISIONER_TENANT_ID, clientId: vars.PROVISIONER_CLIENT_ID, kind: "secret" });
  });

  it("a placeholder azuread: key in a stack file is refused, naming the key and the fix, never used", () => {
    const lookup = { get: (key: string) => (key === "azuread:tenantId" ? "00000000-0000-0000-0000-000000000000" : undefined) };
    expect(() => resolveProvisionerCredential(gatherSettings(lookup, { ARM_TENANT_ID: "72f988bf-86f1-41af-91ab-2d7cd011db47", ARM_CLIENT_ID: "0c000000-0000-0000-0000-00000000000c", ARM_CLIENT_SECRET: "s" }))).toThrow(
      /azuread:tenantId is the placeholder 0{8}-0{4}-0{4}-0{4}-0{12} in the stack configuration \(Pulumi.<stack>.yaml\); it is never used\. Fix: remove it \(`pulumi config rm azuread:tenantId`\) so that ARM_TENANT_ID applies/,
    );
  });
});

describe("the pages' links", () => {
  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
  const slug = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
  const anchors = (file: string) => new Set([...readFileSync(file, "utf8").matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

  it.each([...PAGES, "emulator/graph/README.md"])("every relative link of %s names a file and heading that exist", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path ? resolve(dirname(join(ROOT, page)), path) : join(ROOT, page);
      if (!existsSync(file)) broken.push(target);
      else if (anchor && !anchors(file).has(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});
