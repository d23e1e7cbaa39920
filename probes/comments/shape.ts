import { printable } from "../../lib/printable";
import { UsageError } from "../../lib/errors";
import { isObject } from "../../lib/json-value";
import { describeJsonProblem, parseJson } from "../../lib/json-positions";

/**
 * The shape of what Graph returned: for each kind of object, every field path
 * seen and the JSON types it had. Comparing shapes over time is how a team
 * notices that an undocumented endpoint changed under them.
 */

export const SHAPE_FORMAT = "agent-user-comments-shape/1";
export const SHAPE_KINDS = ["driveItem", "comment", "reply"] as const;
export type ShapeKind = (typeof SHAPE_KINDS)[number];

export interface KindShape {
  /** How many objects of this kind were seen; with 0 there is nothing to compare. */
  observed: number;
  /** Field path (nested objects with ".", array elements with "[]") → the JSON types seen, sorted and joined with "|". */
  fields: Record<string, string>;
}

export type RecordedShape = { format: typeof SHAPE_FORMAT } & Record<ShapeKind, KindShape>;

type JsonType = "string" | "number" | "boolean" | "null" | "object" | "array";

function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as JsonType;
}

/** How deep a response's shape is recorded; Graph's are a few levels deep. */
const MAX_SHAPE_DEPTH = 32;

/** Collects the shape of objects as they are parsed from responses. */
export class ShapeRecorder {
  private readonly seen = new Map<ShapeKind, { count: number; fields: Map<string, Set<JsonType>> }>(SHAPE_KINDS.map((k) => [k, { count: 0, fields: new Map() }]));

  add(kind: ShapeKind, value: unknown): void {
    const entry = this.seen.get(kind)!;
    entry.count++;
    const note = (key: string, type: JsonType | "(deeper levels not recorded)") => {
      if (!entry.fields.has(key)) entry.fields.set(key, new Set());
      entry.fields.get(key)!.add(type as JsonType);
    };
    const walk = (v: unknown, path: string, depth: number) => {
      const type = jsonType(v);
      if (path !== "" || type !== "object") note(path === "" ? "(the whole value)" : path, type);
      // A hostile page nested thousands deep must not overflow the stack and cost the capture: stop recording there.
      if (depth >= MAX_SHAPE_DEPTH) {
        if (type === "object" || type === "array") note(`${path}…`, "(deeper levels not recorded)");
        return;
      }
      if (type === "object") for (const [name, child] of Object.entries(v as object)) walk(child, path === "" ? name : `${path}.${name}`, depth + 1);
      if (type === "array") for (const element of v as unknown[]) walk(element, `${path}[]`, depth + 1);
    };
    walk(value, "", 0);
  }

  shape(): RecordedShape {
    const shape = { format: SHAPE_FORMAT } as RecordedShape;
    for (const [kind, { count, fields }] of this.seen) {
      const sorted = [...fields.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      shape[kind] = { observed: count, fields: Object.fromEntries(sorted.map(([path, types]) => [path, [...types].sort().join("|")])) };
    }
    return shape;
  }
}

/** Reads a baseline written by an earlier capture; anything else is bad input. */
export function parseShape(text: string, name: string): RecordedShape {
  const bad = (why: string) => new UsageError(`${name} is not a shape.json written by "agent-user comments": ${why}`, "give the shape.json of an earlier capture", "--baseline");
  const parsed = parseJson(text);
  if ("problem" in parsed) throw bad(`invalid JSON at ${describeJsonProblem(parsed.problem)}`);
  const json = parsed.value;
  if (!isObject(json) || json.format !== SHAPE_FORMAT) throw bad(`"format" is not "${SHAPE_FORMAT}"`);
  for (const kind of SHAPE_KINDS) {
    const k = json[kind];
    if (!isObject(k) || typeof k.observed !== "number" || !isObject(k.fields) || Object.values(k.fields).some((t) => typeof t !== "string")) {
      throw bad(`"${kind}" must be {"observed": number, "fields": {path: "type"}}`);
    }
  }
  return json as RecordedShape;
}

export interface ShapeChange {
  kind: ShapeKind;
  field: string;
  /** The types in the baseline; absent for an added field. */
  before?: string;
  /** The types now; absent for a removed field. */
  after?: string;
}

export interface ShapeDiff {
  added: ShapeChange[];
  removed: ShapeChange[];
  retyped: ShapeChange[];
  /** Kinds that one side never saw (e.g. no replies this time), so absence is not drift. */
  notCompared: Array<{ kind: ShapeKind; reason: string }>;
}

export function diffShapes(baseline: RecordedShape, current: RecordedShape): ShapeDiff {
  const diff: ShapeDiff = { added: [], removed: [], retyped: [], notCompared: [] };
  for (const kind of SHAPE_KINDS) {
    const before = baseline[kind];
    const after = current[kind];
    if (before.observed === 0 || after.observed === 0) {
      diff.notCompared.push({ kind, reason: after.observed === 0 ? "none in this capture" : "none in the baseline" });
      continue;
    }
    for (const [field, types] of Object.entries(after.fields)) {
      // Own properties only: a field may be called "constructor".
      if (!Object.hasOwn(before.fields, field)) diff.added.push({ kind, field, after: types });
      else if (before.fields[field] !== types) diff.retyped.push({ kind, field, before: before.fields[field], after: types });
    }
    for (const [field, types] of Object.entries(before.fields)) if (!Object.hasOwn(after.fields, field)) diff.removed.push({ kind, field, before: types });
  }
  return diff;
}

export const hasDrift = (diff: ShapeDiff): boolean => diff.added.length + diff.removed.length + diff.retyped.length > 0;

export function formatDiff(diff: ShapeDiff): string {
  const lines = [
    ...diff.added.map((c) => `  added    ${c.kind}.${c.field} (${c.after})`),
    ...diff.removed.map((c) => `  removed  ${c.kind}.${c.field} (was ${c.before})`),
    ...diff.retyped.map((c) => `  retyped  ${c.kind}.${c.field}: ${c.before} -> ${c.after}`),
    ...diff.notCompared.map((n) => `  not compared: ${n.kind} (${n.reason})`),
  ];
  // Field names are Graph's JSON keys: each line escaped, so that each field is one line.
  return `${hasDrift(diff) ? "shape drift against the baseline:" : "shape matches the baseline"}\n${lines.map(printable).join("\n")}${lines.length ? "\n" : ""}`;
}
