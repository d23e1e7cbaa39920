/**
 * `agent-user emulator` as a new user meets it: a busy port, the renamed
 * --tenant-file and --env-out, where its certificate goes and where it cannot,
 * its banner, its outputs file (0600, atomic, never through a link), and
 * ending with its launcher or its terminal. Run as the built bin, under Node
 * as the shebang starts it: Node reads some flags itself (--env-file).
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { defaultTenant, SHARE_URLS } from "../../emulator/seed";
import { runCli } from "../harness";

const CLI = join(resolve(__dirname, "../.."), "dist/probes/agent-user.js");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-user-emulator-first-run-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the emulator until it prints its banner, calls `whileRunning` with it, then stops it
 * with `signal` (SIGTERM); resolves to its output and exit code.
 */
function bannerOf(
  args: string[],
  cwd = dir,
  whileRunning?: (banner: string) => void,
  { signal = "SIGTERM", env = process.env }: { signal?: NodeJS.Signals; env?: NodeJS.ProcessEnv } = {},
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, "emulator", ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    let stopping = false;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (!stopping && stdout.includes("press Ctrl+C")) {
        whileRunning?.(stdout);
        stopping = child.kill(signal);
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // "close", not "exit": the last line ("emulator stopped …") can arrive after the exit event.
    child.on("close", (code) => done({ stdout, stderr, code }));
  });
}

it("a busy port is a usage error that says so, exit 2, not an internal error", async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
  const busy = (blocker.address() as AddressInfo).port;
  try {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--port", String(busy)], { cwd: dir, encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`port ${busy} is in use; choose another --port, or omit it for a free one`);
    const https = spawnSync(process.execPath, [CLI, "emulator", "--https-port", String(busy)], { cwd: dir, encoding: "utf8", timeout: 20_000 });
    expect(https.status).toBe(2);
    expect(https.stderr).toContain(`port ${busy} is in use; choose another --https-port`);
  } finally {
    blocker.close();
  }
});

it("takes --tenant-file; --tenant still works with a deprecation warning", async () => {
  writeFileSync(join(dir, "tenant.json"), JSON.stringify(defaultTenant()));
  const fresh = await bannerOf(["--tenant-file", "tenant.json"]);
  expect(fresh.code).toBe(0);
  expect(fresh.stderr).toBe("");
  const old = await bannerOf(["--tenant", "tenant.json"]);
  expect(old.code).toBe(0);
  expect(old.stderr).toContain("--tenant FILE is deprecated, use --tenant-file FILE");
});

it("lists the seeded share URLs, and writes its certificate beside --outputs or under the temp directory (gone when it stops), never into the cwd", async () => {
  const cwd = mkdtempSync(join(dir, "cwd-"));
  let existedWhileRunning = false;
  const plain = await bannerOf([], cwd, (banner) => (existedWhileRunning = existsSync(/certificate: (\S+)\)/.exec(banner)![1]!)));
  for (const url of Object.values(SHARE_URLS)) expect(plain.stdout).toContain(url);
  const ca = /certificate: (\S+)\)/.exec(plain.stdout)![1]!;
  expect(ca.startsWith(tmpdir())).toBe(true);
  expect(existedWhileRunning).toBe(true);
  // A new certificate is made at every start: the directory made for this one went with the emulator.
  expect(existsSync(dirname(ca))).toBe(false);
  expect(readdirSync(cwd)).toEqual([]);
  mkdirSync(join(cwd, "sub"));
  const beside = await bannerOf(["--outputs", "sub/outputs.json"], cwd);
  expect(beside.stdout).toContain(`certificate: ${join(cwd, "sub", "emulator-ca.pem")}`);
});

it("writes --outputs 0600 over an existing 0644 file, and refuses a symbolic link", async () => {
  const file = join(dir, "outputs.json");
  writeFileSync(file, "{}");
  chmodSync(file, 0o644);
  expect((await bannerOf(["--outputs", "outputs.json"])).code).toBe(0);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, "utf8")).blueprintClientSecret).toMatch(/^emu~/);
  const target = join(dir, "elsewhere.json");
  symlinkSync(target, join(dir, "link.json"));
  const link = spawnSync(process.execPath, [CLI, "emulator", "--outputs", "link.json"], { cwd: dir, encoding: "utf8", timeout: 20_000 });
  expect(link.status).toBe(2);
  expect(link.stderr).toContain("is a symbolic link");
  expect(existsSync(target)).toBe(false);
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
});

it("ends when its standard input (a pipe) closes, as when the job that started it goes away", async () => {
  const child = spawn(process.execPath, [CLI, "emulator"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  await new Promise<void>((ready) => child.stdout.on("data", (d: Buffer) => (out += d.toString()).includes("press Ctrl+C") && ready()));
  const exited = new Promise<number | null>((done) => child.on("close", done));
  child.stdin.end();
  expect(await exited).toBe(0);
  expect(out).toContain("emulator stopped (standard input closed)");
});

it("ends when its parent goes away (npx agent-user emulator & ... kill)", async () => {
  // sh starts the emulator in the background and waits; killing sh orphans the emulator, which must notice.
  const sh = spawn("sh", ["-c", `"${process.execPath}" "${CLI}" emulator --outputs parent.json </dev/null >/dev/null 2>&1 & echo $!; wait`], { cwd: dir, stdio: ["ignore", "pipe", "ignore"] });
  const pid = Number(await new Promise<string>((r) => sh.stdout.once("data", (d: Buffer) => r(d.toString().trim()))));
  for (let i = 0; i < 100 && !existsSync(join(dir, "parent.json")); i++) await new Promise((r) => setTimeout(r, 100));
  sh.kill("SIGKILL");
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  expect(alive()).toBe(false);
});

it("--env-out FILE writes the provisioner's ARM_* (0600) from the bin, where Node itself would have read --env-file", async () => {
  const cwd = mkdtempSync(join(dir, "env-out-"));
  let mode = 0;
  let text = "";
  const run = await bannerOf(["--outputs", "outputs.json", "--env-out", "arm.env"], cwd, () => {
    mode = statSync(join(cwd, "arm.env")).mode & 0o777;
    text = readFileSync(join(cwd, "arm.env"), "utf8");
  });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(mode).toBe(0o600);
  expect(text).toMatch(/^ARM_TENANT_ID='[0-9a-f-]{36}'\nARM_CLIENT_ID='[0-9a-f-]{36}'\nARM_CLIENT_SECRET='emu~[^']+'\nARM_METADATA_HOSTNAME='127\.0\.0\.1:\d+'\nSSL_CERT_FILE='[^']+'\nNODE_EXTRA_CA_CERTS='[^']+'\n$/);
  expect(run.stdout).toContain("provisioner settings written to arm.env: set -a; . arm.env; set +a");
  expect(run.stdout).toContain("emulator stopped (SIGTERM)");
  // The old flag reaches the CLI only when its file exists (Node checked it first): refused, and the file left alone.
  const old = spawnSync(process.execPath, [CLI, "emulator", "--outputs", "old.json", "--env-file", "arm.env"], { cwd, encoding: "utf8", timeout: 20_000 });
  expect(old.status).toBe(2);
  expect(old.stderr).toContain("--env-file was renamed to --env-out: Node reads --env-file itself");
  expect(readFileSync(join(cwd, "arm.env"), "utf8")).toBe(text);
  expect(existsSync(join(cwd, "old.json"))).toBe(false);
});

it("a stop after its terminal or reader is gone is still exit 0: the banner's last line is not a result (no exit 74)", async () => {
  const run = await new Promise<{ code: number | null; stderr: string }>((done) => {
    const child = spawn(process.execPath, [CLI, "emulator"], { cwd: dir });
    let banner = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      banner += d.toString();
      if (!banner.includes("press Ctrl+C")) return;
      // The reader goes, as a closed terminal's does: "emulator stopped" then fails with EPIPE.
      child.stdout.destroy();
      child.kill("SIGHUP");
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => done({ code, stderr }));
  });
  expect(run).toEqual({ code: 0, stderr: "" });
});

/** A port nothing listens on, as the system handed it out. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Whether `port` can be listened on again: the emulator that had it closed it. */
async function released(port: number): Promise<boolean> {
  const server = createServer();
  const ok = await new Promise<boolean>((r) => server.once("error", () => r(false)).listen(port, "127.0.0.1", () => r(true)));
  if (ok) await new Promise((r) => server.close(r));
  return ok;
}

it("a certificate it cannot write is exit 2 naming --ca-file or --outputs and the error code, with nothing half-written and nothing listening", async () => {
  const cwd = mkdtempSync(join(dir, "ca-refused-"));
  mkdirSync(join(cwd, "somedir"));
  const cases: Array<[string[], string]> = [
    [["--outputs", "o.json", "--ca-file", "somedir"], `cannot write --ca-file ${join(cwd, "somedir")}: EISDIR`],
    [["--outputs", "o.json", "--ca-file", ""], `cannot write --ca-file ${cwd}: EISDIR`],
    ...(existsSync("/proc/self")
      ? ([
          [["--outputs", "o.json", "--ca-file", "/proc/ca.pem"], "cannot write --ca-file /proc/ca.pem: E"],
          [["--outputs", "/proc/o.json"], "cannot write the certificate beside --outputs, /proc/emulator-ca.pem: E"],
        ] as Array<[string[], string]>)
      : []),
  ];
  for (const [args, message] of cases) {
    const run = spawnSync(process.execPath, [CLI, "emulator", ...args], { cwd, encoding: "utf8", timeout: 20_000 });
    expect({ args, status: run.status }).toEqual({ args, status: 2 });
    expect(run.stderr).toContain(message);
    expect(run.stderr).toMatch(/: E[A-Z]+\nhint: /);
    expect(run.stderr).not.toContain("internal error");
  }
  expect(readdirSync(cwd)).toEqual(["somedir"]);
  expect(readdirSync(join(cwd, "somedir"))).toEqual([]);
  // In this process, where a server left open would keep listening: both ports are free again.
  const [port, httpsPort] = [await freePort(), await freePort()];
  const run = await runCli(["emulator", "--port", String(port), "--https-port", String(httpsPort), "--ca-file", "somedir"], {}, cwd);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("EISDIR");
  expect(await released(port)).toBe(true);
  expect(await released(httpsPort)).toBe(true);
});

it("a certificate write that fails after making its directories removes the ones it made, and only those; it is exit 2, never an internal error", () => {
  const cwd = mkdtempSync(join(dir, "ca-made-"));
  mkdirSync(join(cwd, "kept"));
  // One character longer than a file name may be: the rename fails with ENAMETOOLONG once the directories exist.
  const name = `${"c".repeat(252)}.pem`;
  for (const under of [join("kept", "new", "deeper"), "kept"]) {
    const run = spawnSync(process.execPath, [CLI, "emulator", "--ca-file", join(under, name)], { cwd, encoding: "utf8", timeout: 20_000 });
    expect({ under, status: run.status }).toEqual({ under, status: 2 });
    expect(run.stderr).toContain(`cannot write --ca-file ${join(cwd, under, name)}: ENAMETOOLONG`);
    expect(readdirSync(cwd)).toEqual(["kept"]);
    expect(readdirSync(join(cwd, "kept"))).toEqual([]);
  }
});

it("a TMPDIR that is not a directory is exit 2 naming TMPDIR and the error code, not an internal error", () => {
  const file = join(dir, "tmpdir-is-a-file");
  writeFileSync(file, "");
  const run = spawnSync(process.execPath, [CLI, "emulator"], { cwd: dir, encoding: "utf8", timeout: 20_000, env: { ...process.env, TMPDIR: file } });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain(`cannot make a directory for the certificate under TMPDIR ${file}: ENOTDIR`);
  expect(run.stderr).toContain("hint: set TMPDIR to a directory you can write, or name the certificate's file with --ca-file FILE");
});

it("stops cleanly on SIGHUP (its terminal closed), exit 0, and removes the temp directory of its certificate", async () => {
  const temp = mkdtempSync(join(dir, "tmpdir-"));
  let existedWhileRunning = false;
  const run = await bannerOf([], dir, (banner) => (existedWhileRunning = existsSync(/certificate: (\S+)\)/.exec(banner)![1]!)), { signal: "SIGHUP", env: { ...process.env, TMPDIR: temp } });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("emulator stopped (SIGHUP)");
  const ca = /certificate: (\S+)\)/.exec(run.stdout)![1]!;
  expect(dirname(ca).startsWith(join(temp, "agent-user-emulator-"))).toBe(true);
  expect(existedWhileRunning).toBe(true);
  expect(existsSync(dirname(ca))).toBe(false);
  expect(readdirSync(temp).filter((f) => f.startsWith("agent-user-emulator-"))).toEqual([]);
});

it.each([
  ["SIGTERM", "SIGTERM"],
  ["SIGINT", "SIGINT"],
  ["SIGINT", "SIGTERM"],
] as const)("a second stop signal sent as soon as the first is acknowledged (%s, then %s) is taken: exit 0, its temp directory gone", async (first, second) => {
  const temp = mkdtempSync(join(dir, "tmpdir-"));
  const child = spawn(process.execPath, [CLI, "emulator"], { cwd: dir, env: { ...process.env, TMPDIR: temp } });
  let stdout = "";
  let stderr = "";
  let sent = 0;
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (sent === 0 && stdout.includes("press Ctrl+C")) sent = child.kill(first) ? 1 : -1;
    // Its acknowledgement of the first; an emulator without one is met at its last line.
    else if (sent === 1 && /emulator stopp(ing|ed) \(/.test(stdout)) sent = child.kill(second) ? 2 : -1;
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on("close", (code, signal) => done({ code, signal })));
  expect(end).toEqual({ code: 0, signal: null });
  expect(stdout).toContain(`emulator stopping (${first})\n`);
  expect(stdout).toContain(`emulator stopped (${first})\n`);
  expect(stderr).toBe("");
  expect(readdirSync(temp).filter((f) => f.startsWith("agent-user-emulator-"))).toEqual([]);
});

/**
 * Stands in for npx: runs its argument as a command line through `sh -c` with
 * its own stdio, as npm exec does, and tells the test that shell's pid on fd 3.
 */
const NPX = `const shell = require("node:child_process").spawn(process.argv[1], { shell: true, stdio: "inherit" });
require("node:fs").writeSync(3, shell.pid + "\\n");`;

/** Whether something accepts connections on `port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((r) => {
    const socket = connect(port, "127.0.0.1", () => (socket.destroy(), r(true)));
    socket.on("error", () => r(false));
  });
}

it.each(["SIGKILL", "SIGHUP"] as const)("ends when its launcher alone is killed with %s, though the launcher's shell lives on as its parent", async (signal) => {
  const temp = mkdtempSync(join(dir, "tmpdir-"));
  const npx = spawn(process.execPath, ["-e", NPX, `"${process.execPath}" "${CLI}" emulator`], { cwd: dir, env: { ...process.env, TMPDIR: temp }, stdio: ["ignore", "pipe", "pipe", "pipe"] });
  const shellPid = new Promise<number>((r) => npx.stdio[3]!.once("data", (d: Buffer) => r(Number(d.toString()))));
  let stdout = "";
  npx.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  // The emulator and its shell hold this pipe too: it ends once both have exited.
  let ended = false;
  const end = new Promise<void>((r) =>
    npx.stdout!.on("end", () => {
      ended = true;
      r();
    }),
  );
  await new Promise<void>((ready) => npx.stdout!.on("data", () => stdout.includes("press Ctrl+C") && ready()));
  const port = Number(/http: +http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)![1]);
  const shell = await shellPid;
  const emulatorPid = Number(readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim());
  try {
    npx.kill(signal);
    // The emulator's stdout ends when it exits; one that outlives its launcher fails here by the test's timeout.
    await end;
    expect(await accepts(port)).toBe(false);
    expect(stdout).toContain("emulator stopped (the process that started it went away)");
    expect(readdirSync(temp).filter((f) => f.startsWith("agent-user-emulator-"))).toEqual([]);
  } finally {
    // Still holding the pipe, the emulator outlived its launcher (the failure above): end it, by its own pid.
    if (!ended) process.kill(emulatorPid, "SIGKILL");
  }
});
