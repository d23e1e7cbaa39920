#!/usr/bin/env node
/**
 * The `agent-user` bin. Node caches compiled code on disk only for the
 * modules loaded after module.enableCompileCache() (Node 22.1+), so this file
 * turns the cache on (in this user's private directory: probes/compile-cache.ts)
 * and only then loads the CLI: probes/cli.ts, bundled
 * into dist/probes/bundle/cli.js by scripts/bundle-cli.js, which loads the
 * bundle of the command it runs. Compiling the CLI's code on every run was
 * the largest part of the kit's own start-up (`npm run bench -- --startup`).
 */
import { enablePrivateCompileCache } from "./compile-cache";

enablePrivateCompileCache();
// A require of the bundle, after the line above: an import would load probes/cli.ts as tsc compiled it
// (some 25 files, the start-up the bundle exists to save), and imports read as running before other code.
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require("./bundle/cli.js") as typeof import("./cli")).start();
