import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../lib/errors";

/** What a command may touch, so tests can run commands in-process over real HTTP. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A subcommand: parses its own arguments and returns its exit code. */
export type Command = (argv: string[], io: CliIo) => Promise<number>;

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * node:util parseArgs, with its errors (unknown flag, missing value) turned
 * into usage errors that name the command's --help.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message, `see "agent-user ${command} --help"`);
  }
}
