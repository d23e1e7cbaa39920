import { PUBLIC_CLOUD, TOKEN_EXCHANGE_AUDIENCE } from "./entra-rules";
import { DEFAULT_TIMEOUT_MS } from "./http";
import type { StackOutputs } from "./stack-outputs";

/** The per-request timeout (--timeout) in seconds, unless given: the library's own default. */
export const DEFAULT_TIMEOUT_S = DEFAULT_TIMEOUT_MS / 1000;

/**
 * One connection input, declared once: the CLI's parser options and the
 * connection part of its --help are derived from it (probes/), so are the
 * variable and outputs key settings.ts reads, and a test holds docs/cli.md's
 * table to it.
 */
export interface ConnectionOption {
  /** What the flag takes, as --help shows it: `--tenant ID`. */
  value: string;
  /** The AGENT_USER_* variable read when the flag is absent. */
  env?: string;
  /** The --outputs keys read when the flag and the variable are absent, first found wins. */
  outputs?: ReadonlyArray<Exclude<keyof StackOutputs, "agents">>;
  /** Only commands that read Graph take it (comments, doctor); minting a token reads none. */
  graph?: true;
  /** The --help text after the variable; a line break continues it on the next line. */
  help?: string;
}

/** Every connection option, in --help's and docs/cli.md's order; each is read from its flag, else its variable, else its outputs key. */
export const CONNECTION_INPUTS = {
  outputs: { value: "FILE", help: "JSON of `pulumi stack output --json --show-secrets`" },
  agent: { value: "NAME", help: `the agent of a fleet's --outputs file (its "agents" map)` },
  tenant: { value: "ID", env: "AGENT_USER_TENANT_ID", outputs: ["tenantId"], help: "GUID or verified domain" },
  authority: { value: "URL", env: "AGENT_USER_AUTHORITY_URL", outputs: ["authorityUrl"], help: `default ${PUBLIC_CLOUD.authorityUrl}` },
  "token-exchange-audience": {
    value: "URI",
    env: "AGENT_USER_TOKEN_EXCHANGE_AUDIENCE",
    outputs: ["tokenExchangeAudience"],
    help: `hop 1's audience; default the authority's cloud's,\n${TOKEN_EXCHANGE_AUDIENCE} outside the US Government and China clouds`,
  },
  "blueprint-app-id": { value: "ID", env: "AGENT_USER_BLUEPRINT_APP_ID", outputs: ["blueprintAppId"] },
  "blueprint-secret-file": { value: "FILE", env: "AGENT_USER_BLUEPRINT_SECRET", outputs: ["blueprintClientSecret"], help: "the value itself" },
  "blueprint-cert": { value: "FILE", env: "AGENT_USER_BLUEPRINT_CERT", help: "PEM certificate" },
  "blueprint-key": { value: "FILE", env: "AGENT_USER_BLUEPRINT_KEY", help: "PEM private key" },
  "managed-identity-client-id": {
    value: "ID",
    env: "AGENT_USER_MANAGED_IDENTITY_CLIENT_ID",
    outputs: ["managedIdentityClientId"],
    help: "token from IMDS;\nIMDS base: AGENT_USER_IMDS_ENDPOINT, default http://169.254.169.254",
  },
  "managed-identity-token-file": { value: "FILE", env: "AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE" },
  "agent-identity": { value: "ID", env: "AGENT_USER_AGENT_IDENTITY_ID", outputs: ["agentIdentityId"] },
  "agent-user": { value: "ID|UPN", env: "AGENT_USER_AGENT_USER_ID", outputs: ["agentUserId", "agentUserPrincipalName"], help: "object id or UPN" },
  resource: { value: "URL", env: "AGENT_USER_RESOURCE_URL", outputs: ["resourceUrl"], help: `default ${PUBLIC_CLOUD.resourceUrl}` },
  graph: { value: "URL", env: "AGENT_USER_GRAPH_URL", outputs: ["graphUrl"], graph: true, help: `default ${PUBLIC_CLOUD.graphUrl}` },
  timeout: { value: "SECONDS", help: `per-request timeout (default ${DEFAULT_TIMEOUT_S})` },
  "consistency-window": { value: "SECONDS", help: "keep retrying AADSTS700016/65001/50034 this long after a fresh\n`pulumi up` (default 0: fail at once)" },
  "replication-window": { value: "SECONDS", help: "deprecated spelling of --consistency-window" },
} as const satisfies Record<string, ConnectionOption>;

// No prototype on any entry: a field an entry lacks (`env`, `outputs`, `graph`) reads as absent, never as
// something other code put on Object.prototype.
for (const input of Object.values(CONNECTION_INPUTS)) Object.setPrototypeOf(input, null);

export type ConnectionFlag = keyof typeof CONNECTION_INPUTS;

/** The flags whose value may also come from a variable and an outputs key (settings.ts resolves them alike). */
export type ResolvedFlag = { [F in ConnectionFlag]: (typeof CONNECTION_INPUTS)[F] extends { env: string; outputs: readonly string[] } ? F : never }[ConnectionFlag];

export type ConnectionFlags = { [K in ConnectionFlag]?: string };
