/**
 * TEST ONLY: the `pulumi-resource-azuread` executable for an engine test's
 * plugin cache (`pulumi plugin install resource azuread 6.9.1 --file <it>`):
 * a shell script that runs this Node.js on the stand-in's built entry,
 * dist/test/azuread-stand-in/main.js (`npm run build` writes it). Both paths
 * are absolute, so it runs from wherever the engine starts it.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The built entry: beside this file once compiled, under dist/ when this runs from source. */
export function standInEntry(): string {
  return __filename.endsWith(".ts") ? resolve(__dirname, "..", "..", "dist", "test", "azuread-stand-in", "main.js") : join(__dirname, "main.js");
}

/** A POSIX shell word for `value`, whatever it holds. */
const shellWord = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** Writes `dir/pulumi-resource-azuread`, executable, and returns its path. */
export function standInLauncher(dir: string): string {
  const entry = standInEntry();
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\`, which compiles the azuread stand-in`);
  const launcher = join(resolve(dir), "pulumi-resource-azuread");
  writeFileSync(launcher, `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(entry)} "$@"\n`);
  chmodSync(launcher, 0o755);
  return launcher;
}
