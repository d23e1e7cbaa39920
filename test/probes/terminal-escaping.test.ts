/**
 * Text from outside the kit (agent names from an outputs file, what Graph
 * and the identity provider answer, a manifest's entries) reaches a terminal
 * or a CI log with its control characters shown as escapes: a line break
 * cannot forge a row, ESC cannot clear the screen, CR cannot overwrite a line.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { printable, quoteValue } from "../../lib/printable";
import { TokenEndpointError } from "../../lib/token-client";
import { formatChecks, failed, ok } from "../../probes/checks";
import { formatDiff } from "../../probes/comments/shape";
import { reportFailure } from "../../probes/report";
import { NO_ENV, runCli, scratchDir } from "../harness";

const scratch = scratchDir();
afterAll(() => scratch.remove());

/** Any control character but the line feed that ends each line: what a terminal would obey. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Names as a hostile stack output could carry them. */
const HOSTILE = {
  forged: "evil\nforged  ok  151  2099-01-01T00:00:00Z",
  clear: "clear\x1b[2J\x1b[H",
  bell: "bell\x07",
  overwrite: "over\rwrite",
  nul: "nul\x00byte",
  c1: "c1\x9b31m",
  bidi: "bidi\u202etxt.exe",
};

it("printable shows each control character as its escape; quoteValue quotes a short escaped prefix", () => {
  expect(printable(HOSTILE.forged)).toBe("evil\\nforged  ok  151  2099-01-01T00:00:00Z");
  expect(printable(HOSTILE.clear)).toBe("clear\\x1b[2J\\x1b[H");
  expect(printable(HOSTILE.bell + HOSTILE.overwrite + HOSTILE.nul + HOSTILE.c1 + HOSTILE.bidi + "\t\x7f\u2028")).toBe(
    "bell\\x07over\\rwritenul\\x00bytec1\\x9b31mbidi\\u202etxt.exe\\t\\x7f\\u2028",
  );
  expect(printable("plain text, ünïcödé, emoji 🙂")).toBe("plain text, ünïcödé, emoji 🙂");
  expect(quoteValue("a\nb")).toBe('"a\\nb"');
  expect(quoteValue(42)).toBe("42");
  const long = quoteValue(`${"x".repeat(5 * 1024 * 1024)}`);
  expect(long).toBe(`"${"x".repeat(64)}…" (5242880 characters)`);
});

it("token --all: one row per agent however its name is made, every control character escaped on stdout and stderr", async () => {
  const agents = Object.fromEntries(
    Object.values(HOSTILE).map((name) => [name, { agentIdentityId: `not-a-guid ${name}`, agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d", agentUserPrincipalName: "a@contoso.onmicrosoft.com" }]),
  );
  const file = join(scratch.dir, "hostile-outputs.json");
  writeFileSync(file, JSON.stringify({ tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d", authorityUrl: "http://127.0.0.1:9", blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70", blueprintClientSecret: "s", agents }), { mode: 0o600 });
  const run = await runCli(["token", "--outputs", file, "--all"], NO_ENV);
  expect(run.code).toBe(2);
  expect(run.stdout).not.toMatch(CONTROL);
  expect(run.stderr).not.toMatch(CONTROL);
  const rows = run.stdout.trimEnd().split("\n");
  expect(rows).toHaveLength(1 + Object.keys(HOSTILE).length + 1);
  Object.values(HOSTILE).forEach((name, i) => {
    expect(rows[1 + i]!.startsWith(`${printable(name)} `)).toBe(true);
    expect(rows[1 + i]).toMatch(/\s+usage\s+\d+\s+-$/);
  });
  // Each agent's error is its own lines on stderr, the name and the quoted id escaped.
  expect(run.stderr.split("\n").filter((l) => l.includes(": error: "))).toHaveLength(Object.keys(HOSTILE).length);
  expect(run.stderr).toContain("evil\\nforged");
});

it("token --all --json: the exact names for a JSON reader, with nothing a terminal obeys on stdout", async () => {
  const agents = Object.fromEntries(
    Object.values(HOSTILE).map((name) => [name, { agentIdentityId: "not-a-guid", agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d", agentUserPrincipalName: "a@contoso.onmicrosoft.com" }]),
  );
  const file = join(scratch.dir, "hostile-outputs-json.json");
  writeFileSync(file, JSON.stringify({ tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d", authorityUrl: "http://127.0.0.1:9", blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70", blueprintClientSecret: "s", agents }), { mode: 0o600 });
  const run = await runCli(["token", "--outputs", file, "--all", "--json"], NO_ENV);
  expect(run.code).toBe(2);
  expect(run.stdout.slice(0, -1)).not.toMatch(CONTROL);
  expect(run.stdout).toContain("c1\\u009b31m");
  expect((JSON.parse(run.stdout) as { agents: Array<{ name: string }> }).agents.map((a) => a.name)).toEqual(Object.values(HOSTILE));
});

it("doctor's and preflight's report: ids, details, fixes and agent names from Graph and the file are escaped, one line per check", () => {
  const report = formatChecks([
    { ...ok("agent user", "id\x1b[2J", `found "${HOSTILE.forged}"`), agent: HOSTILE.clear },
    { ...failed("grant", undefined, `scope ${HOSTILE.bell}`, `fix ${HOSTILE.overwrite}`), agent: HOSTILE.clear },
  ]);
  expect(report).not.toMatch(CONTROL);
  expect(report.split("\n")).toEqual([
    "agent clear\\x1b[2J\\x1b[H",
    '  ok       agent user  id\\x1b[2J  found "evil\\nforged  ok  151  2099-01-01T00:00:00Z"',
    "  failed   grant       scope bell\\x07",
    "",
    "what to do:",
    "  clear\\x1b[2J\\x1b[H: grant: fix over\\rwrite",
    "",
  ]);
});

it("comments: a drift report's field names, which are Graph's keys, are escaped", () => {
  const text = formatDiff({ added: [{ kind: "comment", field: HOSTILE.forged, after: "string" }], removed: [], retyped: [], notCompared: [] });
  expect(text).not.toMatch(CONTROL);
  expect(text.trimEnd().split("\n")).toHaveLength(2);
});

it("manifest: server names and URLs from the file are escaped, one line per server", async () => {
  const file = join(scratch.dir, "ToolingManifest.json");
  writeFileSync(file, JSON.stringify({ mcpServers: [{ mcpServerName: "mcp_WordServer" }, { mcpServerName: `mcp_${HOSTILE.clear}`, url: `https://tools.contoso.com/${HOSTILE.bell}` }] }));
  const run = await runCli(["manifest", file], NO_ENV);
  expect(run.stdout).not.toMatch(CONTROL);
  expect(run.stderr).not.toMatch(CONTROL);
  expect(run.stdout).toContain("mcp_clear\\x1b[2J\\x1b[H");
});

it("an identity provider's error, code and trace id with ESC, BEL and line breaks is printed escaped", () => {
  const err = new TokenEndpointError(
    "hop 3 (agent user token)",
    400,
    { error: "invalid_grant\x1b[31m", error_description: `AADSTS50034: user \x1b]0;owned\x07 not found ${HOSTILE.overwrite}\r\nTrace ID: x`, error_codes: [50034], trace_id: "t\x1b[2J", correlation_id: "c\nforged" },
    { hop: 3 },
  );
  let stderr = "";
  reportFailure(err, { stdout: () => undefined, stderr: (t) => void (stderr += t), env: {}, cwd: "/" }, false);
  expect(stderr).not.toMatch(CONTROL);
  expect(stderr).toContain("user \\x1b]0;owned\\x07 not found over\\rwrite");
  expect(stderr).toContain("correlation id: c\\nforged");
});

it("a 5 MiB tenant id with control characters in an outputs file: the error quotes 64 escaped characters of it and its length", async () => {
  const tenant = `\x1b[2J${"t".repeat(5 * 1024 * 1024)}`;
  const file = join(scratch.dir, "huge-tenant.json");
  writeFileSync(file, JSON.stringify({ tenantId: tenant, authorityUrl: "http://127.0.0.1:9", blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70", blueprintClientSecret: "s", agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9", agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d" }), { mode: 0o600 });
  const run = await runCli(["token", "--outputs", file], NO_ENV);
  expect(run.code).toBe(2);
  expect(run.stderr).not.toMatch(CONTROL);
  expect(run.stderr).toContain(`got "\\x1b[2J${"t".repeat(60)}…" (${tenant.length} characters)`);
  expect(run.stderr.length).toBeLessThan(1000);
});
