/**
 * Where the tooling manifest (ToolingManifest.json) is: the argument, the
 * environment, the working directory or the tooling directory, in that order.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import type { ManifestCandidate, ManifestSource, TriedPath } from "./candidates";
import { ManifestError, problem } from "./problems";

export const MANIFEST_FILE_NAME = "ToolingManifest.json";
export const DEFAULT_TOOLING_DIR = ".a365";

export interface ManifestLocation extends ManifestCandidate {
  /** Every candidate looked at, in order, ending with the one found. */
  tried: TriedPath[];
}

export interface LocateOptions {
  /** Relative paths are resolved against this directory. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The PATH argument. */
  path?: string;
  /** `--tooling-dir`; wins over AGENT_USER_TOOLING_DIR. */
  toolingDir?: string;
}

/** The paths to look at, in order. */
export function manifestCandidates(options: LocateOptions): ManifestCandidate[] {
  // An explicit choice is the only candidate: a typo must fail, not silently fall back to another manifest.
  if (options.path !== undefined) return [{ path: path.resolve(options.cwd, options.path), source: "argument" }];
  const fromEnv = options.env.AGENT_USER_TOOLING_MANIFEST;
  if (fromEnv) return [{ path: path.resolve(options.cwd, fromEnv), source: "environment" }];
  const toolingDir = options.toolingDir ?? (options.env.AGENT_USER_TOOLING_DIR || DEFAULT_TOOLING_DIR);
  return [
    { path: path.join(options.cwd, MANIFEST_FILE_NAME), source: "working-directory" },
    { path: path.resolve(options.cwd, toolingDir, MANIFEST_FILE_NAME), source: "tooling-directory" },
  ];
}

/** Names in a directory; none when it cannot be listed. */
export type ListDir = (dir: string) => readonly string[];

function listDirOrNothing(dir: string): readonly string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The first candidate whose directory holds exactly its name. Matching the
 * listing, not the file system's lookup, keeps a wrong-case name wrong on
 * case-insensitive macOS too, as it is on Linux where the agent runs.
 */
export function locateManifest(candidates: readonly ManifestCandidate[], listDir: ListDir = listDirOrNothing): ManifestLocation {
  const tried: TriedPath[] = [];
  for (const candidate of candidates) {
    const dir = path.dirname(candidate.path);
    const base = path.basename(candidate.path);
    const names = listDir(dir);
    const found = names.includes(base);
    const caseVariants = names.filter((n) => n !== base && n.toLowerCase() === base.toLowerCase()).map((n) => path.join(dir, n));
    tried.push({ ...candidate, found, caseVariants });
    if (found) return { ...candidate, tried };
  }
  throw notFound(tried);
}

export const SOURCE_LABEL: Record<ManifestSource, string> = {
  argument: "the PATH argument",
  environment: "AGENT_USER_TOOLING_MANIFEST",
  "working-directory": "the working directory",
  "tooling-directory": "the tooling directory",
};

function notFound(tried: readonly TriedPath[]): ManifestError {
  const lines = [`no tooling manifest found; tried, in order:`, ...tried.map((t) => `  ${t.path} (${SOURCE_LABEL[t.source]})`)];
  for (const t of tried) {
    for (const variant of t.caseVariants) {
      lines.push(`${variant} exists, but its name differs from ${path.basename(t.path)} in letter case: rename it (file names are case-sensitive on Linux)`);
    }
  }
  return new ManifestError(
    [problem(null, {}, lines.join("\n"))],
    `pass PATH, set AGENT_USER_TOOLING_MANIFEST or AGENT_USER_TOOLING_DIR, or create ${MANIFEST_FILE_NAME} (a365 develop add-mcp-servers writes one)`,
    tried,
  );
}

export function caseWarnings(location: ManifestLocation): string[] {
  return location.tried.flatMap((t) =>
    t.caseVariants.map((v) => `${v} was skipped because its name differs from ${path.basename(t.path)} in letter case; ${location.path} was used instead`),
  );
}
