import { readFileSync } from "node:fs";
import { UsageError } from "./errors";
import { describeJsonProblem, parseJson } from "./json-positions";

/** How a refusal to read a user's file is worded beyond "cannot read {what}: {code}". */
export interface UserFileHints {
  /** How to write the file. */
  hint?: string;
  /** Replaces `hint` for a file that does not exist. */
  missingHint?: string;
  /** The error's step; "configuration" when absent. */
  step?: string;
}

/**
 * A file the user named (`what`, e.g. "--outputs out.json"), as text. One
 * that cannot be read is a UsageError "cannot read {what}: {code}", the
 * same for every flag and file.
 */
export function readUserFile(what: string, path: string, hints: UserFileHints = {}): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`cannot read ${what}: ${code}`, code === "ENOENT" ? (hints.missingHint ?? hints.hint) : hints.hint, hints.step);
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
