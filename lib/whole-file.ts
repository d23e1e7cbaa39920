import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { UsageError } from "./errors";
import { kindOf } from "./user-files";

/** How a file is named in the error that refuses it, and the hint for an errno code. */
export interface FileLabel {
  /** "cannot write {name}: {code}", e.g. "--outputs /tmp/o.json". */
  name: string;
  hint(code: string): string;
}

function existingEntry(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined; // absent (the usual case), or unreachable: the write names why
  }
}

/**
 * Refuses a place to write where something other than a regular file stands
 * (a directory, a device, a FIFO, a socket), looked at without following a
 * link, so that nothing there is removed or written over. Absent, a regular
 * file or a symbolic link passes: what to do with a link is the writer's choice.
 */
export function refuseNonRegular(path: string, label: FileLabel): void {
  const existing = existingEntry(path);
  if (existing?.isDirectory()) throw new UsageError(`cannot write ${label.name}: EISDIR`, label.hint("EISDIR"));
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) {
    throw new UsageError(`cannot write ${label.name}: it is ${kindOf(existing)}, not a regular file (ENOTREG)`, label.hint("ENOTREG"));
  }
}

/**
 * Writes a file all or nothing: a temporary file beside it, flushed, then a
 * rename, so no reader ever sees half of it and an older file stays as it was
 * when the write fails (a full disk). Never over a directory or a device.
 * With `makeDirs`, missing directories are made, and the ones this call made
 * go again when the write fails (never one that was already there).
 */
export function writeFileWhole(path: string, content: string, options: { mode: number; label: FileLabel; makeDirs?: boolean }): void {
  const { mode, label } = options;
  refuseNonRegular(path, label);
  // A short name of its own: any name the file itself may have must not be too long for its temporary file.
  const temp = join(dirname(path), `.agent-user-${randomBytes(6).toString("hex")}.tmp`);
  let made: string | undefined;
  let fd: number | undefined;
  try {
    // The first directory mkdir made, or undefined: what a failure below removes.
    if (options.makeDirs) made = mkdirSync(dirname(path), { recursive: true });
    fd = openSync(temp, "wx", mode);
    writeSync(fd, content);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      rmSync(made ?? temp, { recursive: true, force: true });
    } catch {
      // Nothing of it to remove where its directory cannot be reached: the error below says why.
    }
    const code = (err as NodeJS.ErrnoException).code ?? "unwritable";
    throw new UsageError(`cannot write ${label.name}: ${code}`, label.hint(code));
  }
}

/** Refuses a secret file's place when it is a symbolic link, which could point the secret anywhere; `what` names the file. */
export function refuseSymbolicLink(path: string, what: string): void {
  if (existingEntry(path)?.isSymbolicLink()) throw new UsageError(`${what} ${path} is a symbolic link; a file holding a secret is never written through one`, "name a regular file");
}

/**
 * Writes a file that holds a secret: mode 0600 whatever an older file's mode
 * was, all or nothing (writeFileWhole), and never through a symbolic link
 * (which could point the secret anywhere). `what` names the file in errors.
 */
export function writeSecretFile(path: string, content: string, what: string): void {
  refuseSymbolicLink(path, what);
  const hint = (code: string) => (code === "ENOENT" ? "its directory must exist" : "check the directory's permissions");
  writeFileWhole(path, content, { mode: 0o600, label: { name: `${what} ${path}`, hint } });
}
