/** The connection flags of the commands that mint a token, as parser options and --help, both from lib/connection-options.ts. */
import { CONNECTION_INPUTS, type ConnectionFlag, type ConnectionOption } from "../lib/connection-options";

const INPUTS = Object.entries(CONNECTION_INPUTS) as Array<[ConnectionFlag, ConnectionOption]>;

type GraphFlag = { [F in ConnectionFlag]: (typeof CONNECTION_INPUTS)[F] extends { graph: true } ? F : never }[ConnectionFlag];
type StringOptions<F extends string> = { readonly [K in F]: { readonly type: "string" } };

const stringOptions = (graph: boolean) => Object.fromEntries(INPUTS.filter(([, option]) => (option.graph ?? false) === graph).map(([flag]) => [flag, { type: "string" }]));

/** node:util parseArgs options shared by every command that mints a token. */
export const CONNECTION_OPTIONS = stringOptions(false) as StringOptions<Exclude<ConnectionFlag, GraphFlag>>;

/** Only for commands that read Graph (comments, doctor): minting a token reads none. */
export const GRAPH_OPTIONS = stringOptions(true) as StringOptions<GraphFlag>;

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
