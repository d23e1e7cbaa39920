/**
 * The connection flags are declared once (probes/connection-flags.ts); the
 * table of `agent-user token`'s inputs in docs/cli.md and each command's --help
 * must say the same: a new option without its row, a row left after an
 * option went, or a variable or outputs key spelled apart fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CONNECTION_INPUTS, type ConnectionOption } from "../../../probes/connection-flags";
import { runCli } from "../../harness";

const PAGE = readFileSync(join(__dirname, "../../../docs/cli.md"), "utf8");
const DECLARED = Object.entries(CONNECTION_INPUTS) as Array<[string, ConnectionOption]>;

interface Row {
  flag: string;
  env: string[];
  outputs: string[];
}

/** The table under the heading of `agent-user token`: one row per flag, its cells' `code` spans. */
function readmeRows(): Row[] {
  const lines = PAGE.slice(PAGE.indexOf("\n## `agent-user token`\n")).split("\n");
  const header = lines.findIndex((line) => line.startsWith("| flag | environment | `--outputs` key |"));
  expect(header).toBeGreaterThan(0);
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const [flags, env, outputs] = line
      .split("|")
      .slice(1, 4)
      .map((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(flags).toHaveLength(1);
    rows.push({ flag: flags![0]!, env: env!, outputs: outputs! });
  }
  return rows;
}

describe("docs/cli.md's table of connection inputs", () => {
  const rows = readmeRows();
  const declared = DECLARED.map(([flag, option]) => ({ flag: `--${flag}`, env: option.env ? [option.env] : [], outputs: [...(option.outputs ?? [])] }));

  it("has one row per declared option, in the same order, with its variable and outputs keys", () => {
    const names = new Set(declared.map((d) => d.flag));
    expect(rows.filter((row) => names.has(row.flag))).toEqual(declared);
  });

  it("lists no other flag than agent-user token's own", async () => {
    const help = (await runCli(["token", "--help"])).stdout;
    const others = rows.filter((row) => !(row.flag.slice(2) in CONNECTION_INPUTS));
    expect(others.map((row) => row.flag)).toEqual(["--all", "--concurrency"]);
    for (const row of others) {
      expect(help).toMatch(new RegExp(`^ +${row.flag} `, "m"));
      expect(row).toEqual({ flag: row.flag, env: [], outputs: [] });
    }
  });
});

describe("connection options in --help", () => {
  it.each([
    ["token", false],
    ["comments", true],
    ["doctor", true],
  ])("agent-user %s --help shows each option it takes with what it takes and its variable", async (command, graph) => {
    const help = (await runCli([command, "--help"])).stdout;
    for (const [flag, option] of DECLARED) {
      const line = new RegExp(`^  --${flag} ${option.value.replace("|", "\\|")} +${option.env ?? ""}`, "m");
      if (option.graph && !graph) expect(help).not.toContain(`--${flag} `);
      else expect(help).toMatch(line);
    }
  });
});

