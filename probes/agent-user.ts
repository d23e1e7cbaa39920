#!/usr/bin/env node
/**
 * The `agent-user` bin. Node caches compiled code on disk only for the
 * modules loaded after module.enableCompileCache() (Node 22.1+), so this file
 * turns the cache on and only then loads the CLI: probes/cli.ts with the
 * kit's own modules, bundled into dist/probes/cli-bundle.js by
 * scripts/bundle-cli.js. Compiling that bundle on every run was the largest
 * part of the kit's own start-up (`npm run bench -- --startup`).
 */
import { enableCompileCache } from "node:module";

enableCompileCache?.();
// A require, not an import: TypeScript would hoist an import above the line that turns the cache on.
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require("./cli-bundle.js") as typeof import("./cli")).start();
