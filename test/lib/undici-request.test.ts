/**
 * lib/undici-request.ts loads dist/lib/undici-bundle.js, which the build makes
 * from undici's own files (scripts/bundle-undici.js): undici must stay pinned
 * to one exact version, the bundle must be made from it, the files it still
 * requires from the package must be there, and what it leaves out for
 * start-up (node:http2, node:assert until an invariant fails) must stay out.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const pkg = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8")) as { dependencies: Record<string, string> };
const BUNDLE = join(__dirname, "../../dist/lib/undici-bundle.js");
const bundle = readFileSync(BUNDLE, "utf8");

it("undici is pinned to an exact version, and the bundle is made from it", () => {
  expect(pkg.dependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
  expect((JSON.parse(readFileSync(require.resolve("undici/package.json"), "utf8")) as { version: string }).version).toBe(pkg.dependencies.undici);
  expect(bundle.split("\n")[0]).toContain(`undici ${pkg.dependencies.undici} `);
});

it("the undici files the bundle may still require at run time exist", () => {
  const files = [...bundle.matchAll(/require\("(undici\/[^"]+)"\)/g)].map((m) => m[1]!);
  // llhttp's files only as the fallback for a bundle whose .wasm files are not beside it.
  expect(files).toEqual(expect.arrayContaining(["undici/lib/llhttp/llhttp_simd-wasm.js", "undici/lib/llhttp/llhttp-wasm.js"]));
  for (const file of files) expect(() => require.resolve(file)).not.toThrow();
});

it("llhttp's WebAssembly beside the bundle is the pinned undici's, byte for byte", () => {
  for (const [js, wasm] of [["llhttp_simd-wasm.js", "llhttp_simd.wasm"], ["llhttp-wasm.js", "llhttp.wasm"]] as const) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinned = require(`undici/lib/llhttp/${js}`) as Buffer;
    expect(pinned.length).toBeGreaterThan(10_000);
    expect(readFileSync(join(__dirname, "../../dist/lib", wasm)).equals(pinned)).toBe(true);
  }
});

/**
 * A request through `bundleFile` in a child process (jest sets JEST_WORKER_ID, which makes undici read the
 * fallback module in every case); prints the answer, then the llhttp .wasm files read and the llhttp
 * modules loaded.
 */
function requestThrough(bundleFile: string, noSimd: boolean): { answer: string; llhttp: string[] } {
  const script = `const fs=require("node:fs"),read=fs.readFileSync,seen=[];
    fs.readFileSync=function(file){const bytes=read.apply(this,arguments);if(/llhttp.*\\.wasm$/.test(String(file)))seen.push(require("node:path").basename(String(file)));return bytes};
    const {request,getGlobalDispatcher}=require(${JSON.stringify(bundleFile)});
    const server=require("node:http").createServer((req,res)=>res.end("answered "+req.url));
    server.listen(0,"127.0.0.1",async()=>{const r=await request.call(getGlobalDispatcher(),{origin:"http://127.0.0.1:"+server.address().port,path:"/llhttp",method:"GET"});
      const answer=r.statusCode+" "+await r.body.text();server.close();await getGlobalDispatcher().close();
      const loaded=Object.keys(require.cache).filter((f)=>/llhttp/.test(f)).map((f)=>require("node:path").basename(f));
      process.stdout.write(JSON.stringify({answer,llhttp:[...seen,...loaded]}));});`;
  const env = { PATH: process.env.PATH, UNDICI_NO_WASM_SIMD: noSimd ? "1" : "0" };
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8", env, timeout: 20_000 })) as { answer: string; llhttp: string[] };
}

it("reads the SIMD llhttp bytes beside it, and the other module's where undici picks it without SIMD", () => {
  expect(requestThrough(BUNDLE, false)).toEqual({ answer: "200 answered /llhttp", llhttp: ["llhttp_simd.wasm"] });
  expect(requestThrough(BUNDLE, true)).toEqual({ answer: "200 answered /llhttp", llhttp: ["llhttp.wasm"] });
});

it("a copy of the bundle without the .wasm files beside it (a program's own bundler) loads undici's llhttp files instead", () => {
  // Inside the package, so that undici resolves from its node_modules as it would for that program.
  const dir = mkdtempSync(join(__dirname, "../../dist/.bundle-copy-"));
  try {
    copyFileSync(BUNDLE, join(dir, "undici-bundle.js"));
    expect(requestThrough(join(dir, "undici-bundle.js"), false)).toEqual({ answer: "200 answered /llhttp", llhttp: ["llhttp_simd-wasm.js"] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("calls node:assert only as assert(condition), which the bundle's lazy assert covers", () => {
  expect(bundle).not.toMatch(/\bassert\d*\.\w+\(/);
  // The one require of node:assert is the stand-in's own, made when a condition fails.
  expect(bundle.match(/require\("(node:)?assert"\)/g)).toEqual(['require("node:assert")']);
});

it("the bundle's assert stand-in, as shipped, throws node:assert's AssertionError with its message, not a stack overflow", () => {
  // The stand-in as the bundle ships it, run on its own: it used to require itself instead of node:assert.
  const standIn = /"lazy-assert:assert"\(exports2, ?module2\) ?\{\s*(module2\.exports ?= ?function[^]*?\});?\s*\}/.exec(bundle)?.[1];
  expect(standIn).toBeDefined();
  const module2 = { exports: undefined as unknown };
  new Function("module2", "require", standIn!)(module2, require);
  const assert = module2.exports as (value: unknown, message?: string) => void;
  expect(() => assert(true, "holds")).not.toThrow();
  expect(() => assert(false, "disturbed")).toThrow(expect.objectContaining({ name: "AssertionError", code: "ERR_ASSERTION", message: "disturbed" }));
});

it("loads neither node:http2 nor node:assert, and exports the request API and the global dispatcher", () => {
  const script = `const b=require(${JSON.stringify(BUNDLE)});const d=b.getGlobalDispatcher();
    process.stdout.write(JSON.stringify({request:typeof b.request,dispatch:typeof d.dispatch,methods:typeof d.request,modules:process.moduleLoadList.filter((m)=>/^NativeModule (http2|assert)$/.test(m))}))`;
  const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as Record<string, unknown>;
  expect(out).toEqual({ request: "function", dispatch: "function", methods: "function", modules: [] });
});

it("each request reaches its own URL when the URLs alternate (the last URL parsed is remembered, not reused for another)", async () => {
  const { createServer } = await import("node:http");
  const { request } = await import("../../lib/undici-request");
  const server = createServer((req, res) => res.end(req.url));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const seen: string[] = [];
    for (const path of ["/a?x=1", "/b", "/a?x=1", "/a?x=2"]) {
      const res = await request(`${base}${path}`, { method: "GET" });
      seen.push(await res.body.text());
    }
    expect(seen).toEqual(["/a?x=1", "/b", "/a?x=1", "/a?x=2"]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
