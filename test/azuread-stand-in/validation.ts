/**
 * The ValidateFuncs azuread's schemas use, with the messages of
 * terraform-plugin-sdk's helper/validation (strings.go, time.go, uuid.go),
 * and RFC 3339 dates as Go's time package parses and formats them.
 */
import { applicationObjectId, isUuid } from "./ids";

type Validate = (value: unknown, name: string) => string | undefined;

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** time.Parse(time.RFC3339, v) then Format(time.RFC3339): the fraction of a second goes, the zone stays. */
export function rfc3339(value: string): string | undefined {
  const match = RFC3339.exec(value);
  if (!match || Number.isNaN(new Date(value).getTime())) return undefined;
  return `${match[1]}${match[3]}`;
}

/** time.Time.Format(time.RFC3339) of a UTC instant. */
export const formatRfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** time.ParseDuration: `240h`, `2400h30m`, `1.5h`; undefined when it is not one. */
export function parseDuration(value: string): number | undefined {
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(value);
  if (!match) return value === "0" ? 0 : undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) total += Number(amount) * UNITS[unit!]!;
  return match[1] === "-" ? -total : total;
}

const notString = (name: string) => `expected type of ${JSON.stringify(name)} to be string`;

export const uuid: Validate = (value, name) => {
  if (typeof value !== "string") return notString(name);
  return isUuid(value) ? undefined : `expected ${JSON.stringify(name)} to be a valid UUID, got ${value}`;
};

export const rfc3339Time: Validate = (value, name) => {
  if (typeof value !== "string") return notString(name);
  return rfc3339(value) ? undefined : `expected ${JSON.stringify(name)} to be a valid RFC3339 date, got ${JSON.stringify(value)}`;
};

export const notEmpty: Validate = (value, name) => {
  if (typeof value !== "string") return `expected type of ${name} to be string`;
  return value === "" ? `expected ${JSON.stringify(name)} not to be an empty string, got ${value}` : undefined;
};

export function oneOf(valid: readonly string[]): Validate {
  return (value, name) => {
    if (typeof value !== "string") return `expected type of ${name} to be string`;
    return valid.includes(value) ? undefined : `expected ${name} to be one of ${JSON.stringify(valid).replace(/,/g, " ")}, got ${value}`;
  };
}

export function lengthBetween(min: number, max: number): Validate {
  return (value, name) => {
    if (typeof value !== "string") return `expected type of ${name} to be string`;
    return value.length >= min && value.length <= max ? undefined : `expected length of ${name} to be in the range (${min} - ${max}), got ${value}`;
  };
}

/** stable.ValidateApplicationID: `/applications/{applicationId}`. */
export const applicationId: Validate = (value, name) => {
  if (typeof value !== "string") return `expected ${JSON.stringify(name)} to be a string`;
  return applicationObjectId(value) ? undefined : `parsing ${JSON.stringify(value)}: expected an Application ID of the form /applications/{applicationId}`;
};

/** A list of at least `min` and at most `max` elements (MinItems, MaxItems), each passing `each`. */
export function listOf(each: Validate, min: number, max = Infinity): Validate {
  return (value, name) => {
    if (!Array.isArray(value)) return `${name}: expected a list`;
    if (value.length < min) return `${name}: attribute supports ${min} item minimum, but config has only ${value.length} declared`;
    if (value.length > max) return `${name}: attribute supports ${max} item maximum, but config has ${value.length} declared`;
    return value.map((item, i) => each(item, `${name}.${i}`)).find((reason) => reason !== undefined);
  };
}
