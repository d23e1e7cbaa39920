import { ExitCode } from "../lib/errors";
import { printableLines } from "../lib/printable";
import { loadRequest } from "../lib/undici-request";
import { processIo, type CliIo, type Command } from "./cli-io";
import { didYouMean } from "../lib/did-you-mean";

const USAGE = `agent-user: mint and probe Microsoft Entra agent user tokens

Usage:
  agent-user token [options]            mint an agent user token through the three hops (--as app: the
                                        agent identity's own; --on-behalf-of FILE: for a person; --all:
                                        for every agent of a fleet's --outputs file)
  agent-user manifest [PATH] [options]  check that the tool servers are registered in ToolingManifest.json
  agent-user comments <share_url> [options]
                                        capture a shared file's comments and replies verbatim
  agent-user emulator [options]         run the local tenant emulator until interrupted
  agent-user doctor [options]           read the provisioned chain from Graph and name the broken link
  agent-user preflight [options]        check a stack's configuration against the tenant before pulumi up

Run "agent-user <command> --help" (or "agent-user help <command>") for a command's options and examples;
"agent-user --version" prints the version.

Exit codes:
  0 success                              4 unreachable, timed out, or 5xx after retries
  1 a required tool server is missing    5 a token was minted but its claims are wrong
  2 usage or configuration error         6 shape drift against the baseline
  3 the identity provider or Graph       7 the comments endpoint answered 404
    rejected a request                   8 doctor, preflight: a link of the chain is broken
                                        70 internal error (a bug: please report it)
                                        74 the output could not be written
`;

// Each command is loaded only when used, so "--help" starts as fast as node itself.
/* eslint-disable @typescript-eslint/no-require-imports */
// `requests`: the command makes HTTP requests (see keepWasmOnBaselineCode); manifest reads a file, emulator serves.
// `serves`: it runs until stopped and its stdout is a banner, not a result: a terminal closed under it (SIGHUP)
// fails its last line, and that must not turn its clean stop into exit 74.
const COMMANDS: Record<string, { load: () => Command; requests: boolean; serves?: boolean }> = {
  token: { load: () => require("./commands/token").run, requests: true },
  manifest: { load: () => require("./commands/manifest").run, requests: false },
  comments: { load: () => require("./commands/comments").run, requests: true },
  emulator: { load: () => require("./commands/emulator").run, requests: false, serves: true },
  doctor: { load: () => require("./commands/doctor").run, requests: true },
  preflight: { load: () => require("./commands/preflight").run, requests: true },
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** A command by its name; only the table's own names ("constructor" is none of them). */
function commandNamed(name: string | undefined): (typeof COMMANDS)[string] | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(USAGE);
    return ExitCode.usage;
  }
  const helped = name === "help" ? commandNamed(rest[0]) : undefined;
  if (helped) return helped.load()(["--help"], io);
  if (name === "help" && rest[0] !== undefined && rest[0] !== "--help" && rest[0] !== "-h") {
    const guess = didYouMean(rest[0], Object.keys(COMMANDS));
    io.stderr(`agent-user: no command "${rest[0]}" to help with${guess ? `; did you mean "${guess}"?` : ""}\n\n${USAGE}`);
    return ExitCode.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(USAGE);
    return ExitCode.ok;
  }
  if (name === "--version" || name === "-v") {
    // Read only when asked: finding and parsing package.json would be start-up time for every command.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    io.stdout(`${(require("../lib/version") as typeof import("../lib/version")).PACKAGE_VERSION}\n`);
    return ExitCode.ok;
  }
  const command = commandNamed(name);
  if (!command) {
    const guess = didYouMean(name, Object.keys(COMMANDS));
    io.stderr(`agent-user: unknown command "${name}"${guess ? `; did you mean "${guess}"?` : ""}\n\n${USAGE}`);
    return ExitCode.usage;
  }
  return command.load()(rest, io);
}

/**
 * undici parses HTTP with llhttp's WebAssembly. After a few answers V8
 * recompiles it with its optimizing compiler: about 150 ms of CPU that a
 * command making a handful of requests never gets back, and that the process
 * waits for as it exits, a third to a half of `agent-user token`'s whole run
 * (`npm run bench`, and over https 327 -> 203 ms). The CLI owns its process,
 * so it keeps WebAssembly on V8's baseline code for its whole life (a long
 * `token --all` parses on that code too, microseconds per answer); the
 * library leaves its host's V8 alone. Node documents flags changed after
 * start as unsupported territory: this one only sets a budget V8 reads when
 * a module is instantiated, and a V8 that no longer knows it prints
 * "unrecognized flag" on stderr and runs as before (the tests, which expect
 * a silent stderr, run under Node 22 and 24). It is set before the first connection compiles llhttp,
 * and after undici and the command's bundle are loaded, as a changed flag
 * makes V8 refuse the compile cache of what is compiled after it. A failure here is left to main() and
 * the command, which load the same files again and report what went wrong.
 */
function keepWasmOnBaselineCode(loadCommand: () => Command): void {
  try {
    loadRequest();
    loadCommand();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require("node:v8") as typeof import("node:v8")).setFlagsFromString("--wasm-tiering-budget=2000000000");
  } catch {
    // The command meets the same failure where it can name it.
  }
}

/** The oldest Node.js the kit supports (package.json engines): the maintained LTS lines are 22 and 24. */
const MIN_NODE = [22, 0] as const;

/** A clear line, not a stack trace, for anyone on an older Node.js. */
function nodeTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
}

/**
 * Runs the CLI in this process and exits with the command's code: what the
 * `agent-user` bin (probes/agent-user.ts) calls once it has turned on the
 * compile cache.
 */
export function start(): void {
  const argv = process.argv.slice(2);
  if (nodeTooOld(process.versions.node)) {
    process.stderr.write(`agent-user: Node.js ${MIN_NODE.join(".")} or later is required (22 and 24 are the supported LTS lines); this is ${process.version}\n`);
    process.exit(ExitCode.usage);
  }
  const command = commandNamed(argv[0]);
  const helpOnly = argv.includes("--help") || argv.includes("-h");
  if (command?.requests && !helpOnly) keepWasmOnBaselineCode(command.load);
  const io = processIo();
  /** Exits once stdout and stderr have let go of everything written to them: process.exit() would drop what a pipe has not taken. */
  const exit = (code: number) => void io.flushed().then(() => process.exit(code));
  main(argv, io).then(
    async (code) => {
      // Flushed first: a pipe's reader that has gone is only known once what was written has been tried.
      await io.flushed();
      // A result that never reached its file or pipe is not a success, whatever the command thought; a failure keeps its own code.
      const failed = command?.serves && !helpOnly ? undefined : io.outputError();
      if (failed) io.stderr(`agent-user: cannot write the output: ${failed.code ?? failed.message}\n`);
      exit(failed && code === ExitCode.ok ? ExitCode.output : code);
    },
    (err: unknown) => {
      io.stderr(`agent-user: internal error: ${printableLines(err instanceof Error ? err.message : String(err))}\n`);
      exit(ExitCode.internal);
    },
  );
}
