import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { UsageError } from "./errors";

/**
 * Writes a file that holds a secret: mode 0600 whatever an older file's mode
 * was, all or nothing (a temporary file beside it, then a rename, so no
 * reader ever sees half of it), and never through a symbolic link (which
 * could point the secret anywhere). `what` names the file in errors.
 */
export function writeSecretFile(path: string, content: string, what: string): void {
  let existing: ReturnType<typeof lstatSync> | undefined;
  try {
    existing = lstatSync(path);
  } catch {
    // absent: the usual case
  }
  if (existing?.isSymbolicLink()) throw new UsageError(`${what} ${path} is a symbolic link; a file holding a secret is never written through one`, "name a regular file");
  if (existing && !existing.isFile()) throw new UsageError(`${what} ${path} exists and is not a regular file`);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", 0o600);
    writeSync(fd, content);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    const code = (err as NodeJS.ErrnoException).code ?? "unwritable";
    throw new UsageError(`cannot write ${what} ${path}: ${code}`, code === "ENOENT" ? "its directory must exist" : "check the directory's permissions");
  }
}
