/* global __dirname */
/**
 * `npm run build` step: the files the `agent-user` bin (probes/agent-user.ts)
 * loads, in dist/probes/bundle/. cli.js is probes/cli.ts, the dispatcher;
 * each command is its own file, probes/commands/<name>.ts with the kit's
 * modules it uses bundled in, which cli.js requires only when that command
 * runs. Loading some 25 small modules one by one (resolve, read, compile
 * each) was most of the kit's share of `agent-user token`'s start-up under
 * Node 24 (`npm run bench -- --startup`); one bundle of every command (288
 * KB, the emulator and doctor included) then cost `agent-user token` about
 * 4 ms more to its first request than the dispatcher and its own command
 * (74 KB). A process runs one command, so the kit's modules a command
 * shares with the dispatcher (the exit codes, the process's io) are two
 * copies of stateless code; undici's request API is shared through
 * globalThis (lib/undici-request.ts). The library entries (dist/lib,
 * dist/infra) stay separate files, which is what programs import. Every
 * package stays outside (`packages: "external"`): `preflight` requires
 * @pulumi/pulumi, an optional peer that must come from the user's install,
 * and inlining it would make its bundle some 16 MB to parse. undici's bundle
 * (scripts/bundle-undici.js) is loaded at the first request. Whitespace and
 * syntax are minified (identifiers are not renamed, so stack traces still
 * name the functions, scripts/node-bundle.js): a fifth fewer bytes to read,
 * hash and scan on every start.
 */
const { nodeBundle } = require("./node-bundle");
const { chmodSync, readdirSync, rmSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = join(__dirname, "..");
const OUT = join(ROOT, "dist", "probes", "bundle");
const COMMANDS = readdirSync(join(ROOT, "probes", "commands"))
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.slice(0, -".ts".length));

const outside = {
  name: "outside",
  setup(b) {
    // lib/undici-request.ts's "./undici-bundle", seen from dist/probes/bundle/.
    b.onResolve({ filter: /^\.\/undici-bundle$/ }, () => ({ path: "../../lib/undici-bundle.js", external: true }));
    // The dispatcher's require of a command is that command's own bundle, beside it.
    b.onResolve({ filter: /^\.\/commands\/[\w-]+$/ }, (args) =>
      args.importer.endsWith(join("probes", "cli.ts")) ? { path: `./${args.path.slice("./commands/".length)}.js`, external: true } : undefined,
    );
  },
};

const bundle = (entry, name) => nodeBundle({ entryPoints: [entry], outfile: join(OUT, `${name}.js`), packages: "external", plugins: [outside] });

Promise.all([bundle(join(ROOT, "probes", "cli.ts"), "cli"), ...COMMANDS.map((name) => bundle(join(ROOT, "probes", "commands", `${name}.ts`), name))]).then(
  () => {
    // A command removed from probes/commands leaves no bundle behind.
    const kept = new Set(["cli.js", ...COMMANDS.map((name) => `${name}.js`)]);
    for (const file of readdirSync(OUT)) if (!kept.has(file)) rmSync(join(OUT, file), { force: true });
    // tsc writes the bin (probes/agent-user.ts) without the executable bit its shebang is for.
    const bin = join(ROOT, "dist", "probes", "agent-user.js");
    try {
      chmodSync(bin, 0o755);
    } catch (err) {
      process.stderr.write(`bundle-cli: cannot make ${bin} executable (${err.code}); tsc should have written it first (npm run build)\n`);
      process.exit(1);
    }
  },
);
