/**
 * A user's view of the package: `npm pack`, then a fresh project that installs
 * the tarball (and only what it chooses of the peers), as a user would.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The repository: the first folder up from here with its package.json (this file also runs compiled, from dist/, for the bench). */
export const REPO = ((): string => {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, "package.json"))) return dir;
  throw new Error(`no package.json above ${__dirname}`);
})();

function npm(args: string[], cwd: string): string {
  // --prefer-offline: every package is already in the npm cache from this repository's own install.
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Packs the repository's dist/, as `npm test` has just built it, into `dir`; returns the tarball's path.
 * --ignore-scripts: `prepack` would rebuild dist/ while other test workers run the CLI from it.
 */
export function packTarball(dir: string): string {
  const name = npm(["pack", "--ignore-scripts", "--pack-destination", dir], REPO).trim().split("\n").pop()!;
  return join(dir, name);
}

/** A fresh CommonJS project in `dir` with the tarball and `extra` packages installed. */
export function installConsumer(dir: string, tarball: string, extra: string[] = []): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
  npm(["install", tarball, ...extra], dir);
  return dir;
}

/** The versions this repository pins, so a consumer installs the same peers. */
export function pinned(name: string): string {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  return `${name}@${pkg.devDependencies[name]}`;
}

/** The first block of `info` (e.g. "ts", "sh engine") under a README heading, exactly as a reader copies it. */
export function readmeExample(heading: string, info = "ts"): string {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README.md has no heading ${JSON.stringify(heading)}`);
  const block = new RegExp("```" + info.replace(/ /g, " +") + "(?: [^\\n]*)?\\n([\\s\\S]*?)```").exec(readme.slice(at));
  if (!block) throw new Error(`README.md has no ${info} block under ${JSON.stringify(heading)}`);
  return block[1]!;
}

export type Resolution = "node16" | "bundler";

/**
 * Type-checks `files` in `dir` as a strict TypeScript consumer would, with
 * this repository's compiler and @types/node; throws tsc's report on errors.
 */
export function typeCheck(dir: string, files: string[], resolution: Resolution, emit = false): void {
  const options = {
    strict: true,
    target: "ES2022",
    module: resolution === "node16" ? "node16" : "esnext",
    moduleResolution: resolution,
    types: ["node"],
    typeRoots: [join(REPO, "node_modules/@types")],
    skipLibCheck: false,
    noEmit: !emit,
    ...(emit ? { outDir: "out" } : {}),
  };
  const config = join(dir, `tsconfig.${resolution}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: options, files }));
  try {
    execFileSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", config], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`tsc (${resolution}) failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/**
 * Runs a script of the consumer with Node; resolves to its exit code and
 * output. Asynchronous: the emulator it talks to runs in this process.
 */
export function runNode(dir: string, script: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [script, ...args], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}
