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
