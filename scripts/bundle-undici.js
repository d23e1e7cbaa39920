/* global __dirname */
/**
 * `npm run build` step: bundles the part of undici the kit calls (its
 * Dispatcher with the request API, and the global Agent) into one file,
 * dist/lib/undici-bundle.js, which lib/undici-request.ts loads at the first
 * request. One file instead of about 40 undici modules, and without
 * node:http2: the kit speaks HTTP/1.1 only (undici's default), and loading
 * node:http2 (with node:tls) was the largest single cost of `agent-user token`'s
 * start-up under Node 24 (`npm run bench`). undici already runs without it:
 * client-h2.js falls back to an empty module when requiring it throws.
 * undici calls node:assert only as `assert(condition)` for its own invariants;
 * loading node:assert creates process.stderr (to pick error colours), so the
 * bundle's `assert` loads the real one only when a condition fails.
 * Whitespace and syntax are minified (identifiers are not renamed, so stack
 * traces still name the functions): a third fewer bytes to read and scan at
 * the first request.
 * llhttp's WebAssembly ships in undici as base64 inside a JavaScript file;
 * the build writes the bytes themselves beside the bundle (llhttp_simd.wasm,
 * llhttp.wasm) and the bundle reads them at the first connection. Loading
 * the JavaScript (compile-cache check, the 72 KB literal, base64 decoding)
 * took 3.7 to 4.5 ms of that connection's critical path; reading the bytes
 * takes about 0.3 ms. Where the bytes are not beside the bundle (a program
 * bundled the kit with its own bundler), the stand-ins load undici's files.
 * The bundle is built from the exact undici version package.json pins.
 */
const { nodeBundle } = require("./node-bundle");
const { mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { dirname, join, relative, resolve, sep } = require("node:path");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, "dist", "lib", "undici-bundle.js");
const UNDICI_PACKAGE_JSON = require.resolve("undici/package.json", { paths: [ROOT] });
const UNDICI = dirname(UNDICI_PACKAGE_JSON);
const { version } = JSON.parse(readFileSync(UNDICI_PACKAGE_JSON, "utf8"));

// What undici's own index does for its Dispatcher (request, stream, pipeline, upgrade, connect), so a global
// dispatcher this bundle installs offers the same methods to anyone else in the process who calls them.
const ENTRY = `
const Dispatcher = require("undici/lib/dispatcher/dispatcher");
const api = require("undici/lib/api");
Object.assign(Dispatcher.prototype, api);
module.exports = { request: api.request, getGlobalDispatcher: require("undici/lib/global").getGlobalDispatcher };
`;

const withoutHttp2 = {
  name: "without-http2",
  setup(b) {
    b.onResolve({ filter: /^(node:)?http2$/ }, () => ({ path: "http2", namespace: "without-http2" }));
    b.onLoad({ filter: /.*/, namespace: "without-http2" }, () => ({ contents: 'throw new Error("node:http2 is left out of the kit\'s undici bundle");' }));
  },
};

// The fetch body code (HTTP/2 only) is loaded lazily by undici and large: it stays undici's own files,
// required from the package.
const LAZY_FILES = /[/\\]web[/\\].*$/;
const undiciFilesLeftOut = {
  name: "undici-files-left-out",
  setup(b) {
    b.onResolve({ filter: LAZY_FILES }, (args) => {
      const file = relative(UNDICI, resolve(args.resolveDir, args.path)).split(sep).join("/");
      return { path: `undici/${file}`, external: true };
    });
  },
};

// undici's llhttp-wasm.js and llhttp_simd-wasm.js export a Buffer of the module's bytes: the stand-ins read
// the same bytes from the .wasm files written beside the bundle.
const LLHTTP = { "llhttp-wasm.js": "llhttp.wasm", "llhttp_simd-wasm.js": "llhttp_simd.wasm" };
const llhttpAsBytes = {
  name: "llhttp-as-bytes",
  setup(b) {
    b.onResolve({ filter: /[/\\]llhttp[/\\]llhttp(_simd)?-wasm\.js$/ }, (args) => {
      const js = args.path.split(/[/\\]/).pop();
      // The stand-in's own require is undici's file, from the package: not the stand-in again.
      if (args.namespace === "llhttp-as-bytes") return { path: `undici/lib/llhttp/${js}`, external: true };
      return { path: js, namespace: "llhttp-as-bytes" };
    });
    // A program that bundles the kit with its own bundler has no .wasm beside its output: undici's file then.
    b.onLoad({ filter: /.*/, namespace: "llhttp-as-bytes" }, (args) => ({
      contents: `try { module.exports = require("node:fs").readFileSync(require("node:path").join(__dirname, ${JSON.stringify(LLHTTP[args.path])})); } catch { module.exports = require("../llhttp/${args.path}"); }`,
    }));
  },
};

// Every use of node:assert in the bundled files is a call `assert(condition)` (test/lib/undici-request.test.ts checks).
const lazyAssert = {
  name: "lazy-assert",
  setup(b) {
    // The stand-in's own require of node:assert is the real module, not the stand-in again.
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      args.namespace === "lazy-assert" ? { path: "node:assert", external: true } : { path: "assert", namespace: "lazy-assert" },
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-assert" }, () => ({
      contents: 'module.exports = function assert(value, message) { if (!value) require("node:assert")(value, message); };',
    }));
  },
};

mkdirSync(dirname(OUT), { recursive: true });
for (const [js, wasm] of Object.entries(LLHTTP)) writeFileSync(join(dirname(OUT), wasm), require(join(UNDICI, "lib", "llhttp", js)));

nodeBundle({
  stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: "undici-request-entry.js" },
  outfile: OUT,
  plugins: [withoutHttp2, lazyAssert, llhttpAsBytes, undiciFilesLeftOut],
  banner: { js: `/* undici ${version} (MIT License, Copyright (c) Matteo Collina and Undici contributors): its Dispatcher, request API and global Agent, bundled by scripts/bundle-undici.js */` },
});
