/**
 * lib/undici-request.ts reaches past undici's index into its files, to skip
 * the ~80 ms of fetch, WebSocket and cache code the kit never calls: undici
 * must stay pinned to one exact version, and those files must still be there
 * and still export what is used.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UNDICI_FILES } from "../lib/undici-request";

const pkg = JSON.parse(readFileSync(join(__dirname, "../package.json"), "utf8")) as { dependencies: Record<string, string> };

it("undici is pinned to an exact version", () => {
  expect(pkg.dependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
  expect((JSON.parse(readFileSync(require.resolve("undici/package.json"), "utf8")) as { version: string }).version).toBe(pkg.dependencies.undici);
});

it("the files it loads exist and export the dispatcher, the request API and the global dispatcher", () => {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const [dispatcher, api, global] = UNDICI_FILES.map((file) => require(file) as Record<string, unknown>);
  /* eslint-enable @typescript-eslint/no-require-imports */
  expect(typeof dispatcher).toBe("function");
  expect(typeof (api as { request?: unknown }).request).toBe("function");
  expect(typeof (global as { getGlobalDispatcher?: unknown }).getGlobalDispatcher).toBe("function");
});
