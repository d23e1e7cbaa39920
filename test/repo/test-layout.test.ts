/**
 * Tests are found by the room they test: every test file sits under
 * test/lib, test/infra, test/probes or test/emulator, under test/e2e when it
 * runs a whole flow, or under test/repo when it holds a rule of the whole tree.
 */
import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const TEST = resolve(__dirname, "..");
const ROOMS = ["lib", "infra", "probes", "emulator", "e2e", "repo"];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(TEST, path)] : [];
  });
}

it("puts every test file under the folder of its room", () => {
  const files = testFiles(TEST);
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter((file) => !ROOMS.includes(file.split("/")[0]!))).toEqual([]);
});
