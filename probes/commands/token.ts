import { ExitCode } from "../../lib/errors";
import { parseCommandArgs, type CliIo, type Command } from "../cli-io";
import { HOP_STEPS } from "../../lib/hop-chain";
import { providerFor, type AgentUserAccessToken } from "../../lib/token-provider";
import { reportFailure } from "../report";
import { CONNECTION_OPTIONS, resolveSettings } from "../../lib/settings";
import { connectionHelp } from "../connection-help";
import { progressHooks, reportSources, VERBOSE_OPTION } from "../progress";

const HELP = `agent-user token: mint an agent user token through the three hops and check its claims

Usage: agent-user token [options]

Output:
  --json                one JSON object on stdout
  --show-token          include the access token (otherwise it is redacted)
  --verbose             say where each input came from, and every wait (429, 503,
                        replication lag) on stderr; waits are shown on a terminal anyway

Exit codes:
  0 token minted and its claims checked
  2 bad input or configuration (nothing was sent)
  3 the identity provider rejected a hop (the AADSTS code is shown)
  4 unreachable, timed out, or still 429/5xx after retries
  5 a token was minted but its claims are wrong

${connectionHelp(false)}

Examples:
  pulumi stack output --json --show-secrets > outputs.json
  agent-user token --outputs outputs.json
  agent-user token --outputs outputs.json --agent research --json --replication-window 120
  AGENT_USER_TENANT_ID=contoso.onmicrosoft.com AGENT_USER_BLUEPRINT_APP_ID=… agent-user token --agent-identity … --agent-user agent@contoso.onmicrosoft.com
`;

/** The claims a person checks first, in this order. */
const SHOWN_CLAIMS = ["idtyp", "oid", "upn", "azp", "appid", "tid", "scp", "aud", "exp"] as const;

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
    (h) => `${HOP_STEPS[h.hop].padEnd(30)} ${h.cached ? "cached".padStart(8) : `${h.ms} ms`.padStart(8)}   expires in ${minutes(h.expiresIn)}`,
  );
  lines.push("claims:");
  for (const [name, value] of Object.entries(shownClaims(token))) {
    const text = name === "exp" && typeof value === "number" ? `${value} (${new Date(value * 1000).toISOString()})` : String(value);
    lines.push(`  ${name.padEnd(6)} ${text}`);
  }
  lines.push(`token: ${showToken ? token.token : "[redacted; pass --show-token to print it]"}`);
  return `${lines.join("\n")}\n`;
}

export const run: Command = async (argv: string[], io: CliIo): Promise<number> => {
  let json = argv.includes("--json");
  try {
    const { values } = parseCommandArgs("token", {
      args: argv,
      options: { ...CONNECTION_OPTIONS, ...VERBOSE_OPTION, json: { type: "boolean" }, "show-token": { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      io.stdout(HELP);
      return ExitCode.ok;
    }
    json = values.json ?? false;
    const settings = resolveSettings(values, io.env, io.cwd);
    const verbose = values.verbose ?? false;
    if (verbose && !json) reportSources(io, settings);
    const token = await providerFor(settings, progressHooks(io, { verbose, json })).getToken();
    const showToken = values["show-token"] ?? false;
    if (json) {
      const hops = token.hops.map(({ hop, ms, expiresIn }) => ({ hop, ms, expiresIn }));
      io.stdout(`${JSON.stringify({ ok: true, hops, claims: shownClaims(token), ...(showToken ? { token: token.token } : {}) })}\n`);
    } else {
      io.stdout(formatToken(token, showToken));
    }
    return ExitCode.ok;
  } catch (err) {
    return reportFailure(err, io, json);
  }
};
