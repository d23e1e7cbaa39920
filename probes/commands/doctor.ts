import { quoteValue, jsonLine } from "../../lib/printable";
import { ExitCode, UsageError } from "../../lib/errors";
import { AGENT_FLAG, resolveAgentSettings, resolveFleetSettings, type ProbeSettings } from "../settings";
import { selectAgent, type StackOutputs } from "../../lib/stack-outputs";
import { broken, formatChecks, type Check } from "../checks";
import type { CliIo, Command } from "../cli-io";
import { defineCommand } from "../command";
import { connectionHelp, GRAPH_READING_OPTIONS } from "../connection-flags";
import { diagnose, readOnce } from "../doctor/chain";
import { progressHooks } from "../progress";
import { provisionerGraph } from "../provisioner-graph";
import { CONFIG_FILE_OPTION, readStackConfigFile } from "../stack-config";
import { checkFleetAgent } from "../token-fleet";

const HELP = `agent-user doctor: read the chain from Microsoft Graph and name the broken link

Usage: agent-user doctor [--outputs FILE] [--agent NAME | --all] [--config-from-stack FILE] [options]

It reads, as the provisioner (the azuread: keys of --config-from-stack over ARM_TENANT_ID,
ARM_CLIENT_ID and one of ARM_CLIENT_SECRET, ARM_CLIENT_CERTIFICATE_PATH, ARM_OIDC_TOKEN,
ARM_OIDC_TOKEN_FILE_PATH, ARM_USE_OIDC with ARM_OIDC_REQUEST_URL/_TOKEN, as for \`pulumi up\`),
each link in order: blueprint, blueprint credential, blueprint principal, agent identity,
agent user, grant; for a stack whose outputs declare them, app roles (the assignments the
agent's identity holds), exposed API (the blueprint's identifier URI and scope) and
on-behalf-of consent (the identity's delegated consent to act for people); then it runs the
three hops (and, with app roles, the app token's two) and lays a failure on the link that
explains it. It only reads: it never sends a Graph write.

  --all                 check every agent of a fleet's --outputs file
  --config-from-stack FILE
                        the JSON of \`pulumi config --json\`: the provisioner's azuread: keys
                        (--show-secrets if the stack keeps azuread:clientSecret)
  --warn-days N         warn about credentials that end within N days (default 30)
  --fail-on-warning     exit 8 on a warning too
  --json                one JSON object on stdout: {"ok", "links": [{"agent"?, "link", "status", "id", "detail", "fix"}]}
  --verbose             show waits (429, 503) on stderr

Exit codes:
  0 every link is ok (warnings allowed unless --fail-on-warning)
  2 bad input or configuration, e.g. no provisioner credential (nothing was sent)
  3 Graph or the identity provider refused the provisioner
  4 unreachable, timed out, or still 429/5xx after retries
  8 a link of the chain is broken (or a warning, with --fail-on-warning)

${connectionHelp(true)}

Examples:
  agent-user doctor --outputs outputs.json
  agent-user doctor --outputs outputs.json --all --json
  agent-user emulator --outputs outputs.json --env-out arm.env --faults break=grant-other-user &
  set -a; . ./arm.env; set +a; agent-user doctor --outputs outputs.json
`;

/** At most ten years: beyond that a window means nothing. */
function warnDays(value: string | undefined): number {
  if (value === undefined) return 30;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 3650) throw new UsageError(`--warn-days must be a whole number of days from 0 to 3650, got ${quoteValue(value)}`);
  return n;
}

/** One target per agent: the named one, every one (--all, each with its own ids from the file), or the only one. */
function targets(values: Record<string, string | boolean | undefined>, io: CliIo): Array<{ name?: string; outputs: Partial<StackOutputs>; settings: ProbeSettings }> {
  const flags = values as Record<string, string | undefined>;
  if (!values.all) return [resolveAgentSettings(flags, io.env, io.cwd)];
  const { settings, agents, outputs: all } = resolveFleetSettings(flags, io.env, io.cwd);
  const source = `--outputs ${flags.outputs}`;
  return agents.map(({ name, agentIdentityId, agentUser }) => {
    checkFleetAgent(name, agentIdentityId, agentUser, source);
    const agentSettings = { ...settings, agentIdentityId, agentUser };
    // Outputs without an agents map are one unnamed agent, as without --all.
    return all.agents === undefined ? { outputs: all, settings: agentSettings } : { name, outputs: selectAgent(all, name, source, AGENT_FLAG), settings: agentSettings };
  });
}

export const run: Command = defineCommand({
  name: "doctor",
  options: {
    ...GRAPH_READING_OPTIONS,
    ...CONFIG_FILE_OPTION,
    all: { type: "boolean" },
    "warn-days": { type: "string" },
    "fail-on-warning": { type: "boolean" },
  },
  help: HELP,
  run: async ({ values }, io, json) => {
    const hooks = progressHooks(io, { verbose: values.verbose ?? false, json });
    const options = { warnDays: warnDays(values["warn-days"]), now: Date.now(), hooks };
    const list = targets(values, io);
    const first = list[0]!.settings;
    const file = values["config-from-stack"];
    const config = file === undefined ? undefined : readStackConfigFile(file, io.cwd, io.env).provisioner;
    const graph = readOnce(provisionerGraph({ authorityUrl: first.authorityUrl, graphUrl: first.graphUrl, env: io.env, config, timeoutMs: first.timeoutMs, hooks }));
    const checks: Check[] = [];
    for (const target of list) {
      const found = await diagnose(graph, target, options);
      checks.push(...(target.name === undefined ? found : found.map((c) => ({ ...c, agent: target.name }))));
    }
    return { checks, bad: broken(checks, values["fail-on-warning"] ?? false) };
  },
  report: ({ checks, bad }, io, json) => {
    if (json) io.stdout(jsonLine({ ok: !bad, links: checks }));
    else io.stdout(formatChecks(checks));
    return bad ? ExitCode.brokenLink : ExitCode.ok;
  },
});
