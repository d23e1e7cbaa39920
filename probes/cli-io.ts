import { isatty } from "node:tty";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "../lib/errors";
import { didYouMean } from "./did-you-mean";

/** What a command may touch, so tests can run commands in-process over real HTTP. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stderr is a terminal, where progress lines are shown without --verbose. */
  stderrIsTTY?: boolean;
}

/** A subcommand: parses its own arguments and returns its exit code. */
export type Command = (argv: string[], io: CliIo) => Promise<number>;

/** This process's streams, and what became of the output written to them. */
export interface ProcessIo extends CliIo {
  /**
   * Why stdout refused what was written (a full disk, a pipe whose reader is
   * gone), or undefined. Checked before exiting: the stream's own
   * error event comes after the exit a command's last write is followed by.
   */
  outputError(): NodeJS.ErrnoException | undefined;
}

export function processIo(): ProcessIo {
  let failed: NodeJS.ErrnoException | undefined;
  const note = (err: Error | null | undefined) => {
    if (err) failed ??= err as NodeJS.ErrnoException;
  };
  let listening = false;
  return {
    stdout: (text) => {
      // Heard here, an asynchronous failure is kept for outputError(); unheard, the stream's error event would crash the process.
      if (!listening) process.stdout.on("error", note);
      listening = true;
      process.stdout.write(text, note);
      // A file's or a Linux pipe's write fails at once, and `errored` says so only until then: Node's stdio
      // streams undo their own destroy a tick later, so by the exit the stream no longer remembers the failure.
      note(process.stdout.errored);
    },
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    // isatty(2), not process.stderr.isTTY: creating the stream costs start-up time before anything is written.
    stderrIsTTY: isatty(2),
    outputError: () => failed,
  };
}

/** Every command takes --help (and -h), so that no command can forget it. */
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

type CommandArgs<O extends ParseArgsOptionsConfig, P extends boolean> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & typeof HELP_OPTION; strict: true; allowPositionals: P }>
>;

/**
 * node:util parseArgs in strict mode, with --help added to `options` and its
 * errors (unknown flag, missing value) turned into usage errors that name
 * the command's --help.
 */
export function parseCommandArgs<O extends ParseArgsOptionsConfig, P extends boolean = false>(command: string, args: string[], options: O, { positionals }: { positionals?: P } = {}): CommandArgs<O, P> {
  const all = { ...options, ...HELP_OPTION };
  try {
    return parseArgs({ args, options: all, strict: true, allowPositionals: positionals ?? false }) as CommandArgs<O, P>;
  } catch (err) {
    const e = err as Error & { code?: string };
    const help = `see "agent-user ${command} --help"`;
    const unknown = /Unknown option '([^']+)'/.exec(e.message)?.[1];
    if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
      const flags = Object.keys(all).map((name) => `--${name}`);
      const guess = didYouMean(unknown.replace(/=.*$/, ""), flags);
      throw new UsageError(`unknown flag ${unknown} for agent-user ${command}${guess ? `; did you mean ${guess}?` : ""}`, help, "usage");
    }
    throw new UsageError(e.message, help, "usage");
  }
}
