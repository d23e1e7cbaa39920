import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UsageError } from "./errors";

/** How a file is named in the error that refuses it, and the hint for an errno code. */
export interface FileLabel {
  /** "cannot write {name}: {code}", e.g. "--outputs /tmp/o.json". */
  name: string;
  hint(code: string): string;
}

function existingEntry(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined; // absent (the usual case), or unreachable: the write names why
  }
}

/**
 * Writes a file all or nothing: a temporary file beside it, flushed, then a
 * rename, so no reader ever sees half of it and an older file stays as it was
 * when the write fails (a full disk). Never over a directory or a device.
 * With `makeDirs`, missing directories are made, and made directories go
 * again when the write fails.
 */
export function writeFileWhole(path: string, content: string, options: { mode: number; label: FileLabel; makeDirs?: boolean }): void {
  const { mode, label } = options;
  const existing = existingEntry(path);
  if (existing?.isDirectory()) throw new UsageError(`cannot write ${label.name}: EISDIR`, label.hint("EISDIR"));
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) throw new UsageError(`cannot write ${label.name}: it exists and is not a regular file`, label.hint("EEXIST"));
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const firstMissing = options.makeDirs ? firstMissingDir(dirname(path)) : undefined;
  let fd: number | undefined;
  try {
    if (firstMissing) mkdirSync(dirname(path), { recursive: true });
    fd = openSync(temp, "wx", mode);
    writeSync(fd, content);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(firstMissing ?? temp, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code ?? "unwritable";
    throw new UsageError(`cannot write ${label.name}: ${code}`, label.hint(code));
  }
}

/** The outermost directory of `dir` that does not exist yet, or undefined when `dir` exists. */
function firstMissingDir(dir: string): string | undefined {
  let missing: string | undefined;
  for (let d = dir; !existingEntry(d); d = dirname(d)) {
    missing = d;
    if (dirname(d) === d) break;
  }
  return missing;
}

/**
 * Writes a file that holds a secret: mode 0600 whatever an older file's mode
 * was, all or nothing (writeFileWhole), and never through a symbolic link
 * (which could point the secret anywhere). `what` names the file in errors.
 */
export function writeSecretFile(path: string, content: string, what: string): void {
  if (existingEntry(path)?.isSymbolicLink()) throw new UsageError(`${what} ${path} is a symbolic link; a file holding a secret is never written through one`, "name a regular file");
  const hint = (code: string) => (code === "ENOENT" ? "its directory must exist" : "check the directory's permissions");
  writeFileWhole(path, content, { mode: 0o600, label: { name: `${what} ${path}`, hint } });
}
