/**
 * `agent-user emulator` as a new user meets it: a busy port, the renamed
 * --tenant-file, where its certificate goes, its banner, its outputs file
 * (0600, atomic, never through a link), and ending with its launcher.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { defaultTenant, SHARE_URLS } from "../../emulator/seed";

const CLI = join(resolve(__dirname, "../.."), "dist/probes/agent-user.js");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-user-emulator-first-run-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the emulator until it prints its banner, calls `whileRunning` with it, then stops it; resolves to its output and exit code. */
function bannerOf(args: string[], cwd = dir, whileRunning?: (banner: string) => void): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, "emulator", ...args], { cwd });
    let stdout = "";
    let stderr = "";
    let stopping = false;
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (!stopping && stdout.includes("press Ctrl+C")) {
        whileRunning?.(stdout);
        stopping = child.kill("SIGTERM");
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (code) => done({ stdout, stderr, code }));
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
  const exited = new Promise<number | null>((done) => child.on("exit", done));
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
