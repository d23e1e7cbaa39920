import { cliHint } from "../report";
import { resolve } from "node:path";
import { printable, printableLines, jsonLine } from "../../lib/printable";
import { ExitCode, UsageError } from "../../lib/errors";
import { redactJwts } from "../../lib/redact";
import { readUserFile } from "../../lib/user-files";
import type { Command } from "../cli-io";
import { defineCommand } from "../command";
import { captureSharedFile, type CaptureReport } from "../comments/capture";
import { defaultCaptureDir } from "../comments/capture-dir";
import { formatDiff, parseShape, type RecordedShape } from "../comments/shape";
import { validateShareUrl } from "../comments/share-id";
import { resolveSettings } from "../settings";
import { connectionHelp, GRAPH_READING_OPTIONS } from "../connection-flags";
import { announceSettings } from "../progress";

const HELP = `agent-user comments: capture what Graph answers for a shared file's comments, verbatim

Usage: agent-user comments <share_url> [options]

  <share_url>           the file's sharing link (absolute, https)

Capture:
  --out DIR             where to write the capture (default captures/<UTC time>-<random>);
                        it must not exist, and appears only once the capture is complete
  --all-replies         fetch the replies of every comment (default: of the first only)
  --baseline FILE       compare the fields seen with an earlier capture's shape.json
  --json                one JSON object on stdout
  --verbose             say where each input came from, and every wait, on stderr

The capture holds each answer as its own file (status, request-id, client-request-id,
Date, and the body as received), capture.json (every request: URL, status, duration)
and shape.json (field names and JSON types of the drive item, comments and replies).
Directories are 0700 and files 0600. No token is ever written: the agent user token
never, and token-shaped strings in a body (a download URL's tempauth) are replaced
with "[redacted token]", which capture.json counts.

An answer from Graph, error or not, is evidence: the capture is kept and the exit code
says what it was. A run with nothing to record (no token, no connection) leaves no capture.

Exit codes:
  0 captured
  2 bad input (share URL, --out, --baseline, configuration)
  3 the identity provider or Graph rejected a request (e.g. 403 without a files scope)
  4 unreachable, or still 429/5xx after retries
  5 a token was minted but its claims are wrong
  6 shape drift against the baseline, or an answer without the fields the walk needs
  7 the comments endpoint answered 404 itemNotFound for this item

${connectionHelp(true)}

Examples:
  agent-user comments "https://contoso.sharepoint.com/:x:/s/agents/EQuarterlyPlanShareLink" --outputs outputs.json
  agent-user comments "$SHARE_URL" --outputs outputs.json --all-replies --out captures/plan
  agent-user comments "$SHARE_URL" --outputs outputs.json --baseline captures/plan/shape.json --json
`;

function readBaseline(path: string, cwd: string): RecordedShape {
  return parseShape(readUserFile(path, resolve(cwd, path), { hint: "give the shape.json of an earlier capture", step: "--baseline" }), path);
}

function formatReport(report: CaptureReport): string {
  const lines = [report.summary, "", "responses:"];
  for (const r of report.requests) {
    const status = r.status === null ? (r.error ?? "no answer") : String(r.status);
    lines.push(`  ${status.padEnd(7)} ${r.ms === null ? "" : `${r.ms} ms`.padStart(8)}  ${r.what}${r.final ? "" : " (retried)"}${r.file ? `  -> ${r.file}` : ""}`);
  }
  // Statuses, errors and paths name what Graph answered: each line escaped.
  const own = lines.map(printable);
  if (report.drift) own.push("", formatDiff(report.drift).trimEnd());
  return `${own.join("\n")}\n`;
}

function reportJson(report: CaptureReport): string {
  const { exitCode, dir, item, comments, commentPages, repliedComments, replies, drift, problem, summary } = report;
  const responses = report.requests.filter((r) => r.file).length;
  return jsonLine({ ok: exitCode === ExitCode.ok, exitCode, dir, item: item ?? null, comments, commentPages, repliedComments, replies, responses, drift: drift ?? null, problem: problem ?? null, summary });
}

export const run: Command = defineCommand({
  name: "comments",
  options: {
    ...GRAPH_READING_OPTIONS,
    out: { type: "string" },
    "all-replies": { type: "boolean" },
    baseline: { type: "string" },
  },
  positionals: true,
  help: HELP,
  run: async ({ values, positionals }, io, json) => {
    if (positionals.length > 1) throw new UsageError(`expected one <share_url>, got ${positionals.length}`, 'see "agent-user comments --help"');
    // Every input is checked before the first request.
    const shareUrl = validateShareUrl(positionals[0]);
    const baseline = values.baseline === undefined ? undefined : readBaseline(values.baseline, io.cwd);
    const settings = resolveSettings(values, io.env, io.cwd);
    return captureSharedFile(settings, shareUrl, {
      hooks: announceSettings(io, settings, { verbose: values.verbose ?? false, json }),
      outDir: resolve(io.cwd, values.out ?? defaultCaptureDir()),
      allReplies: values["all-replies"] ?? false,
      baseline,
    });
  },
  report: (report, io, json) => {
    if (json) {
      io.stdout(redactJwts(reportJson(report)));
    } else {
      io.stdout(redactJwts(formatReport(report)));
      if (report.problem) io.stderr(`error: ${printableLines(report.problem.message)}\nhint: ${printableLines(cliHint(report.problem.hint))}\n`);
      else if (report.exitCode === ExitCode.shapeDrift) io.stderr("error: shape drift against the baseline (listed above)\n");
    }
    return report.exitCode;
  },
});
