import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The package version, from the package's own package.json: the nearest one
 * above this file (dist/lib/ when built and installed, lib/ under ts-jest).
 * Read at run time, so the build does not copy package.json into dist/.
 */
function packageVersion(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "agent-user-kit" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // not here: look one directory up
    }
  }
  return "0.0.0-unknown";
}

export const PACKAGE_VERSION: string = packageVersion();
