/**
 * The exit codes are a contract: every one the code uses is in docs/cli.md's
 * table and in `agent-user --help`, with the same number.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExitCode } from "../../lib/errors";
import { runCli } from "../harness";

const codes = [...new Set(Object.values(ExitCode))].sort((a, b) => a - b);

it("docs/cli.md's exit code table lists exactly ExitCode's codes, 70 for an internal error among them", () => {
  const page = readFileSync(join(__dirname, "..", "..", "docs", "cli.md"), "utf8");
  const table = page.slice(page.indexOf("\n## Exit codes\n"), page.indexOf("`token --all` exits with"));
  expect(table.length).toBeGreaterThan(0);
  const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
  expect(documented).toEqual(codes);
  expect(ExitCode.internal).toBe(70);
});

it("agent-user --help lists every exit code", async () => {
  const run = await runCli(["--help"]);
  const listed = [...run.stdout.slice(run.stdout.indexOf("Exit codes:")).matchAll(/(?:^|\s)(\d+) [a-z]/gm)].map((m) => Number(m[1]));
  expect([...new Set(listed)].sort((a, b) => a - b)).toEqual(codes);
});
