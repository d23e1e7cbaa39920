/**
 * The Agent 365 tooling manifest (ToolingManifest.json): where it is, whether
 * it is well formed, and what each registered tool server needs. Microsoft's
 * SDK returns an empty server list when the file is missing or unparsable;
 * everything here fails loudly instead, naming the file, entry and field.
 */
import { printable } from "../../lib/printable";
import { classifyServer, V1_SHARED_AUDIENCE, type PermissionModel } from "./classify";
import type { ManifestSource, TriedPath } from "./candidates";
import { caseWarnings, locateManifest, manifestCandidates, SOURCE_LABEL, type LocateOptions } from "./locate";
import { ManifestError } from "./problems";
import { readManifest, type ManifestEntry } from "./validate";

export const WORD_SERVER_NAME = "mcp_WordServer";

export interface InspectOptions extends LocateOptions {
  /** Servers required besides mcp_WordServer (`--require`). */
  require?: readonly string[];
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
    entries = readManifest(location.path);
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
  // Names, URLs and audiences come from the file: each line escaped, so that each server is one line.
  return `${lines.map(printable).join("\n")}\n`;
}
