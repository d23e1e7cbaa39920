import type { ParseArgsOptionsConfig } from "node:util";
import { ExitCode } from "../lib/errors";
import { parseCommandArgs, type CliIo, type CommandArgs, type Command } from "./cli-io";
import { reportFailure } from "./report";

/**
 * What a command is made of: its flags, its --help, what it does and how it
 * reports. The steps every command shares (parse, --help, run, report, the
 * exit code of a failure) are defineCommand's.
 */
export interface CommandSpec<O extends ParseArgsOptionsConfig, P extends boolean, R> {
  /** The command's name, as `agent-user NAME` and its usage errors name it. */
  name: string;
  /** node:util parseArgs options; --help and -h are added. */
  options: O;
  /** Whether the command takes positional arguments. */
  positionals?: P;
  /** The --help text, printed as is. */
  help: string;
  /** Refuses arguments that must be caught before parsing, which would otherwise call them unknown. */
  precheck?(argv: string[]): void;
  /** Resolves the settings and does the work; a usage or a kit error is thrown, and reported as a failure. */
  run(args: CommandArgs<O, P>, io: CliIo, json: boolean): Promise<R> | R;
  /** Prints the result and returns the exit code. */
  report(result: R, io: CliIo, json: boolean): number;
  /** A failure the command reports in its own way; undefined leaves it to the shared report. */
  failure?(err: unknown, io: CliIo, json: boolean): number | undefined;
}

/**
 * A command from its parts: parse the flags, print --help, run, report. Output
 * of a command that takes --json is JSON when --json is among the arguments,
 * so that even a flag the parser refuses is reported as JSON, and then when
 * the parsed --json says so.
 */
export function defineCommand<O extends ParseArgsOptionsConfig, R, P extends boolean = false>(spec: CommandSpec<O, P, R>): Command {
  return async (argv, io) => {
    let json = "json" in spec.options && argv.includes("--json");
    try {
      spec.precheck?.(argv);
      const args = parseCommandArgs(spec.name, argv, spec.options, { positionals: spec.positionals });
      const { help, json: asJson } = args.values as { help?: boolean; json?: boolean };
      if (help) {
        io.stdout(spec.help);
        return ExitCode.ok;
      }
      json = asJson === true;
      warnDeprecated(spec.name, args.values as Record<string, unknown>, io);
      return spec.report(await spec.run(args, io, json), io, json);
    } catch (err) {
      return spec.failure?.(err, io, json) ?? reportFailure(err, io, json);
    }
  };
}

/** Deprecated flag spellings, each with the flag that replaces it. */
const DEPRECATED_FLAGS: Readonly<Record<string, string>> = { "replication-window": "consistency-window" };

/** One line on stderr per deprecated spelling given alone (given with its replacement, settings refuse the pair). */
function warnDeprecated(command: string, values: Record<string, unknown>, io: CliIo): void {
  for (const [old, flag] of Object.entries(DEPRECATED_FLAGS)) {
    if (values[old] !== undefined && values[flag] === undefined) io.stderr(`agent-user ${command}: --${old} is deprecated and goes in the next release; use --${flag}\n`);
  }
}
