import { ExitCode, UsageError, type AgentUserError } from "../../lib/errors";
import type { CliIo, Command } from "../cli-io";
import { defineCommand } from "../command";
import type { AgentUserAccessToken } from "../../lib/token-provider";
import { cliHint, failureJson } from "../report";
import { printable, printableLines, jsonLine } from "../../lib/printable";
import { connectionHelp, MINTING_OPTIONS, type ConnectionFlags } from "../connection-flags";
import { providerFor, resolveAgentSettings, resolveFleetSettings } from "../settings";
import { announceSettings, liveLine, progressHooks, reportSources } from "../progress";
import { concurrencyOf, DEFAULT_CONCURRENCY, fleetExitCode, mintFleet, type FleetResult } from "../token-fleet";
import { declaredRoles, flowOf, FLOW_TOKENS, mintFlow, readUserAssertion, type CliFlow } from "../token-flow";

const HELP = `agent-user token: mint one of an agent's tokens through its hops and check its claims

Usage: agent-user token [options]
       agent-user token --as app [options]
       agent-user token --on-behalf-of FILE [options]
       agent-user token --outputs FILE --all [--as app | --on-behalf-of FILE] [--concurrency N] [options]

Which token (the agent user's by default):
  --as app              the agent identity's own app-only token (two hops: T1, then client
                        credentials as the agent identity); its roles are the identity's app role
                        assignments, and each app role the --outputs file declares for the agent on
                        the resource must be there (exit 5 names a missing one)
  --on-behalf-of FILE   a token for the person whose access token FILE holds (its audience is the
                        blueprint: the agent's exposed API), through the on-behalf-of flow as the
                        agent identity; a new token takes the person's current token

Output:
  --json                one JSON object on stdout
  --show-token          include the access token (otherwise it is redacted)
  --verbose             say where each input came from, and every wait (429, 503,
                        replication lag) on stderr; waits are shown on a terminal anyway

Fleet:
  --all                 mint for every agent of the --outputs file (its "agents" map; a file
                        without one is a one-agent fleet) and print a table: agent, ok or the
                        error code, ms, expiry. T1 (and T2) are requested once per agent identity.
                        On a terminal a progress line is shown on stderr (never with --json).
                        --json prints {"ok":…,"agents":[{"name","ok","exitCode","ms",…},…]}
  --concurrency N       with --all, mint for this many agents at a time (default ${DEFAULT_CONCURRENCY}, 1 to 1000)

Exit codes:
  0 token minted and its claims checked (with --all: for every agent)
  2 bad input or configuration (nothing was sent)
  3 the identity provider rejected a hop (the AADSTS code is shown)
  4 unreachable, timed out, or still 429/5xx after retries
  5 a token was minted but its claims are wrong (with --as app: a declared app role is missing)
  With --all and failures, the most severe failure's code, in this order: 2, 5, 3, 4.

${connectionHelp(false)}

Examples:
  pulumi stack output --json --show-secrets > outputs.json
  agent-user token --outputs outputs.json --agent research --json --consistency-window 120
  agent-user token --outputs outputs.json --all --as app --json
  agent-user token --outputs outputs.json --on-behalf-of user-token.txt
`;

/** The claims a person checks first, in this order. */
const SHOWN_CLAIMS = ["idtyp", "oid", "upn", "azp", "appid", "tid", "scp", "roles", "aud", "exp"] as const;

export function shownClaims(token: AgentUserAccessToken): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SHOWN_CLAIMS) if (token.claims[name] !== undefined) out[name] = token.claims[name];
  return out;
}

function minutes(seconds: number): string {
  return seconds >= 5400 ? `${(seconds / 3600).toFixed(1)} h` : `${Math.round(seconds / 60)} min`;
}

export function formatToken(token: AgentUserAccessToken, showToken: boolean): string {
  const lines = token.hops.map(
    (h) => `${h.step.padEnd(30)} ${h.cached ? "cached".padStart(8) : `${h.ms} ms`.padStart(8)}   expires in ${minutes(h.expiresIn)}`,
  );
  lines.push("claims:");
  for (const [name, value] of Object.entries(shownClaims(token))) {
    const text = name === "exp" && typeof value === "number" ? `${value} (${new Date(value * 1000).toISOString()})` : Array.isArray(value) ? value.join(" ") : String(value);
    lines.push(`  ${name.padEnd(6)} ${printable(text)}`);
  }
  lines.push(`token: ${showToken ? token.token : "[redacted; pass --show-token to print it]"}`);
  return `${lines.join("\n")}\n`;
}

/** What `token` minted: one agent's token, or with --all each agent's result. */
type Minted = { showToken: boolean; flow: CliFlow } & ({ token: AgentUserAccessToken } | { fleet: FleetResult[] });

export const run: Command = defineCommand({
  name: "token",
  options: {
    ...MINTING_OPTIONS,
    "show-token": { type: "boolean" },
    all: { type: "boolean" },
    concurrency: { type: "string" },
    as: { type: "string" },
    "on-behalf-of": { type: "string" },
  },
  help: HELP,
  run: async ({ values }, io, json): Promise<Minted> => {
    const showToken = values["show-token"] ?? false;
    const flow = flowOf(values);
    // Read before anything is sent: a bad file is exit 2 with nothing minted.
    const userAssertion = values["on-behalf-of"] === undefined ? undefined : readUserAssertion(values["on-behalf-of"], io.cwd);
    if (values.all) return { fleet: await mintAll(values, io, json, flow, userAssertion), showToken, flow };
    if (values.concurrency !== undefined) throw new UsageError("--concurrency applies to --all only", "mint for every agent of the --outputs file with --all --concurrency N");
    const { settings, outputs } = resolveAgentSettings(values, io.env, io.cwd, flow !== "user");
    const provider = providerFor(settings, announceSettings(io, settings, { verbose: values.verbose ?? false, json }));
    const roles = flow === "app" ? declaredRoles(outputs.appRoles, settings.resource, settings.graphUrl) : undefined;
    const token = await mintFlow(provider, flow, { agentIdentityId: settings.agentIdentityId, agentUser: settings.agentUser, roles, userAssertion });
    return { token, showToken, flow };
  },
  report: (minted, io, json) => ("fleet" in minted ? reportFleet(minted.fleet, minted.showToken, io, json) : reportToken(minted.token, minted.flow, minted.showToken, io, json)),
});

function reportToken(token: AgentUserAccessToken, flow: CliFlow, showToken: boolean, io: CliIo, json: boolean): number {
  if (json) {
    const hops = token.hops.map(({ hop, ms, expiresIn }) => ({ hop, ms, expiresIn }));
    io.stdout(jsonLine({ ok: true, ...(flow === "user" ? {} : { flow }), hops, claims: shownClaims(token), ...(showToken ? { token: token.token } : {}) }));
  } else {
    io.stdout(formatToken(token, showToken));
  }
  return ExitCode.ok;
}

/** The result column of a failed agent: its AADSTS or Graph code when it has one, else the error's kind. */
function failureCode(error: AgentUserError): string {
  const code = error.codes[0];
  return typeof code === "number" ? `AADSTS${code}` : (code ?? error.code);
}

const isoSeconds = (epochMs: number) => new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The --all table (agent, ok or the error code, ms, expiry) and a summary line. */
function formatFleet(results: readonly FleetResult[], showToken: boolean): string {
  // Names come from the outputs file and codes from the identity provider: escaped, so that each agent is one row.
  const rows = results.map((r) => [printable(r.name), r.ok ? "ok" : printable(failureCode(r.error)), String(r.ms), r.ok ? isoSeconds(r.token.expiresOnTimestamp) : "-"]);
  const table = [["agent", "result", "ms", "expires"], ...rows];
  // A reduce, not Math.max(...lengths): a spread passes every row as an argument, past the stack's size for a large fleet.
  const widths = [0, 1, 2].map((col) => table.reduce((widest, row) => Math.max(widest, row[col]!.length), 0));
  const lines = table.map(([name, result, ms, expires]) => `${name!.padEnd(widths[0]!)}  ${result!.padEnd(widths[1]!)}  ${ms!.padStart(widths[2]!)}  ${expires}`);
  const failed = results.filter((r) => !r.ok).length;
  lines.push(`${results.length} agent${results.length === 1 ? "" : "s"}: ${results.length - failed} ok, ${failed} failed`);
  if (showToken) for (const r of results) if (r.ok) lines.push(`token ${printable(r.name)}: ${r.token.token}`);
  return `${lines.join("\n")}\n`;
}

/** The --all JSON: one object, each agent's success or its failure fields as the single-agent --json prints them. */
function fleetJson(results: readonly FleetResult[], showToken: boolean): Record<string, unknown> {
  const agents = results.map((r) =>
    r.ok
      ? { name: r.name, ok: true, exitCode: ExitCode.ok, ms: r.ms, expiresOn: new Date(r.token.expiresOnTimestamp).toISOString(), claims: shownClaims(r.token), ...(showToken ? { token: r.token.token } : {}) }
      : { name: r.name, ...failureJson(r.error), exitCode: r.error.exitCode, ms: r.ms },
  );
  return { ok: results.every((r) => r.ok), agents };
}

type TokenFlags = ConnectionFlags & { json?: boolean; verbose?: boolean; "show-token"?: boolean; concurrency?: string };

/** `token --all`: every agent of the --outputs file through one provider, so T1 (and T2) are shared per agent identity. */
async function mintAll(values: TokenFlags, io: CliIo, json: boolean, flow: CliFlow, userAssertion: string | undefined): Promise<FleetResult[]> {
  const { settings, agents } = resolveFleetSettings(values, io.env, io.cwd);
  const concurrency = concurrencyOf(values.concurrency);
  const verbose = values.verbose ?? false;
  if (verbose && !json) reportSources(io, settings);
  const line = liveLine(io, json);
  // Waits (429, 503, replication lag) are printed above the live line, which is then drawn again.
  const provider = providerFor(settings, progressHooks(line ? { ...io, stderr: line.print } : io, { verbose, json }));
  let done = 0;
  let failed = 0;
  const show = () => line?.show(`minting ${FLOW_TOKENS[flow]}: ${done}/${agents.length} done${failed > 0 ? `, ${failed} failed` : ""}`);
  show();
  try {
    return await mintFleet(provider, agents, {
      concurrency,
      source: `--outputs ${values.outputs}`,
      mint: (p, agent) => mintFlow(p, flow, { ...agent, roles: flow === "app" ? declaredRoles(agent.appRoles, settings.resource, settings.graphUrl) : undefined, userAssertion }),
      onResult: (result) => {
        done++;
        if (!result.ok) failed++;
        show();
      },
    });
  } finally {
    line?.clear();
  }
}

function reportFleet(results: FleetResult[], showToken: boolean, io: CliIo, json: boolean): number {
  if (json) {
    io.stdout(jsonLine(fleetJson(results, showToken)));
  } else {
    io.stdout(formatFleet(results, showToken));
    for (const r of results) if (!r.ok) io.stderr(`${printable(r.name)}: error: ${printableLines(r.error.message)}\n${r.error.hint ? `  hint: ${printableLines(cliHint(r.error.hint))}\n` : ""}`);
  }
  return fleetExitCode(results.map((r) => (r.ok ? ExitCode.ok : r.error.exitCode)));
}
