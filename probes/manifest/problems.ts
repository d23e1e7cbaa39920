/**
 * What is wrong with a tooling manifest, one fact at a time, precise enough to
 * go and fix it: the file, the entry, the field, or the line and column.
 */
import { quoteValue } from "../../lib/printable";
import { UsageError } from "../../lib/errors";
import type { TriedPath } from "./candidates";

/** One fact about a bad manifest, precise enough to go and fix it. */
export interface ManifestProblem {
  /** The manifest file; null when no file was found. */
  file: string | null;
  entry: { index: number; name: string | null } | null;
  field: string | null;
  /** 1-based position of a JSON syntax error. */
  line: number | null;
  column: number | null;
  message: string;
}

/** Bad manifest input: exit code 2, like any other usage error. */
export class ManifestError extends UsageError {
  readonly problems: readonly ManifestProblem[];
  readonly tried: readonly TriedPath[];

  constructor(problems: readonly ManifestProblem[], hint?: string, tried: readonly TriedPath[] = []) {
    super(summarize(problems), hint);
    this.problems = problems;
    this.tried = tried;
  }
}

export function problem(file: string | null, fields: Partial<Omit<ManifestProblem, "file" | "message">>, message: string): ManifestProblem {
  return { file, entry: null, field: null, line: null, column: null, ...fields, message };
}

function describeProblem(p: ManifestProblem): string {
  if (p.line !== null && p.column !== null) return `${p.file}:${p.line}:${p.column}: ${p.message}`;
  const where = [p.file];
  if (p.entry) where.push(`mcpServers[${p.entry.index}]${p.entry.name === null ? "" : ` ${quoteValue(p.entry.name)}`}`);
  if (p.field !== null) where.push(`field ${quoteValue(p.field)}`);
  return [...where.filter((w) => w !== null), p.message].join(": ");
}

function summarize(problems: readonly ManifestProblem[]): string {
  if (problems.length === 1) return describeProblem(problems[0]);
  return `${problems.length} problems in ${problems[0].file}:\n${problems.map((p) => `  - ${describeProblem(p)}`).join("\n")}`;
}
