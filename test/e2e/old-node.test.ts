/**
 * `npm test` and `npm start` on a Node.js older than `engines`: one line that
 * names the Node.js needed, exit 2, and nothing built or run. The commands
 * run in a scratch copy of package.json and scripts/ (no node_modules, so a
 * build that started would fail at once instead of touching this tree's dist/),
 * with `node` on the PATH reporting an older version.
 */
import { execFile } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

const REPO = resolve(__dirname, "../..");

let work: string;
let fakeBin: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-old-node-"));
  cpSync(join(REPO, "package.json"), join(work, "package.json"));
  cpSync(join(REPO, "scripts"), join(work, "scripts"), { recursive: true });
  fakeBin = join(work, ".bin");
  mkdirSync(fakeBin);
  const preload = join(fakeBin, "node-20.js");
  writeFileSync(preload, `Object.defineProperty(process.versions, "node", { value: "20.20.2" });\nObject.defineProperty(process, "version", { value: "v20.20.2" });\n`);
  // npm's scripts find `node` on the PATH: this one is Node 20 as far as any script can tell.
  writeFileSync(join(fakeBin, "node"), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --require ${JSON.stringify(preload)} "$@"\n`);
  chmodSync(join(fakeBin, "node"), 0o755);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function npm(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const env = { ...process.env, PATH: `${fakeBin}${delimiter}${process.env.PATH ?? ""}`, npm_config_update_notifier: "false" };
    execFile("npm", ["--silent", "run", script], { cwd: work, env, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

it.each(["test", "start"])("npm %s on Node 20 prints one line asking for Node 22 and exits 2 before building", async (script) => {
  const run = await npm(script);
  expect(run.stderr).toBe("agent-user-kit needs Node.js 22 or later (22 and 24 are the supported LTS lines); this is v20.20.2. Switch Node.js (nvm use 22, or fnm use 22) and run it again.\n");
  expect(run.stdout).toBe("");
  expect(run.code).toBe(2);
  // Nothing was built.
  expect(readdirSync(work).sort()).toEqual([".bin", "package.json", "scripts"]);
});

it("on a supported Node the check says nothing and lets the script go on", async () => {
  const run = await new Promise<{ code: number; stderr: string }>((done) => {
    execFile(process.execPath, [join(REPO, "scripts/check-node.js")], (err, _stdout, stderr) => done({ code: err ? Number(err.code) : 0, stderr }));
  });
  expect(run).toEqual({ code: 0, stderr: "" });
});
