import { isatty } from "node:tty";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "../lib/errors";
import { didYouMean } from "../lib/did-you-mean";

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
  /**
   * Resolves once everything written to stdout and stderr has left the
   * process, or failed to. A pipe takes what its reader has room for and
   * Node keeps the rest; process.exit() drops what it keeps.
   */
  flushed(): Promise<void>;
}

export function processIo(): ProcessIo {
  let failed: NodeJS.ErrnoException | undefined;
  const note = (err: Error | null | undefined) => {
    if (err) failed ??= err as NodeJS.ErrnoException;
  };
  // Only a stream this process has written to needs flushing: creating process.stderr just to flush it costs start-up time.
  const used = new Set<NodeJS.WriteStream>();
  /** An empty write's callback comes after every write before it, whatever the stream is (file, pipe, terminal). */
  const flushOne = (stream: NodeJS.WriteStream) =>
    new Promise<void>((done) => {
      if (stream.writableLength === 0) return done();
      stream.write("", (err) => {
        if (stream === process.stdout) note(err);
        done();
      });
    });
  return {
    stdout: (text) => {
      // Heard here, an asynchronous failure is kept for outputError(); unheard, the stream's error event would crash the process.
      if (!used.has(process.stdout)) process.stdout.on("error", note);
      used.add(process.stdout);
      process.stdout.write(text, note);
      // A file's or a Linux pipe's write fails at once, and `errored` says so only until then: Node's stdio
      // streams undo their own destroy a tick later, so by the exit the stream no longer remembers the failure.
      note(process.stdout.errored);
    },
    stderr: (text) => {
      // A stderr that refuses cannot be told about; the exit code still is the command's (or 74 for stdout).
      if (!used.has(process.stderr)) process.stderr.on("error", () => undefined);
      used.add(process.stderr);
      process.stderr.write(text);
    },
    env: process.env,
    cwd: process.cwd(),
    // isatty(2), not process.stderr.isTTY: creating the stream costs start-up time before anything is written.
    stderrIsTTY: isatty(2),
    outputError: () => failed,
    flushed: async () => {
      await Promise.all([...used].map(flushOne));
    },
  };
}

/** Every command takes --help (and -h), so that no command can forget it. */
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

export type CommandArgs<O extends ParseArgsOptionsConfig, P extends boolean> = ReturnType<
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
