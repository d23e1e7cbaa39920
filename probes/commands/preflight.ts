import { jsonLine } from "../../lib/printable";
import { ExitCode } from "../../lib/errors";
import { UsageError } from "../../lib/errors";
import { PUBLIC_CLOUD } from "../../lib/entra-rules";
import { CONNECTION_INPUTS, DEFAULT_TIMEOUT_S, VERBOSE_OPTION } from "../connection-flags";
import { timeoutOf } from "../settings";
import { broken, formatChecks } from "../checks";
import type { CliIo, Command } from "../cli-io";
import { defineCommand } from "../command";
import { preflight } from "../preflight/checklist";
import { progressHooks } from "../progress";
import { provisionerAccessToken, provisionerGraph } from "../provisioner-graph";
import { CONFIG_FILE_OPTION, CONFIG_FLAGS, pulumiProject, readStackConfigFile, stackConfig } from "../stack-config";

const HELP = `agent-user preflight: check a stack's configuration against the tenant before \`pulumi up\`

Usage: agent-user preflight [--config-from-stack FILE] [--<key> VALUE ...] [options]

It reads, as the provisioner (the file's azuread: keys over ARM_TENANT_ID, ARM_CLIENT_ID and
one of ARM_CLIENT_SECRET, ARM_CLIENT_CERTIFICATE_PATH, ARM_OIDC_TOKEN, ARM_OIDC_TOKEN_FILE_PATH,
ARM_USE_OIDC with ARM_OIDC_REQUEST_URL/_TOKEN, as for \`pulumi up\`):
  - the provisioner's token holds the application permissions of docs/pulumi.md (each missing one
    is named with the calls that would fail), and neither Directory.ReadWrite.All nor
    Directory.AccessAsUser.All (Domain.Read.All and User.Read.All let it run the next checks)
  - the UPN domain is a verified domain of the tenant
  - each sponsor is an existing user
  - the resource API's service principal exists and publishes every requested scope
  - the blueprint display name and each agent user UPN are free, or held by this stack: its
    blueprint carries the stack's adoption tag and was created by the provisioner (one of
    another application's is a failure, naming its creator and owners, as \`pulumi up\` refuses it)
It only reads: it never sends a Graph write.

  --config-from-stack FILE  the JSON of \`pulumi config --json\` in the stack's directory (with
                            --show-secrets if the stack keeps azuread:clientSecret)
  --<key> VALUE             any agent-user-kit: key as a flag, over the file's value; lists
                            as JSON or comma-separated, e.g. --user-domain contoso.onmicrosoft.com
                            --blueprint-name "Research agent blueprint" --sponsors ID1,ID2
                            --scopes Chat.ReadWrite,User.Read
  --graph URL               ${CONNECTION_INPUTS.graph.env}, else the file's graphUrl (default ${PUBLIC_CLOUD.graphUrl})
  --authority URL           ${CONNECTION_INPUTS.authority.env}, else the file's authorityUrl
                            (default ${PUBLIC_CLOUD.authorityUrl})
  --stack NAME              the stack's name: a blueprint tagged by this stack counts as its own
                            (without it, any stack's tag of the project does)
  --project NAME            the Pulumi project's name (default: the name in the Pulumi.yaml of
                            the working directory or the nearest one above it; without either,
                            any project's tag counts)
  --timeout SECONDS         per-request timeout (default ${DEFAULT_TIMEOUT_S})
  --json                    one JSON object on stdout: {"ok", "links": [{"link", "status", "id", "detail", "fix"}]}
  --verbose                 show waits (429, 503) on stderr

Exit codes:
  0 every check passed (warnings allowed)
  2 bad input or configuration (the key is named), or no provisioner credential
  3 Graph or the identity provider refused the provisioner
  4 unreachable, timed out, or still 429/5xx after retries
  8 a check failed: \`pulumi up\` would fail or build the wrong thing

Examples:
  pulumi config --json > config.json && agent-user preflight --config-from-stack config.json --stack dev
  agent-user preflight --user-domain contoso.onmicrosoft.com --blueprint-name "Research agent blueprint" \\
    --agent-identity-name "Research agent" --agent-user-name research-agent --sponsors "$SPONSOR_ID"
`;

/** preflight's endpoint flags, each with its variable and the configuration key it sets (the deprecated flag is that key's name). */
const ENDPOINTS = [
  ["graph", "graph-url"],
  ["authority", "authority-url"],
] as const;

/**
 * --graph and --authority, else AGENT_USER_GRAPH_URL and AGENT_USER_AUTHORITY_URL,
 * as every other command reads them, over the file's graphUrl and authorityUrl.
 * --graph-url and --authority-url, named after the configuration keys, are deprecated
 * spellings: they are read too, with a line on stderr.
 */
function endpoints(values: Record<string, unknown>, io: CliIo): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [flag, old] of ENDPOINTS) {
    const given = values[flag] as string | undefined;
    const legacy = values[old] as string | undefined;
    if (given !== undefined && legacy !== undefined) throw new UsageError(`--${flag} and --${old} are the same setting`, `give --${flag} only`, "usage");
    if (legacy !== undefined) io.stderr(`agent-user preflight: --${old} is deprecated and goes in the next release; use --${flag}\n`);
    out[old] = given ?? legacy ?? (io.env[CONNECTION_INPUTS[flag].env] || undefined);
  }
  return out;
}

export const run: Command = defineCommand({
  name: "preflight",
  options: {
    ...CONFIG_FLAGS,
    ...VERBOSE_OPTION,
    ...CONFIG_FILE_OPTION,
    stack: { type: "string" },
    project: { type: "string" },
    graph: { type: "string" },
    authority: { type: "string" },
    timeout: { type: "string" },
    json: { type: "boolean" },
  },
  help: HELP,
  run: async ({ values }, io, json) => {
    const file = values["config-from-stack"] as string | undefined;
    const stackFile = file === undefined ? undefined : readStackConfigFile(file, io.cwd, io.env);
    const config = stackConfig(stackFile, { ...(values as Record<string, string | undefined>), ...endpoints(values, io) });
    const timeoutMs = timeoutOf(values.timeout as string | undefined);
    const where = { authorityUrl: config.authorityUrl, graphUrl: config.graphUrl, env: io.env, config: stackFile?.provisioner };
    const hooks = progressHooks(io, { verbose: values.verbose === true, json });
    const graph = provisionerGraph({ ...where, timeoutMs, hooks });
    const of = { project: pulumiProject(values.project as string | undefined, io.cwd), stack: values.stack as string | undefined };
    return preflight(graph, await provisionerAccessToken(where, hooks), config, of);
  },
  report: (checks, io, json) => {
    const bad = broken(checks, false);
    io.stdout(json ? jsonLine({ ok: !bad, links: checks }) : formatChecks(checks));
    return bad ? ExitCode.brokenLink : ExitCode.ok;
  },
});
