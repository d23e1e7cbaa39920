/**
 * The package as the registry and an installer see it: what `npm pack` puts
 * in the tarball (every file something loads, nothing else), the packed
 * manifest (publishable, licensed, no install-time script, a Pulumi
 * provider plugin whose executable runs main), `npm publish
 * --dry-run`, and a token-only install: the kit and undici, nothing more,
 * with no install-script warning from npm.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { packTarball, REPO } from "./consumer";

jest.setTimeout(180_000);

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  keywords?: string[];
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** An installer runs these from a tarball, a folder or git; npm 11 warns about each one not approved. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

let work: string;
let tarball: string;
let packed: Map<string, string>;
let manifest: Manifest;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-manifest-"));
  tarball = packTarball(work);
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
  packed = new Map();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else packed.set(posix.relative("package", full.slice(unpacked.length + 1).split("\\").join("/")), readFileSync(full, "utf8"));
    }
  };
  walk(unpacked);
  manifest = JSON.parse(packed.get("package.json")!) as Manifest;
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The packed files a consumer can reach: the manifest's entries (main, types,
 * exports, bin; a `*` export reaches every file it matches), then, from each
 * JavaScript file, its relative `require`s and the files it reads beside itself
 * (`"x.wasm"`), and from each declaration file its relative imports.
 */
function reachable(): Set<string> {
  const seen = new Set<string>();
  const add = (file: string): void => {
    if (seen.has(file) || !packed.has(file)) return;
    seen.add(file);
    const text = packed.get(file)!;
    const here = posix.dirname(file);
    const candidates = (spec: string, exts: string[]): string[] => exts.map((ext) => posix.normalize(posix.join(here, spec + ext)));
    if (file.endsWith(".d.ts")) {
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
        const spec = m[1]!.replace(/\.js$/, "");
        for (const c of candidates(spec, [".d.ts", "/index.d.ts"])) add(c);
      }
    } else if (file.endsWith(".js")) {
      for (const m of text.matchAll(/require\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) for (const c of candidates(m[1]!, ["", ".js", "/index.js"])) add(c);
      for (const m of text.matchAll(/["']([\w.-]+\.wasm)["']/g)) add(posix.join(here, m[1]!));
    }
  };
  const strip = (p: string): string => p.replace(/^\.\//, "");
  add("package.json");
  add("README.md");
  add("LICENSE");
  add(strip(manifest.main));
  add(strip(manifest.types));
  for (const bin of Object.values(manifest.bin)) add(strip(bin));
  for (const target of Object.values(manifest.exports)) {
    for (const path of typeof target === "string" ? [target] : [target.types, target.default]) {
      const p = strip(path);
      if (!p.includes("*")) add(p);
      else {
        const [before, after] = p.split("*") as [string, string];
        for (const file of packed.keys()) if (file.startsWith(before) && file.endsWith(after)) add(file);
      }
    }
  }
  return seen;
}

describe("npm pack", () => {
  it("ships every file a consumer's program, types or the agent-user command loads, and nothing else", () => {
    const loaded = reachable();
    expect([...packed.keys()].filter((file) => !loaded.has(file)).sort()).toEqual([]);
    // Every entry the manifest names is in the tarball, with what it loads.
    expect(packed.has("dist/lib/index.js") && packed.has("dist/lib/index.d.ts") && packed.has("dist/infra/index.d.ts")).toBe(true);
    for (const command of ["token", "manifest", "comments", "doctor", "preflight", "emulator"]) expect(loaded.has(`dist/probes/bundle/${command}.js`)).toBe(true);
    expect(loaded.has("dist/lib/llhttp_simd.wasm")).toBe(true);
  });

  it("is a Pulumi provider plugin: an executable pulumi-resource-agent-user-kit at its root runs main, and imports by name still reach the token library", () => {
    // Pulumi starts `pulumi-resource-<name>` from the folder a program names under plugins.providers, with no language host.
    const plugin = join(work, "unpacked", "package", "pulumi-resource-agent-user-kit");
    expect([statSync(plugin).mode & 0o111, packed.get("pulumi-resource-agent-user-kit")!.split("\n")[0]]).toEqual([0o111, "#!/usr/bin/env node"]);
    expect(packed.get("pulumi-resource-agent-user-kit")).toContain(`require("./${manifest.main}")()`);
    expect(manifest.bin["pulumi-resource-agent-user-kit"]).toBe("pulumi-resource-agent-user-kit");
    expect(packed.has("PulumiPlugin.yaml")).toBe(false);
    expect(manifest.main).toBe("dist/infra/plugin/index.js");
    expect(packed.has("dist/infra/plugin/schema.json")).toBe(true);
    // `import … from "agent-user-kit"` resolves through exports, which main does not change; TypeScript's types likewise.
    expect(manifest.exports["."]).toEqual({ types: "./dist/lib/index.d.ts", default: "./dist/lib/index.js" });
    expect(manifest.types).toBe("dist/lib/index.d.ts");
  });

  it("packs a publishable manifest: not private, MIT with its LICENSE, keywords, and no install-time script", () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe("MIT");
    expect(packed.get("LICENSE")).toMatch(/^MIT License\n/);
    expect(manifest.keywords).toEqual(expect.arrayContaining(["microsoft-entra", "agent-user"]));
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
  });

  it("a token-only consumer depends on undici alone: @azure/core-auth is not a dependency", () => {
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(["undici"]);
    expect(Object.keys(manifest.peerDependencies ?? {}).filter((name) => !name.startsWith("@pulumi/"))).toEqual([]);
    // The declarations name no package a token-only install lacks.
    const typeImports = [...packed.entries()]
      .filter(([file]) => file.startsWith("dist/lib/") && file.endsWith(".d.ts"))
      .flatMap(([, text]) => [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+["']([^."'][^"']*)["']/gm)].map((m) => m[1]!));
    expect(typeImports.filter((name) => name !== "undici" && !name.startsWith("node:"))).toEqual([]);
  });
});

it("npm publish --dry-run accepts the package", () => {
  const run = spawnSync("npm", ["publish", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: REPO, encoding: "utf8" });
  expect(run.stderr).not.toMatch(/npm error/);
  expect(run.status).toBe(0);
  expect(run.stderr).toMatch(/\+ agent-user-kit@|Publishing to /);
});

describe("npm install <tarball> into a fresh project", () => {
  let dir: string;
  let stderr: string;
  beforeAll(() => {
    dir = join(work, "consumer");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    // npm's own warnings are what a user sees: no --loglevel here.
    const run = spawnSync("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline"], { cwd: dir, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`npm install failed:\n${run.stderr}`);
    stderr = run.stderr;
  });

  it("shows no install-script warning", () => {
    expect(stderr).not.toMatch(/install-scripts|install script/i);
    expect(stderr).toBe("");
  });

  it("installs the kit and undici only, and measures what that costs on disk", () => {
    const modules = join(dir, "node_modules");
    const installed = readdirSync(modules).filter((name) => !name.startsWith("."));
    expect(installed.sort()).toEqual(["agent-user-kit", "undici"]);
    let bytes = 0;
    const walk = (path: string): void => {
      const stat = lstatSync(path);
      if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
      else bytes += stat.size;
    };
    walk(modules);
    // The README states this size; a dependency that grows it past the budget shows up here first.
    const megabytes = bytes / 1_000_000;
    expect({ megabytes: Number(megabytes.toFixed(1)), withinBudget: megabytes < 4 }).toEqual({ megabytes: expect.any(Number), withinBudget: true });
    expect(existsSync(join(dirname(modules), "package-lock.json"))).toBe(true);
  });
});
