import {
  baseUrlOf,
  baseUrlProblem,
  displayNameProblem,
  isGuid,
  isPlaceholderGuid,
  LIMITS,
  tokenExchangeAudienceProblem,
  upnDomainProblem,
  upnLocalPartProblem,
} from "../lib/entra-rules";
import { quoted, type ConfigKey, type Fail, type RawConfig } from "./config-keys";

/** The rules for one key at a time: text, lists, names, GUIDs, dates, URLs and numbers. */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Pulumi reports an unset key as undefined, a blanked one as "": both mean "not set". */
export function isSet(raw: RawConfig, key: ConfigKey): boolean {
  const value = raw[key];
  return value !== undefined && !(typeof value === "string" && value.trim() === "");
}

export function text(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") {
    fail(key, "must be a single value, not a list");
    return undefined;
  }
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

function required(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  // A list in place of a value was already reported by text().
  if (value === undefined && typeof raw[key] !== "object") fail(key, "is required");
  return value;
}

/** A list given as a JSON array, or as words separated by spaces or commas. */
export function list(raw: RawConfig, key: ConfigKey, fail: Fail): string[] | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  let items: unknown;
  if (typeof value === "string" && value.trim().startsWith("[")) {
    try {
      items = JSON.parse(value);
    } catch {
      fail(key, "is not a valid JSON list");
      return undefined;
    }
  } else {
    items = typeof value === "string" ? value.split(/[\s,]+/) : value;
  }
  if (!Array.isArray(items) || items.some((item) => typeof item !== "string")) {
    fail(key, "must be a list of strings");
    return undefined;
  }
  return (items as string[]).map((item) => item.trim()).filter((item) => item !== "");
}

export function domain(raw: RawConfig, fail: Fail): string | undefined {
  const value = required(raw, "userDomain", fail)?.toLowerCase();
  if (value === undefined) return undefined;
  const problem = upnDomainProblem(value, (v) => quoted(fail, "userDomain", v));
  if (problem) fail("userDomain", problem);
  return problem ? undefined : value;
}

export function displayName(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = required(raw, key, fail);
  const problem = value === undefined ? undefined : displayNameProblem(value);
  if (problem) fail(key, problem);
  return problem ? undefined : value;
}

export function upnLocalPart(raw: RawConfig, fail: Fail): string | undefined {
  const value = required(raw, "agentUserName", fail);
  const problem = value === undefined ? undefined : upnLocalPartProblem(value, (v) => quoted(fail, "agentUserName", v));
  if (problem) fail("agentUserName", problem);
  return problem ? undefined : value;
}

const placeholder = (value: string) => `is the placeholder ${value} of the example stack file, never a real id; set yours`;

export function guid(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  if (value === undefined) return undefined;
  if (isPlaceholderGuid(value)) {
    fail(key, placeholder(value));
    return undefined;
  }
  if (!isGuid(value)) {
    fail(key, `must be an object id or app id (a GUID), got ${quoted(fail, key, value)}`);
    return undefined;
  }
  return value.toLowerCase();
}

export function guidList(raw: RawConfig, key: ConfigKey, fail: Fail): string[] | undefined {
  const values = list(raw, key, fail);
  if (values === undefined) {
    if (raw[key] === undefined) fail(key, "is required: at least one user object id (Entra refuses a blueprint or agent identity with no sponsor)");
    return undefined;
  }
  if (values.length === 0) {
    fail(key, "needs at least one user object id (Entra refuses a blueprint or agent identity with no sponsor)");
    return undefined;
  }
  const dummy = values.find((value) => isPlaceholderGuid(value));
  if (dummy) {
    fail(key, placeholder(dummy));
    return undefined;
  }
  const bad = values.filter((value) => !isGuid(value));
  if (bad.length > 0) {
    fail(key, `must hold user object ids (GUIDs), not ${bad.map((b) => quoted(fail, key, b)).join(", ")}; a UPN is not accepted`);
    return undefined;
  }
  const unique = [...new Set(values.map((value) => value.toLowerCase()))];
  if (unique.length > LIMITS.sponsors) {
    fail(key, `lists ${unique.length} sponsors; Entra allows at most ${LIMITS.sponsors}`);
    return undefined;
  }
  return unique;
}


export function futureDate(raw: RawConfig, key: ConfigKey, now: Date, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(date.getTime())) {
    fail(key, `must be an RFC 3339 date such as 2027-01-31T00:00:00Z, got ${quoted(fail, key, value)}`);
    return undefined;
  }
  if (date <= now) {
    fail(key, "is in the past");
    return undefined;
  }
  return date.toISOString();
}

export function url(raw: RawConfig, key: ConfigKey, fallback: string, fail: Fail): string {
  const value = text(raw, key, fail);
  if (value === undefined) return fallback;
  const problem = baseUrlProblem(value, (v) => quoted(fail, key, v));
  if (problem) {
    fail(key, problem);
    return fallback;
  }
  return baseUrlOf(value);
}

export function audience(raw: RawConfig, key: ConfigKey, fail: Fail): string | undefined {
  const value = text(raw, key, fail);
  const problem = value === undefined ? undefined : tokenExchangeAudienceProblem(value);
  if (problem) fail(key, `${problem}, got ${quoted(fail, key, value)}`);
  return problem ? undefined : value;
}

export function integer(raw: RawConfig, key: ConfigKey, fallback: number, min: number, max: number, fail: Fail): number {
  const value = text(raw, key, fail);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    fail(key, `must be a whole number from ${min} to ${max}, got ${quoted(fail, key, value)}`);
    return fallback;
  }
  return number;
}
