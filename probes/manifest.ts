/**
 * The Agent 365 tooling manifest (ToolingManifest.json): where it is, whether
 * it is well formed, and what each registered tool server needs. Microsoft's
 * SDK returns an empty server list when the file is missing or unparsable;
 * everything here fails loudly instead, naming the file, entry and field.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../lib/errors";
import { parseJson } from "../lib/json-positions";
import { isLoopbackHost } from "../lib/urls";

export const MANIFEST_FILE_NAME = "ToolingManifest.json";
export const WORD_SERVER_NAME = "mcp_WordServer";
export const DEFAULT_TOOLING_DIR = ".a365";
/** The audience every V1 server shares ("Agent 365 Tools"). V2 audiences come only from the manifest. */
export const V1_SHARED_AUDIENCE = "ea9ffc3e-8a23-4a7d-836d-234d7c7565c1";

// ---------------------------------------------------------------- interfaces

/** Where a candidate path came from. */
export type ManifestSource = "argument" | "environment" | "working-directory" | "tooling-directory";

export interface ManifestCandidate {
  path: string;
  source: ManifestSource;
}

export interface TriedPath extends ManifestCandidate {
  found: boolean;
  /** Files beside it whose names differ from it only in letter case. */
  caseVariants: string[];
}

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

export interface InspectOptions extends LocateOptions {
  /** Servers required besides mcp_WordServer (`--require`). */
  require?: readonly string[];
}

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

export type PermissionModel = "v1-shared-audience" | "v2-own-audience" | "unclassified";

export interface ServerPermission {
  model: PermissionModel;
  /** The scope to request a token with; null when the entry does not say enough to form it. */
  tokenScope: string | null;
  /** Why the model or the token scope is unknown; null when nothing is missing. */
  note: string | null;
}

export interface ServerReport {
  index: number;
  name: string;
  uniqueName: string | null;
  url: string | null;
  audience: string | null;
  /** The per-server scope as written (V1: the permission the shared token must carry). */
  scope: string | null;
  permissionModel: PermissionModel;
  tokenScope: string | null;
  note: string | null;
}

export interface ManifestReport {
  /** True when mcp_WordServer and every required server are registered. */
  ok: boolean;
  file: string;
  source: ManifestSource;
  tried: TriedPath[];
  servers: ServerReport[];
  /** mcp_WordServer first, then `--require` names, without repeats. */
  required: string[];
  /** Required names that no entry carries, as `mcpServerName` or `mcpServerUniqueName`. */
  missing: string[];
  warnings: string[];
}

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

function problem(file: string | null, fields: Partial<Omit<ManifestProblem, "file" | "message">>, message: string): ManifestProblem {
  return { file, entry: null, field: null, line: null, column: null, ...fields, message };
}

function describeProblem(p: ManifestProblem): string {
  if (p.line !== null && p.column !== null) return `${p.file}:${p.line}:${p.column}: ${p.message}`;
  const where = [p.file];
  if (p.entry) where.push(`mcpServers[${p.entry.index}]${p.entry.name === null ? "" : ` ${JSON.stringify(p.entry.name)}`}`);
  if (p.field !== null) where.push(`field ${JSON.stringify(p.field)}`);
  return [...where.filter((w) => w !== null), p.message].join(": ");
}

function summarize(problems: readonly ManifestProblem[]): string {
  if (problems.length === 1) return describeProblem(problems[0]);
  return `${problems.length} problems in ${problems[0].file}:\n${problems.map((p) => `  - ${describeProblem(p)}`).join("\n")}`;
}

// ---------------------------------------------------------------- locate

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

const SOURCE_LABEL: Record<ManifestSource, string> = {
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

function caseWarnings(location: ManifestLocation): string[] {
  return location.tried.flatMap((t) =>
    t.caseVariants.map((v) => `${v} was skipped because its name differs from ${path.basename(t.path)} in letter case; ${location.path} was used instead`),
  );
}

// ---------------------------------------------------------------- parse

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
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    throw new ManifestError([problem(file, {}, code === "EISDIR" ? "is a directory, not a file" : `cannot be read (${code})`)]);
  }
}

// ---------------------------------------------------------------- validate

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const STRING_FIELDS = ["mcpServerName", "mcpServerUniqueName", "url", "scope", "audience"] as const;
type StringField = (typeof STRING_FIELDS)[number];

/** Checks one entry; problems are collected so that one run reports every bad entry. */
function readEntry(file: string, raw: unknown, index: number): { entry: ManifestEntry | null; problems: ManifestProblem[] } {
  if (!isObject(raw)) {
    return { entry: null, problems: [problem(file, { entry: { index, name: null } }, `must be an object, found ${typeName(raw)}`)] };
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
    else problems.push(problem(file, { entry: label, field }, `must be a string, found ${typeName(value)}`));
  }
  const nameField = text.mcpServerName?.trim() ? "mcpServerName" : text.mcpServerUniqueName?.trim() ? "mcpServerUniqueName" : null;
  if (nameField === null) {
    problems.push(problem(file, { entry: label, field: "mcpServerName" }, `the entry has no name: set "mcpServerName" (or "mcpServerUniqueName")`));
  }
  const urlProblem = text.url === undefined ? null : checkUrl(text.url);
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

function checkUrl(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not an absolute URL: ${JSON.stringify(value)}`;
  }
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return null;
  return `must use https (plain http is allowed only for loopback hosts such as localhost or 127.0.0.1): ${JSON.stringify(value)}`;
}

function duplicateNames(file: string, entries: readonly ManifestEntry[]): ManifestProblem[] {
  const first = new Map<string, ManifestEntry>();
  const problems: ManifestProblem[] = [];
  for (const entry of entries) {
    const earlier = first.get(entry.name);
    if (earlier === undefined) first.set(entry.name, entry);
    else problems.push(problem(file, { entry: { index: entry.index, name: entry.name }, field: entry.nameField }, `duplicate name: mcpServers[${earlier.index}] is also named ${JSON.stringify(entry.name)}`));
  }
  return problems;
}

/** The server entries of a parsed manifest; throws a ManifestError listing every problem found. */
export function validateManifest(file: string, data: unknown): ManifestEntry[] {
  if (!isObject(data)) {
    throw new ManifestError([problem(file, {}, `the top level must be an object with an "mcpServers" array, found ${typeName(data)}`)]);
  }
  if (!("mcpServers" in data)) {
    throw new ManifestError([problem(file, { field: "mcpServers" }, `is missing, so the manifest registers no servers (Microsoft's SDK would silently see none)`)]);
  }
  const servers = data.mcpServers;
  if (!Array.isArray(servers)) {
    throw new ManifestError([problem(file, { field: "mcpServers" }, `must be an array of server entries, found ${typeName(servers)}`)]);
  }
  const read = servers.map((raw, index) => readEntry(file, raw, index));
  const entries = read.flatMap((r) => (r.entry === null ? [] : [r.entry]));
  const problems = [...read.flatMap((r) => r.problems), ...duplicateNames(file, entries)].sort(
    (a, b) => (a.entry?.index ?? 0) - (b.entry?.index ?? 0),
  );
  if (problems.length > 0) throw new ManifestError(problems);
  return entries;
}

// ---------------------------------------------------------------- classify

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const API_URI = /^api:\/\//i;

function unclassified(note: string): ServerPermission {
  return { model: "unclassified", tokenScope: null, note };
}

/**
 * V1 or V2, from the audience alone. Where Microsoft's own tools disagree or
 * the entry is silent, this says so rather than pick one.
 */
export function classifyServer(entry: Pick<ManifestEntry, "audience" | "scope">): ServerPermission {
  const { audience, scope } = entry;
  if (audience === null) {
    return unclassified(`no "audience" is given, so V1 and V2 cannot be told apart (Microsoft's SDK would assume the shared V1 audience)`);
  }
  if (audience.replace(API_URI, "").toLowerCase() === V1_SHARED_AUDIENCE) {
    return {
      model: "v1-shared-audience",
      // Every V1 server is reached with the one shared-audience token; its per-server scope must be among the token's scopes.
      tokenScope: `${V1_SHARED_AUDIENCE}/.default`,
      note: scope === null ? `no "scope" is given, so which per-server permission the shared token must carry is unknown` : null,
    };
  }
  if (GUID.test(audience)) {
    return {
      model: "v2-own-audience",
      tokenScope: scope === null ? null : `${audience}/${scope}`,
      note: scope === null ? `no "scope" is given, so the token scope {audience}/{scope} cannot be formed` : null,
    };
  }
  if (API_URI.test(audience)) {
    return unclassified(`"audience" is an api:// URI other than the shared V1 audience; Microsoft's SDKs disagree on whether that means V1 or V2`);
  }
  return unclassified(`"audience" ${JSON.stringify(audience)} is neither the shared V1 audience nor an application id (GUID)`);
}

// ---------------------------------------------------------------- report

function serverReport(entry: ManifestEntry): ServerReport {
  const permission = classifyServer(entry);
  return {
    index: entry.index,
    name: entry.name,
    uniqueName: entry.uniqueName,
    url: entry.url,
    audience: entry.audience,
    scope: entry.scope,
    permissionModel: permission.model,
    tokenScope: permission.tokenScope,
    note: permission.note,
  };
}

/** Finds, reads, validates and classifies the manifest. Throws ManifestError on bad input. */
export function inspectManifest(options: InspectOptions): ManifestReport {
  const location = locateManifest(manifestCandidates(options));
  let entries: ManifestEntry[];
  try {
    entries = validateManifest(location.path, parseManifestJson(location.path, readManifestText(location.path)));
  } catch (err) {
    if (err instanceof ManifestError) throw new ManifestError(err.problems, err.hint, location.tried);
    throw err;
  }
  const required = [...new Set([WORD_SERVER_NAME, ...(options.require ?? [])])];
  const missing = required.filter((name) => !entries.some((e) => e.name === name || e.uniqueName === name));
  return {
    ok: missing.length === 0,
    file: location.path,
    source: location.source,
    tried: location.tried,
    servers: entries.map(serverReport),
    required,
    missing,
    warnings: [...caseWarnings(location), ...missing.flatMap((name) => caseTwins(name, entries))],
  };
}

/** A required name that a registered server carries in another case: Microsoft's SDK compares names exactly. */
function caseTwins(name: string, entries: ReadonlyArray<{ name: string; uniqueName?: string | null }>): string[] {
  const twins = entries.flatMap((e) => [e.name, e.uniqueName ?? undefined]).filter((n): n is string => n !== undefined && n !== name && n.toLowerCase() === name.toLowerCase());
  return [...new Set(twins)].map((twin) => `${name} is required; found ${twin}, which differs only in case (names are compared exactly)`);
}

function describePermission(server: ServerReport): string {
  const note = server.note === null ? "" : ` (${server.note})`;
  switch (server.permissionModel) {
    case "v1-shared-audience":
      return `V1 shared audience ${V1_SHARED_AUDIENCE}; token scope ${server.tokenScope}${server.scope === null ? "" : `, which must grant ${server.scope}`}${note}`;
    case "v2-own-audience":
      return `V2 own audience ${server.audience}; token scope ${server.tokenScope ?? "unknown"}${note}`;
    case "unclassified":
      return `permission model unknown: ${server.note}`;
  }
}

function describeServer(server: ServerReport): string {
  const url = server.url ?? "no url (Microsoft's SDK builds one from its gateway base URL and the name)";
  return `${server.name}: ${url}; ${describePermission(server)}`;
}

/** A short human report: the file, one line per server, any warnings, and the verdict. */
export function formatManifestReport(report: ManifestReport): string {
  const count = report.servers.length === 1 ? "1 server" : `${report.servers.length} servers`;
  const lines = [
    `Tooling manifest ${report.file} (from ${SOURCE_LABEL[report.source]}): ${count}.`,
    ...report.servers.map((s) => `  ${describeServer(s)}`),
    ...report.warnings.map((w) => `warning: ${w}`),
    report.ok ? `Registered: ${report.required.join(", ")}.` : `NOT registered: ${report.missing.join(", ")}.`,
  ];
  return `${lines.join("\n")}\n`;
}
