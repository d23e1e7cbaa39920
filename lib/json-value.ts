/** Checks on parsed JSON, whose every level may be any kind of value. */

/** A JSON object: not null, which typeof calls an object too, and not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The kind of a JSON value for an error message ("an array", "a number"); never the value, which may be a secret. */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
