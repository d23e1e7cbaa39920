/**
 * Reads the manifest and checks it: well-formed JSON, an "mcpServers" array,
 * and entries with a name, string fields and a safe URL. Every problem is
 * collected, so that one run reports every bad entry.
 */
import { quoteValue } from "../../lib/printable";
import { readRegularFile, unreadableReason, USER_FILE_LIMITS } from "../../lib/user-files";
import { parseJson } from "../../lib/json-positions";
import { isObject, jsonKind } from "../../lib/json-value";
import { secureUrlProblem } from "../../lib/urls";
import { ManifestError, problem, type ManifestProblem } from "./problems";

/** One `mcpServers` entry, as the manifest gives it (absent, null and empty strings are all null). */
export interface ManifestEntry {
  /** Position in `mcpServers`, from 0. */
  index: number;
  /** `mcpServerName`, or `mcpServerUniqueName` when that is all there is (as Microsoft's SDK does). */
  name: string;
  nameField: "mcpServerName" | "mcpServerUniqueName";
  uniqueName: string | null;
  url: string | null;
  scope: string | null;
  audience: string | null;
}

function parseManifestJson(file: string, text: string): unknown {
  const parsed = parseJson(text);
  if ("problem" in parsed) {
    const { line, column, reason } = parsed.problem;
    throw new ManifestError([problem(file, { line, column }, `invalid JSON: ${reason}`)]);
  }
  return parsed.value;
}

function readManifestText(file: string): string {
  try {
    return readRegularFile(file, USER_FILE_LIMITS.data);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    throw new ManifestError([problem(file, {}, code === "EISDIR" ? "is a directory, not a file" : `cannot be read (${unreadableReason(err)})`)]);
  }
}

const STRING_FIELDS = ["mcpServerName", "mcpServerUniqueName", "url", "scope", "audience"] as const;
type StringField = (typeof STRING_FIELDS)[number];

/** Checks one entry; problems are collected so that one run reports every bad entry. */
function readEntry(file: string, raw: unknown, index: number): { entry: ManifestEntry | null; problems: ManifestProblem[] } {
  if (!isObject(raw)) {
    return { entry: null, problems: [problem(file, { entry: { index, name: null } }, `must be an object, found ${jsonKind(raw)}`)] };
  }
  const problems: ManifestProblem[] = [];
  const text: Partial<Record<StringField, string>> = {};
  const named = [raw.mcpServerName, raw.mcpServerUniqueName].find((v) => typeof v === "string" && v.trim() !== "");
  const label = { index, name: typeof named === "string" ? named : null };
  for (const field of STRING_FIELDS) {
    const value = raw[field];
    // C# writers emit null for unset properties, and Microsoft's SDK treats "" as unset.
    if (value === undefined || value === null || value === "") continue;
    if (typeof value === "string") text[field] = value;
    else problems.push(problem(file, { entry: label, field }, `must be a string, found ${jsonKind(value)}`));
  }
  const nameField = text.mcpServerName?.trim() ? "mcpServerName" : text.mcpServerUniqueName?.trim() ? "mcpServerUniqueName" : null;
  if (nameField === null) {
    problems.push(problem(file, { entry: label, field: "mcpServerName" }, `the entry has no name: set "mcpServerName" (or "mcpServerUniqueName")`));
  }
  const urlProblem = text.url === undefined ? null : (secureUrlProblem(text.url) ?? null);
  if (urlProblem !== null) problems.push(problem(file, { entry: label, field: "url" }, urlProblem));
  if (problems.length > 0 || nameField === null) return { entry: null, problems };
  return {
    entry: {
      index,
      name: text[nameField] as string,
      nameField,
      uniqueName: text.mcpServerUniqueName ?? null,
      url: text.url ?? null,
      scope: text.scope ?? null,
      audience: text.audience ?? null,
    },
    problems,
  };
}

function duplicateNames(file: string, entries: readonly ManifestEntry[]): ManifestProblem[] {
  const first = new Map<string, ManifestEntry>();
  const problems: ManifestProblem[] = [];
  for (const entry of entries) {
    const earlier = first.get(entry.name);
    if (earlier === undefined) first.set(entry.name, entry);
    else problems.push(problem(file, { entry: { index: entry.index, name: entry.name }, field: entry.nameField }, `duplicate name: mcpServers[${earlier.index}] is also named ${quoteValue(entry.name)}`));
  }
  return problems;
}

/** The server entries of a parsed manifest; throws a ManifestError listing every problem found. */
function validateManifest(file: string, data: unknown): ManifestEntry[] {
  if (!isObject(data)) {
    throw new ManifestError([problem(file, {}, `the top level must be an object with an "mcpServers" array, found ${jsonKind(data)}`)]);
  }
  if (!("mcpServers" in data)) {
    throw new ManifestError([problem(file, { field: "mcpServers" }, `is missing, so the manifest registers no servers (Microsoft's SDK would silently see none)`)]);
  }
  const servers = data.mcpServers;
  if (!Array.isArray(servers)) {
    throw new ManifestError([problem(file, { field: "mcpServers" }, `must be an array of server entries, found ${jsonKind(servers)}`)]);
  }
  const read = servers.map((raw, index) => readEntry(file, raw, index));
  const entries = read.flatMap((r) => (r.entry === null ? [] : [r.entry]));
  const problems = [...read.flatMap((r) => r.problems), ...duplicateNames(file, entries)].sort(
    (a, b) => (a.entry?.index ?? 0) - (b.entry?.index ?? 0),
  );
  if (problems.length > 0) throw new ManifestError(problems);
  return entries;
}

/** The server entries of the manifest file; throws a ManifestError on a file that cannot be read, parsed or validated. */
export function readManifest(file: string): ManifestEntry[] {
  return validateManifest(file, parseManifestJson(file, readManifestText(file)));
}
