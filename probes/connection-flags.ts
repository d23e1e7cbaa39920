import { PUBLIC_CLOUD, TOKEN_EXCHANGE_AUDIENCE } from "../lib/entra-rules";
import { DEFAULT_TIMEOUT_MS } from "../lib/http";
import { CREDENTIAL_VARIABLES, OPTION_SOURCES, type SourcedInput } from "../lib/option-sources";

/*
 * The connection flags of the commands that mint a token, declared once: the
 * parser options and the connection part of each command's --help are derived
 * from them, settings.ts maps them onto the provider's options, and a test
 * holds docs/cli.md's table to them.
 */

/** The per-request timeout (--timeout) in seconds, unless given: the library's own default. */
export const DEFAULT_TIMEOUT_S = DEFAULT_TIMEOUT_MS / 1000;

/** One connection flag. */
export interface ConnectionOption {
  /** What the flag takes, as --help shows it: `--tenant ID`. */
  value: string;
  /** The input of the library the flag sets; its variable and outputs keys are the library's. */
  input?: SourcedInput;
  /** The AGENT_USER_* variable read when the flag is absent. */
  env?: string;
  /** The --outputs keys read when the flag and the variable are absent, first found wins. */
  outputs?: readonly string[];
  /** Only commands that read Graph take it (comments, doctor); minting a token reads none. */
  graph?: true;
  /** The --help text after the variable; a line break continues it on the next line. */
  help?: string;
}

/** The flag that sets library input `input`, with its variable and outputs keys. */
const sets = <I extends SourcedInput>(input: I) => ({ input, ...OPTION_SOURCES[input] });

/** Every connection flag, in --help's and docs/cli.md's order; each is read from its flag, else its variable, else its outputs key. */
export const CONNECTION_INPUTS = {
  outputs: { value: "FILE", help: "JSON of `pulumi stack output --json --show-secrets`" },
  agent: { value: "NAME", help: `the agent of a fleet's --outputs file (its "agents" map)` },
  tenant: { value: "ID", ...sets("tenantId"), help: "GUID or verified domain" },
  authority: { value: "URL", ...sets("authorityUrl"), help: `default ${PUBLIC_CLOUD.authorityUrl}` },
  "token-exchange-audience": {
    value: "URI",
    ...sets("tokenExchangeAudience"),
    help: `hop 1's audience; default the authority's cloud's,\n${TOKEN_EXCHANGE_AUDIENCE} outside the US Government and China clouds`,
  },
  "blueprint-app-id": { value: "ID", ...sets("blueprintAppId") },
  "blueprint-secret-file": { value: "FILE", env: CREDENTIAL_VARIABLES.secret, outputs: ["blueprintClientSecret"], help: "the value itself" },
  "blueprint-cert": { value: "FILE", env: CREDENTIAL_VARIABLES.certFile, help: "PEM certificate" },
  "blueprint-key": { value: "FILE", env: CREDENTIAL_VARIABLES.keyFile, help: "PEM private key" },
  "managed-identity-client-id": {
    value: "ID",
    env: CREDENTIAL_VARIABLES.miClientId,
    outputs: ["managedIdentityClientId"],
    help: `token from IMDS;\nIMDS base: ${CREDENTIAL_VARIABLES.imdsEndpoint}, default http://169.254.169.254`,
  },
  "managed-identity-token-file": { value: "FILE", env: CREDENTIAL_VARIABLES.miTokenFile },
  "agent-identity": { value: "ID", ...sets("agentIdentityId") },
  "agent-user": { value: "ID|UPN", ...sets("agentUser"), help: "object id or UPN" },
  resource: { value: "URL", ...sets("resource"), help: `default ${PUBLIC_CLOUD.resourceUrl}` },
  graph: { value: "URL", ...sets("graphUrl"), graph: true, help: `default ${PUBLIC_CLOUD.graphUrl}` },
  timeout: { value: "SECONDS", help: `per-request timeout (default ${DEFAULT_TIMEOUT_S})` },
  "consistency-window": { value: "SECONDS", help: "keep retrying AADSTS700016/65001/50034 this long after a fresh\n`pulumi up` (default 0: fail at once)" },
  "replication-window": { value: "SECONDS", help: "deprecated spelling of --consistency-window" },
} as const satisfies Record<string, ConnectionOption>;

// No prototype on any entry: a field an entry lacks (`env`, `outputs`, `graph`) reads as absent, never as
// something other code put on Object.prototype.
for (const input of Object.values(CONNECTION_INPUTS)) Object.setPrototypeOf(input, null);

export type ConnectionFlag = keyof typeof CONNECTION_INPUTS;

export type ConnectionFlags = { [K in ConnectionFlag]?: string };

const INPUTS = Object.entries(CONNECTION_INPUTS) as Array<[ConnectionFlag, ConnectionOption]>;

type GraphFlag = { [F in ConnectionFlag]: (typeof CONNECTION_INPUTS)[F] extends { graph: true } ? F : never }[ConnectionFlag];
type StringOptions<F extends string> = { readonly [K in F]: { readonly type: "string" } };

const stringOptions = (graph: boolean) => Object.fromEntries(INPUTS.filter(([, option]) => (option.graph ?? false) === graph).map(([flag]) => [flag, { type: "string" }]));

/** node:util parseArgs options shared by every command that mints a token. */
export const CONNECTION_OPTIONS = stringOptions(false) as StringOptions<Exclude<ConnectionFlag, GraphFlag>>;

/** Only for commands that read Graph (comments, doctor): minting a token reads none. */
export const GRAPH_OPTIONS = stringOptions(true) as StringOptions<GraphFlag>;

/** The --verbose flag of every command that reads Graph or mints a token. */
export const VERBOSE_OPTION = { verbose: { type: "boolean" } } as const;

/** The flags every command that mints a token takes: the connection flags, --verbose and --json. */
export const MINTING_OPTIONS = { ...CONNECTION_OPTIONS, ...VERBOSE_OPTION, json: { type: "boolean" } } as const;

/** The flags of a command that mints a token and reads Graph with it (comments, doctor). */
export const GRAPH_READING_OPTIONS = { ...MINTING_OPTIONS, ...GRAPH_OPTIONS } as const;

/** Where the text of every option starts, continuation lines included. */
const TEXT_COLUMN = 37;

function helpLine(flag: ConnectionFlag, { value, env, help }: ConnectionOption): string {
  const text = env && help ? `${env} (${help})` : (env ?? help ?? "");
  return `${`  --${flag} ${value}`.padEnd(TEXT_COLUMN - 1)} ${text.replace(/\n/g, `\n${" ".repeat(TEXT_COLUMN)}`)}`;
}

/** The --help section for the connection flags; `graph`: whether the command reads Graph and so takes --graph. */
export const connectionHelp = (graph: boolean): string =>
  [
    "Connection (flags, else environment, else --outputs FILE):",
    ...INPUTS.filter(([, option]) => graph || !option.graph).map(([flag, option]) => helpLine(flag, option)),
    "  http:// URLs are accepted only for loopback hosts.",
  ].join("\n");
