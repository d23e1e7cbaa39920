/**
 * The exit codes are a contract: every one the code uses is in the README's
 * table and in `agent-user --help`, with the same number.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExitCode } from "../lib/errors";
import { runCli } from "./token/helpers";

const codes = [...new Set(Object.values(ExitCode))].sort((a, b) => a - b);

it("the README's exit code table lists exactly ExitCode's codes, 70 for an internal error among them", () => {
  const readme = readFileSync(join(__dirname, "..", "README.md"), "utf8");
  const table = readme.slice(readme.indexOf("### Exit codes"), readme.indexOf("`token --all` exits with"));
  const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
  expect(documented).toEqual(codes);
  expect(ExitCode.internal).toBe(70);
});

it("agent-user --help lists every exit code", async () => {
  const run = await runCli(["--help"]);
  const listed = [...run.stdout.slice(run.stdout.indexOf("Exit codes:")).matchAll(/(?:^|\s)(\d+) [a-z]/gm)].map((m) => Number(m[1]));
  expect([...new Set(listed)].sort((a, b) => a - b)).toEqual(codes);
});
