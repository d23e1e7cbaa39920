/* global __dirname */
/**
 * `npm run build` step: dist/probes/cli-bundle.js, which the `agent-user` bin
 * (probes/agent-user.ts) loads, is probes/cli.ts with the kit's own modules
 * bundled into one file. Loading some 25 small modules one by one (resolve,
 * read, compile each) was most of the kit's share of `agent-user token`'s
 * start-up under Node 24 (`npm run bench -- --startup`). The CLI process loads
 * this file alone, so it holds the one copy of every class it uses; the
 * library entries (dist/lib, dist/infra) stay separate files, which is what
 * programs import. Every package stays outside (`packages: "external"`):
 * `preflight` requires @pulumi/pulumi, an optional peer that must come from the
 * user's install, and inlining it would make the bundle some 16 MB to parse on
 * every command. undici's bundle (scripts/bundle-undici.js) and undici itself
 * are loaded at the first request, as before. Whitespace and syntax are
 * minified (identifiers are not renamed, so stack traces still name the
 * functions): a fifth fewer bytes to read, hash and scan on every start.
 */
const { build } = require("esbuild");
const { chmodSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = join(__dirname, "..");

const outside = {
  name: "outside",
  setup(b) {
    // lib/undici-request.ts's "./undici-bundle", seen from dist/probes/.
    b.onResolve({ filter: /^\.\/undici-bundle$/ }, () => ({ path: "../lib/undici-bundle.js", external: true }));
  },
};

build({
  entryPoints: [join(ROOT, "probes", "cli.ts")],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  outfile: join(ROOT, "dist", "probes", "cli-bundle.js"),
  minifyWhitespace: true,
  minifySyntax: true,
  packages: "external",
  plugins: [outside],
  logLevel: "warning",
}).then(
  () => {
    // tsc writes the bin (probes/agent-user.ts) without the executable bit its shebang is for.
    const bin = join(ROOT, "dist", "probes", "agent-user.js");
    try {
      chmodSync(bin, 0o755);
    } catch (err) {
      process.stderr.write(`bundle-cli: cannot make ${bin} executable (${err.code}); tsc should have written it first (npm run build)\n`);
      process.exit(1);
    }
  },
  () => process.exit(1),
);
