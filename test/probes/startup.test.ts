/**
 * What a fresh process loads, which is what its start-up time is made of
 * (`npm run bench -- --startup` measures the time itself): importing the
 * runtime entry loads no network or crypto code, the `agent-user` bin loads
 * the CLI's dispatcher and the one command it runs, each a bundled file, and
 * `agent-user token` with a client secret reaches its first request from
 * those files and undici's bundle, without node:crypto, node:http2,
 * node:assert or any of undici's own files (the bundle reads llhttp's
 * WebAssembly bytes from beside it at the first connection).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { tokenFlags } from "../bench/token-flags";

const ROOT = resolve(__dirname, "../..");
const DIST = join(ROOT, "dist");
const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin["agent-user"]!);
const HEAVY = /^NativeModule (crypto|fs\/promises|http2|https|tls|assert)$/;

const scratch = mkdtempSync(join(tmpdir(), "startup-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs `script` as a file in a fresh node (not with -e, which loads node:crypto itself) and parses the
 * JSON line it prints first.
 */
function fresh(script: string): Record<string, unknown> {
  const file = join(scratch, "script.js");
  writeFileSync(file, script);
  const out = execFileSync(process.execPath, [file], { encoding: "utf8", env: { PATH: process.env.PATH, AGENT_USER_BLUEPRINT_SECRET: "startup-secret" }, timeout: 20_000 });
  return JSON.parse(out.trim().split("\n")[0]!) as Record<string, unknown>;
}

/** Prints what is loaded so far: heavy built-in modules, and every file of the package or of its dependencies. */
const REPORT = `const report = () => JSON.stringify({
  builtins: process.moduleLoadList.filter((m) => ${HEAVY}.test(m)),
  files: Object.keys(require.cache).filter((f) => /node_modules|[\\\\/]dist[\\\\/]/.test(f)).map((f) => f.replace(/.*node_modules[\\\\/]|.*[\\\\/]dist[\\\\/]/, "")),
});`;

it("importing the runtime entry loads no network or crypto code", () => {
  const loaded = fresh(`${REPORT} require(${JSON.stringify(join(DIST, "lib/index.js"))}); console.log(report());`);
  expect(loaded.builtins).toEqual([]);
  expect((loaded.files as string[]).filter((f) => !f.startsWith("lib/"))).toEqual([]);
  expect(loaded.files).not.toContain("lib/undici-bundle.js");
});

it("the bin turns on the compile cache, then loads the CLI's dispatcher and the command it runs, and nothing else of the kit", () => {
  const script = `${REPORT}
    process.on("exit", () => process.stderr.write("\\nloaded: " + report() + "\\n"));
    process.argv = [process.argv[0], ${JSON.stringify(BIN)}, "help", "token"];
    require(${JSON.stringify(BIN)});`;
  const file = join(scratch, "bin-script.js");
  writeFileSync(file, script);
  const run = spawnSync(process.execPath, [file], { encoding: "utf8", env: { PATH: process.env.PATH }, timeout: 20_000 });
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^agent-user token: mint one of an agent's tokens/);
  const report = JSON.parse(/^loaded: (.*)$/m.exec(run.stderr)?.[1] ?? "null") as unknown;
  expect(report).toEqual({ builtins: [], files: ["probes/agent-user.js", "probes/compile-cache.js", "probes/bundle/cli.js", "probes/bundle/token.js"] });
});

const REFUSAL_BODY = JSON.stringify({ error: "invalid_client", error_description: "AADSTS7000215: startup test", error_codes: [7000215] });
/** What that identity provider answers: invalid_client, so the command ends at once (exit 3). */
const REFUSAL = `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${REFUSAL_BODY.length}\r\nconnection: close\r\n\r\n${REFUSAL_BODY}`;

it("agent-user token with a client secret reaches its first request through the bin, the dispatcher, undici's bundle and the command's bundle alone", () => {
  const script = `${REPORT}
    const server = require("node:net").createServer((socket) => socket.once("data", () => {
      console.log(report());
      socket.end(${JSON.stringify(REFUSAL)});
    }));
    server.listen(0, "127.0.0.1", () => {
      const args = ${JSON.stringify(tokenFlags(0))}.map((a) => (a === "http://127.0.0.1:0" ? "http://127.0.0.1:" + server.address().port : a));
      process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...args];
      require(${JSON.stringify(BIN)});
    });`;
  const file = join(scratch, "token-script.js");
  writeFileSync(file, script);
  const run = spawnSync(process.execPath, [file], { encoding: "utf8", env: { PATH: process.env.PATH, AGENT_USER_BLUEPRINT_SECRET: "startup-secret" }, timeout: 20_000 });
  expect(run.status).toBe(3);
  // The bin's start(): undici's bundle, then the command's, before V8's WebAssembly flag changes.
  expect(JSON.parse(run.stdout.split("\n")[0]!)).toEqual({
    builtins: [],
    files: ["probes/agent-user.js", "probes/compile-cache.js", "probes/bundle/cli.js", "lib/undici-bundle.js", "probes/bundle/token.js"],
  });
});

it("agent-user token, run twice through the bin, takes the dispatcher's, the command's and undici's compiled code from the cache in the user's own cache directory", async () => {
  const { createServer } = await import("node:net");
  const { spawn } = await import("node:child_process");
  const server = createServer((socket) => socket.once("data", () => socket.end(REFUSAL)));
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const port = (server.address() as { port: number }).port;
  const args = [BIN, ...tokenFlags(port)];
  const home = join(scratch, "home");
  const cache = join(home, ".cache", "agent-user-kit", "node-compile-cache");
  const env = { PATH: process.env.PATH, HOME: home, AGENT_USER_BLUEPRINT_SECRET: "startup-secret", NODE_DEBUG_NATIVE: "COMPILE_CACHE" };
  const run = () =>
    new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("close", (code) => done({ code, stderr }));
    });
  try {
    // The second run reads what the first one wrote, whatever ran before this test.
    expect((await run()).code).toBe(3);
    const second = await run();
    expect(second.code).toBe(3);
    for (const file of ["bundle/cli\\.js", "bundle/token\\.js", "lib/undici-bundle\\.js"]) {
      expect(second.stderr).toMatch(new RegExp(`\\[compile cache\\][^\\n]*${file} was accepted`));
    }
    expect(second.stderr).toContain(cache);
  } finally {
    server.close();
  }
});
