/** Checks on parsed JSON, whose every level may be any kind of value. */

/** A JSON object: not null, which typeof calls an object too, and not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A copy of `value`'s own enumerable properties on an object with no
 * prototype: a key it lacks reads as undefined, never as a member that other
 * code put on Object.prototype. Options, flags, the environment and outputs
 * files are read through such copies.
 */
export function ownProperties<T extends object>(value: T): Partial<T> {
  return Object.assign(Object.create(null) as Partial<T>, value);
}

/** The kind of a JSON value for an error message ("an array", "a number"); never the value, which may be a secret. */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
