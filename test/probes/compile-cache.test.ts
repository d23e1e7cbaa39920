/**
 * Node's compile cache is code the `agent-user` bin runs: it lives only in a
 * directory this user alone can change, never in a shared temporary
 * directory, and is off where there is no such place. Each case plants what
 * another user could (a world-writable cache in TMPDIR, a cache home or a
 * cache directory others can write, a link out to one) and checks that
 * nothing of the bin's lands there.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { privateCompileCacheDir } from "../../probes/compile-cache";

const ROOT = resolve(__dirname, "../..");
const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin["agent-user"]!);

let scratch: string;
let home: string;
/** A TMPDIR as another user could leave it: world-writable, with a world-writable node-compile-cache in it. */
let tmp: string;
let sharedCache: string;
beforeEach(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "compile-cache-")));
  home = join(scratch, "home");
  mkdirSync(home, { mode: 0o700 });
  tmp = join(scratch, "tmp");
  sharedCache = join(tmp, "node-compile-cache");
  mkdirSync(sharedCache, { recursive: true });
  chmodSync(tmp, 0o777);
  chmodSync(sharedCache, 0o777);
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(scratch, { recursive: true, force: true });
});

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string) => (existsSync(dir) ? (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean }>).filter((e) => e.isFile()).length : 0);

/** The bin's `help token` (the dispatcher and the token command's bundle), with NODE_DEBUG_NATIVE showing the cache's work. */
function bin(env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [BIN, "help", "token"], { encoding: "utf8", env: { PATH: process.env.PATH, TMPDIR: tmp, HOME: home, NODE_DEBUG_NATIVE: "COMPILE_CACHE", ...env }, timeout: 20_000 });
  return { status: run.status, stderr: run.stderr };
}

const privateCache = () => join(home, ".cache", "agent-user-kit", "node-compile-cache");

it("the cache is in ~/.cache/agent-user-kit, made 0700, and a world-writable cache in TMPDIR stays empty", () => {
  expect(bin({}).status).toBe(0);
  const second = bin({});
  expect(second.status).toBe(0);
  expect(second.stderr).toMatch(/\[compile cache\][^\n]*bundle\/cli\.js was accepted/);
  expect(filesUnder(sharedCache)).toBe(0);
  expect(filesUnder(privateCache())).toBeGreaterThan(0);
  expect(statSync(privateCache()).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, ".cache", "agent-user-kit")).mode & 0o777).toBe(0o700);
});

it("under $XDG_CACHE_HOME when it is set", () => {
  const xdg = join(scratch, "xdg");
  expect(bin({ XDG_CACHE_HOME: xdg }).status).toBe(0);
  expect(filesUnder(join(xdg, "agent-user-kit", "node-compile-cache"))).toBeGreaterThan(0);
  expect(filesUnder(sharedCache)).toBe(0);
  expect(existsSync(join(home, ".cache"))).toBe(false);
});

it("a cache home in a shared temporary directory: no cache, and nothing made there", () => {
  expect(bin({ XDG_CACHE_HOME: tmp }).status).toBe(0);
  expect(readdirSync(tmp)).toEqual(["node-compile-cache"]);
  expect(filesUnder(tmp)).toBe(0);
  expect(existsSync(join(home, ".cache"))).toBe(false);
});

it("a per-user cache directory others can write: not used, and no cache anywhere else", () => {
  mkdirSync(privateCache(), { recursive: true });
  chmodSync(privateCache(), 0o777);
  const run = bin({});
  expect(run.status).toBe(0);
  expect(run.stderr).not.toMatch(/was accepted|writing cache/);
  expect(filesUnder(privateCache())).toBe(0);
  expect(filesUnder(sharedCache)).toBe(0);
});

it("a per-user cache directory that links to the shared one in TMPDIR: not used", () => {
  mkdirSync(join(home, ".cache", "agent-user-kit"), { recursive: true, mode: 0o700 });
  symlinkSync(sharedCache, privateCache());
  expect(bin({}).status).toBe(0);
  expect(filesUnder(sharedCache)).toBe(0);
});

describe("privateCompileCacheDir", () => {
  it("is the cache directory under a safe cache home", () => {
    expect(privateCompileCacheDir({ HOME: home })).toBe(privateCache());
  });

  it("is none when the directory is someone else's, whatever its mode", () => {
    mkdirSync(privateCache(), { recursive: true, mode: 0o700 });
    const uid = process.getuid!();
    jest.spyOn(process, "getuid").mockReturnValue(uid + 1);
    expect(privateCompileCacheDir({ HOME: home })).toBeUndefined();
  });

  it("is none when a directory above it is writable by its group, or has no user id to check against", () => {
    chmodSync(home, 0o770);
    expect(privateCompileCacheDir({ HOME: home })).toBeUndefined();
    chmodSync(home, 0o700);
    expect(privateCompileCacheDir({ HOME: home })).toBe(privateCache());
    jest.spyOn(process, "getuid").mockReturnValue(undefined as unknown as number);
    expect(privateCompileCacheDir({ HOME: home })).toBeUndefined();
  });

  it("ignores a relative $XDG_CACHE_HOME, as the XDG spec says", () => {
    expect(privateCompileCacheDir({ HOME: home, XDG_CACHE_HOME: "relative/cache" })).toBe(privateCache());
  });
});
