import { printable, quoteValue, jsonLine } from "../../lib/printable";
import { ExitCode, UsageError } from "../../lib/errors";
import type { Command } from "../cli-io";
import { defineCommand } from "../command";
import { DEFAULT_TOOLING_DIR, MANIFEST_FILE_NAME } from "../manifest/locate";
import { ManifestError } from "../manifest/problems";
import { WORD_SERVER_NAME, formatManifestReport, inspectManifest } from "../manifest/report";
import { failureJson, type FailureJson } from "../report";

const USAGE = `agent-user manifest: check that tool servers are registered in ToolingManifest.json

Usage: agent-user manifest [PATH] [options]

Checks that tool servers are registered in the Agent 365 tooling manifest and
prints each one's url, permission model (V1 shared audience or V2 own
audience) and the token scope it needs.

Where the manifest is looked for, first match wins:
  1. PATH
  2. $AGENT_USER_TOOLING_MANIFEST
  3. ./${MANIFEST_FILE_NAME}
  4. <tooling dir>/${MANIFEST_FILE_NAME}
An explicit PATH or $AGENT_USER_TOOLING_MANIFEST is the only place looked at.

Options:
  --tooling-dir DIR  the tooling directory (default $AGENT_USER_TOOLING_DIR, else ${DEFAULT_TOOLING_DIR})
  --require NAME     also require this server (repeatable); ${WORD_SERVER_NAME} is always required
  --json             print one JSON object on stdout
  -h, --help         show this help

Exit codes: 0 every required server is registered, 1 one or more are not, 2 bad input.

Examples:
  agent-user manifest
  agent-user manifest .a365/ToolingManifest.json --require mcp_MailTools --json
  AGENT_USER_TOOLING_DIR=config agent-user manifest --require mcp_CalendarTools
`;

function nonEmpty(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === "") throw new UsageError(`${name} must not be empty`);
  return value;
}

/** The shared failure object, plus the facts a script needs to point at the bad spot. */
function manifestFailureJson(err: ManifestError): FailureJson & Pick<ManifestError, "problems" | "tried"> {
  return { ...failureJson(err), problems: err.problems, tried: err.tried };
}

export const run: Command = defineCommand({
  name: "manifest",
  options: {
    "tooling-dir": { type: "string" },
    require: { type: "string", multiple: true },
    json: { type: "boolean" },
  },
  positionals: true,
  help: USAGE,
  run: ({ values, positionals }, io) => {
    if (positionals.length > 1) {
      throw new UsageError(`expected at most one PATH, got ${positionals.length}: ${positionals.map((p) => quoteValue(p)).join(" ")}`);
    }
    const required = values.require ?? [];
    required.forEach((name) => nonEmpty("--require", name));
    const path = nonEmpty("PATH", positionals[0]);
    const toolingDir = nonEmpty("--tooling-dir", values["tooling-dir"]);
    return inspectManifest({ cwd: io.cwd, env: io.env, path, toolingDir, require: required });
  },
  report: (report, io, json) => {
    io.stdout(json ? jsonLine(report) : formatManifestReport(report));
    if (report.ok) return ExitCode.ok;
    if (!json) io.stderr(`error: not registered in ${printable(report.file)}: ${printable(report.missing.join(", "))}\n`);
    return ExitCode.notRegistered;
  },
  failure: (err, io, json) => {
    if (!json || !(err instanceof ManifestError)) return undefined;
    io.stdout(jsonLine(manifestFailureJson(err)));
    return err.exitCode;
  },
});
