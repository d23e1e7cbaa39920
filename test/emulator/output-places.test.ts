/**
 * What stands at `--outputs FILE` or `--env-out FILE` before the emulator
 * starts: an earlier run's regular file is replaced; anything else (a FIFO, a
 * socket, a device node, a directory) is exit 2 naming what it is, and is
 * left exactly as it was, with nothing else removed or written either. The
 * device is made with mknod in a temporary directory when the tests run as
 * root, as CI containers often do (the FIFO stands in otherwise); the
 * machine's own /dev/null is never touched.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, type Stats } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaultTenant } from "../../emulator/seed";
import { runCli } from "../harness";

let dir: string;
const servers: Server[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-user-emulator-places-"));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((closed) => s.close(closed))));
  rmSync(dir, { recursive: true, force: true });
});

type NodeCase = [kind: string, words: string, make: (path: string) => Promise<void>];

/** A node of each kind at a fresh path, and the words the refusal names it by. */
const NODES: NodeCase[] = [
  ["FIFO", "it is a FIFO (named pipe), not a regular file (ENOTREG)", async (path) => void execFileSync("mkfifo", [path])],
  [
    "UNIX socket",
    "it is a socket, not a regular file (ENOTREG)",
    (path) =>
      new Promise<void>((listening) => {
        const server = createServer();
        servers.push(server);
        server.listen(path, listening);
      }),
  ],
  ["directory", "EISDIR", async (path) => void mkdirSync(path)],
  // Major 1, minor 3: what /dev/null is on Linux, made here and not there. mknod needs root; without it the FIFO stands in.
  ...(process.getuid?.() === 0
    ? [["character device", "it is a character device, not a regular file (ENOTREG)", async (path) => void execFileSync("mknod", [path, "c", "1", "3"])] satisfies NodeCase]
    : []),
];

/** What identifies a directory entry: the same inode, kind, device numbers and mode mean it was left alone. */
const identity = (s: Stats) => ({ ino: s.ino, mode: s.mode, rdev: s.rdev, kind: s.isFIFO() ? "fifo" : s.isSocket() ? "socket" : s.isCharacterDevice() ? "chr" : s.isDirectory() ? "dir" : "other" });

describe.each(["--outputs", "--env-out"])("%s FILE", (flag) => {
  it.each(NODES)("a %s at FILE: exit 2 naming it, the node left as it was, nothing written", async (_kind, words, make) => {
    const cwd = mkdtempSync(join(dir, "case-"));
    const path = join(cwd, "target");
    await make(path);
    const before = identity(lstatSync(path));
    const run = await runCli(["emulator", flag, path], {}, cwd);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot write ${flag} ${path}: ${words}`);
    expect(identity(lstatSync(path))).toEqual(before);
    // No certificate, temporary file or anything else beside it.
    expect(readdirSync(cwd)).toEqual(["target"]);
    expect(run.stdout).toBe("");
  });
});

it("a stale --outputs file stays when --env-out is refused: every place is checked before any is removed", async () => {
  const cwd = mkdtempSync(join(dir, "both-"));
  const outputs = join(cwd, "outputs.json");
  writeFileSync(outputs, '{"earlier":"run"}');
  execFileSync("mkfifo", [join(cwd, "arm.env")]);
  const run = await runCli(["emulator", "--outputs", outputs, "--env-out", join(cwd, "arm.env")], {}, cwd);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`cannot write --env-out ${join(cwd, "arm.env")}: it is a FIFO (named pipe)`);
  expect(readFileSync(outputs, "utf8")).toBe('{"earlier":"run"}');
  expect(lstatSync(join(cwd, "arm.env")).isFIFO()).toBe(true);
  expect(existsSync(join(cwd, "emulator-ca.pem"))).toBe(false);
});

it("a FIFO where the certificate goes (beside --outputs) is refused before the stale outputs are removed", async () => {
  const cwd = mkdtempSync(join(dir, "ca-"));
  const outputs = join(cwd, "outputs.json");
  writeFileSync(outputs, "{}");
  execFileSync("mkfifo", [join(cwd, "emulator-ca.pem")]);
  const run = await runCli(["emulator", "--outputs", outputs], {}, cwd);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`cannot write the certificate beside --outputs, ${join(cwd, "emulator-ca.pem")}: it is a FIFO (named pipe), not a regular file (ENOTREG)`);
  expect(readFileSync(outputs, "utf8")).toBe("{}");
  expect(lstatSync(join(cwd, "emulator-ca.pem")).isFIFO()).toBe(true);
});

it("a tenant with no provisioner refuses --env-out before anything is written: the test sign-in file of the same run is not left behind", async () => {
  const cwd = mkdtempSync(join(dir, "no-provisioner-"));
  const tenant = defaultTenant();
  tenant.servicePrincipals = tenant.servicePrincipals.map((sp) => ({ ...sp, graphAppRoles: [] }));
  writeFileSync(join(cwd, "tenant.json"), JSON.stringify(tenant));
  const run = await runCli(["emulator", "--tenant-file", "tenant.json", "--test-user-out", "person.env", "--env-out", "arm.env", "--ca-file", "ca.pem"], {}, cwd);
  expect([run.code, run.stderr]).toEqual([2, expect.stringContaining("--env-out: the tenant has no provisioner application")]);
  expect(readdirSync(cwd)).toEqual(["tenant.json"]);
});

describe("a refused start leaves no file behind", () => {
  it.each<[string, string[], string]>([
    ["--test-user-out in a missing directory", ["--outputs", "outputs.json", "--env-out", "arm.env", "--test-user-out", join("missing", "person.env")], `--test-user-out ${join("missing", "person.env")}: ENOENT`],
    ["--env-out in a missing directory", ["--outputs", "outputs.json", "--test-user-out", "person.env", "--env-out", join("missing", "arm.env")], `--env-out ${join("missing", "arm.env")}: ENOENT`],
    ["--outputs in a missing directory, the certificate named elsewhere", ["--ca-file", "ca.pem", "--env-out", "arm.env", "--outputs", join("missing", "outputs.json")], `--outputs ${join("missing", "outputs.json")}: ENOENT`],
    ["--test-user-out under a regular file", ["--outputs", "outputs.json", "--test-user-out", join("kept", "person.env")], `--test-user-out ${join("kept", "person.env")}: ENOTDIR`],
    // Only the write finds these, in a directory of /proc, where no file can be made: the files already written go again.
    ...(existsSync("/proc/self")
      ? ([
          ["--test-user-out where no file can be made", ["--outputs", "outputs.json", "--env-out", "arm.env", "--test-user-out", "/proc/person.env"], "--test-user-out /proc/person.env: E"],
          ["--outputs where no file can be made, written last", ["--ca-file", "ca.pem", "--env-out", "arm.env", "--test-user-out", "person.env", "--outputs", "/proc/outputs.json"], "--outputs /proc/outputs.json: E"],
        ] as Array<[string, string[], string]>)
      : []),
  ])("%s: exit 2 naming it, and no certificate, trust bundle or other file written", async (_name, args, named) => {
    const cwd = mkdtempSync(join(dir, "refused-"));
    // A regular file that was there before: it stays, and nothing joins it.
    writeFileSync(join(cwd, "kept"), "");
    const run = await runCli(["emulator", ...args], {}, cwd);
    const [flag, rest] = [named.slice(0, named.indexOf(" ")), named.slice(named.indexOf(" ") + 1)];
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot write ${flag} ${resolve(cwd, rest.slice(0, rest.lastIndexOf(": ")))}${rest.slice(rest.lastIndexOf(": "))}`);
    expect(readdirSync(cwd)).toEqual(["kept"]);
    expect(run.stdout).toBe("");
  });
});

describe("two file flags naming the same file", () => {
  it.each<[string[], string, string, string]>([
    [["--outputs", "same", "--test-user-out", "same"], "--outputs", "--test-user-out", "same"],
    [["--env-out", "same", "--test-user-out", "./same"], "--env-out", "--test-user-out", "same"],
    [["--test-user-out", "same", "--ca-file", "sub/../same"], "--test-user-out", "--ca-file", "same"],
    [["--outputs", "same", "--env-out", "same"], "--outputs", "--env-out", "same"],
    [["--outputs", "same", "--ca-file", "same"], "--outputs", "--ca-file", "same"],
    // The certificate's own place beside --outputs, and the trust bundle beside the certificate, are files of the run too.
    [["--outputs", "o.json", "--test-user-out", "emulator-ca.pem"], "--test-user-out", "the certificate beside --outputs", "emulator-ca.pem"],
    [["--ca-file", "ca.pem", "--env-out", "arm.env", "--test-user-out", "emulator-trust.pem"], "--test-user-out", "the trust bundle beside the certificate", "emulator-trust.pem"],
    // A file the run reads is one of its files too: --outputs there would remove the tenant file at start.
    [["--tenant-file", "same", "--outputs", "same"], "--tenant-file", "--outputs", "same"],
    // Through a link to the same directory: the same file by another name.
    [["--outputs", "same", "--test-user-out", "link/same"], "--outputs", "--test-user-out", "same"],
  ])("%j: exit 2 naming both, with nothing written or removed", async (args, first, second, file) => {
    const cwd = mkdtempSync(join(dir, "same-"));
    mkdirSync(join(cwd, "sub"));
    symlinkSync(".", join(cwd, "link"));
    // An earlier run's file at the place (or the tenant file read) stays as it was.
    const content = first === "--tenant-file" ? JSON.stringify(defaultTenant()) : "earlier run";
    writeFileSync(join(cwd, file), content);
    const before = readdirSync(cwd).sort();
    const run = await runCli(["emulator", ...args], {}, cwd);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${first} and ${second} name the same file, ${join(cwd, file)}`);
    expect(readdirSync(cwd).sort()).toEqual(before);
    expect(readFileSync(join(cwd, file), "utf8")).toBe(content);
    expect(run.stdout).toBe("");
  });
});
