import { isObject, jsonKind } from "./json-value";

/** What one field of a Graph object must be; a trailing `?` lets it be absent or null. */
export type FieldType = "string" | "boolean" | "number" | "string[]" | "string?" | "boolean?" | "number?" | "string[]?";

/**
 * The fields of a Graph object that a caller reads, each with its type. A
 * field given as `[shape]` is a list of objects of that shape, which may be
 * absent or null. Fields not named are not looked at.
 */
export interface Shape {
  readonly [field: string]: FieldType | readonly [Shape];
}

/** What a field holds, for a message: "missing" where it is absent. */
function kind(value: unknown): string {
  return value === undefined ? "missing" : jsonKind(value);
}

function fieldProblem(value: unknown, type: FieldType | readonly [Shape], where: string): string | undefined {
  if (typeof type !== "string") {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) return `${where} is ${jsonKind(value)}, not a list`;
    for (let i = 0; i < value.length; i++) {
      const problem = shapeProblem(value[i], type[0], `${where}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  const optional = type.endsWith("?");
  if (optional && (value === undefined || value === null)) return undefined;
  const base = optional ? type.slice(0, -1) : type;
  if (base === "string[]") {
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return undefined;
    return `${where} is ${Array.isArray(value) ? "a list that holds more than strings" : kind(value)}, not a list of strings`;
  }
  return typeof value === base ? undefined : `${where} is ${kind(value)}, not a ${base}`;
}

/**
 * Why `value` is not an object of `shape` (e.g. "value[3].scope is a number,
 * not a string"), or undefined when it is. Names the field, never its value,
 * which may be anything a hostile peer sent.
 */
export function shapeProblem(value: unknown, shape: Shape, where: string): string | undefined {
  if (!isObject(value)) return `${where} is ${jsonKind(value)}, not an object`;
  for (const [field, type] of Object.entries(shape)) {
    const problem = fieldProblem(Object.hasOwn(value, field) ? value[field] : undefined, type, `${where}.${field}`);
    if (problem) return problem;
  }
  return undefined;
}
