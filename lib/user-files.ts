import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { UsageError } from "./errors";
import { describeJsonProblem, parseJson } from "./json-positions";

/**
 * How large a file the user names may be. A data file (stack outputs, stack
 * config, a tooling manifest, a shape baseline, a tenant file) holds a fleet of
 * 150,000 agents in some 30 MB; a credential file (a secret, a token, a PEM
 * key or certificate chain) a few KB. A larger one is refused before it is
 * read, so a wrong path (a log, a disk image) costs nothing.
 */
export const USER_FILE_LIMITS = { data: 64 * 1024 * 1024, credential: 1024 * 1024 } as const;

/** Why a file that was found is still not read: not a regular file, or over its limit. */
class UnreadableFileError extends Error {
  constructor(
    /** "EISDIR", "ENOTREG" (a device, FIFO or socket) or "EFBIG". */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const MIB = 1024 * 1024;

/** What a directory entry that is no regular file is, for an error: "a directory", "a FIFO (named pipe)". */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

function refuseUnlessRegular(stat: Stats): void {
  if (stat.isFile()) return;
  throw new UnreadableFileError(stat.isDirectory() ? "EISDIR" : "ENOTREG", `it is ${kindOf(stat)}, not a regular file`);
}

const tooLarge = (maxBytes: number) => new UnreadableFileError("EFBIG", `it is larger than ${maxBytes >= MIB ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`}, more than such a file holds`);

/**
 * A regular file's text, at most `maxBytes` of it. A device (/dev/zero), a
 * FIFO, a socket or a directory is refused without being read, so nothing
 * waits for a writer or reads without end; an OS refusal (ENOENT, EACCES)
 * is thrown as Node gives it.
 */
export function readRegularFile(path: string, maxBytes: number): string {
  return readRegularFileBytes(path, maxBytes).toString("utf8");
}

/** readRegularFile's bytes, for a binary file (a PKCS#12 bundle). */
export function readRegularFileBytes(path: string, maxBytes: number): Buffer {
  // Looked at before it is opened: opening a device or a FIFO can itself wait or act.
  const before = statSync(path);
  refuseUnlessRegular(before);
  if (before.size > maxBytes) throw tooLarge(maxBytes);
  // O_NONBLOCK: had it become a FIFO since, opening it still returns at once, and fstat refuses it.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const opened = fstatSync(fd);
    refuseUnlessRegular(opened);
    // One byte past the limit tells a file that grew past it from one that fills it.
    const buffer = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    if (length > maxBytes) throw tooLarge(maxBytes);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** How a refusal to read a user's file is worded beyond "cannot read {what}: {code}". */
export interface UserFileHints {
  /** How to write the file. */
  hint?: string;
  /** Replaces `hint` for a file that does not exist. */
  missingHint?: string;
  /** The error's step; "configuration" when absent. */
  step?: string;
  /** The largest file read; USER_FILE_LIMITS.data when absent. */
  maxBytes?: number;
}

/** Why a file could not be read, for "cannot read {what}: {reason}": the kit's own reason, or Node's code. */
export function unreadableReason(err: unknown): string {
  if (err instanceof UnreadableFileError) return `${err.message} (${err.code})`;
  return (err as NodeJS.ErrnoException).code ?? "unreadable";
}

/**
 * A file the user named (`what`, e.g. "--outputs out.json"), as text. One
 * that cannot be read is a UsageError "cannot read {what}: {code}", the
 * same for every flag and file.
 */
export function readUserFile(what: string, path: string, hints: UserFileHints = {}): string {
  try {
    return readRegularFile(path, hints.maxBytes ?? USER_FILE_LIMITS.data);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${what}: ${unreadableReason(err)}`, code === "ENOENT" ? (hints.missingHint ?? hints.hint) : hints.hint, hints.step);
  }
}

/**
 * A JSON file the user named, parsed. One that is not JSON is a UsageError
 * "cannot read {what}: not valid JSON at ..." with the line and column, never
 * the file's text (it may hold secrets).
 */
export function readJsonFile(what: string, path: string, hints: UserFileHints = {}): unknown {
  const parsed = parseJson(readUserFile(what, path, hints));
  if ("problem" in parsed) throw new UsageError(`cannot read ${what}: not valid JSON at ${describeJsonProblem(parsed.problem)}`, hints.hint, hints.step);
  return parsed.value;
}
