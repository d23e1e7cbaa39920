import type * as pulumi from "@pulumi/pulumi";
import { baseUrlOf, baseUrlProblem, displayNameProblem, isGuid, LIMITS, scopeValueProblem, upnProblem } from "../../lib/entra-rules";
import { PROVISIONER_SOURCES, type ExplicitProvisioner } from "../provisioner-credential";

/**
 * Entra's limits, for the providers' own check and hint functions. Those
 * functions travel as text through Pulumi's closure serializer, which makes a
 * module they name a `require` of its path in the installed package: a path
 * under dist/infra is exported for that, one under dist/lib is not. So they
 * name this module, never lib/entra-rules.ts itself.
 */
export { LIMITS };

/**
 * What Pulumi puts in place of a value not known yet (during preview): the
 * value of `pulumi.runtime.unknownValue`. Repeated here so provider code never
 * references the SDK, which would drag it into the serialized provider.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Inputs every Graph-backed dynamic resource carries. */
export interface GraphResourceInputs {
  /** Graph base URL, e.g. https://graph.microsoft.com; the emulator's for local work. */
  graphUrl: string;
  /** Identity provider base URL the provisioner's token comes from. */
  authorityUrl: string;
  /** How long a create waits for a parent object that has not replicated yet; 0 disables the wait. */
  consistencyWindowMs: number;
  /**
   * The package version that wrote this resource. A change is an in-place
   * update, so the state's serialized provider (which delete and refresh run)
   * is always the code of the current version.
   */
  providerVersion: string;
  /**
   * The settings of an explicit azuread provider the program gave the
   * component, which win over the stack's azuread: configuration and the
   * ARM_* variables; absent when it gave none. A Pulumi secret in the state.
   */
  provisioner?: ExplicitProvisioner;
}

/** A dynamic resource's constructor arguments: each input may be an Output. */
export type ResourceArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * Where and how the dynamic resources reach Graph, as the components hand it
 * to each of them: the inputs every Graph resource carries, so a field is
 * added in one place.
 */
export type ProvisioningSettings = ResourceArgs<GraphResourceInputs>;

export const COMMON_REPLACE_KEYS = ["graphUrl"] as const;
/** A new provisioner is an update in place: delete and refresh read it from the state, so the state keeps the current one. */
export const COMMON_UPDATE_KEYS = ["authorityUrl", "consistencyWindowMs", "providerVersion", "provisioner"] as const;

/** Two minutes, the longest replication lag commonly observed. */
export const DEFAULT_CONSISTENCY_WINDOW_MS = 120_000;
/** The longest replication wait a resource may ask for. */
export const MAX_CONSISTENCY_WINDOW_MS = 30 * 60_000;

/** Collects check failures; every rule skips a value Pulumi does not know yet. */
export class InputChecker {
  readonly failures: pulumi.dynamic.CheckFailure[];
  constructor(private readonly news: Record<string, unknown>) {
    // Assigned here, not as a field initializer: Pulumi's closure serializer drops class field initializers.
    this.failures = [];
  }

  private fail(property: string, reason: string): undefined {
    this.failures.push({ property, reason });
    return undefined;
  }

  private present(property: string): unknown {
    const value = this.news[property];
    return value === undefined || value === null || value === "" ? this.fail(property, "is required") : value;
  }

  text(property: string, maxLength: number): unknown {
    const value = this.present(property);
    if (value === undefined || value === UNKNOWN) return value;
    if (typeof value !== "string" || value.trim() !== value) return this.fail(property, "must be a string without leading or trailing spaces");
    if (value.length > maxLength) return this.fail(property, `is ${value.length} characters; at most ${maxLength} are allowed`);
    return value;
  }

  /** A display name: Entra's length, and no control character, by the stack config's own rule. */
  displayName(property: string): unknown {
    // The length is displayNameProblem's to judge, so both say the same.
    const value = this.text(property, Infinity);
    if (typeof value !== "string" || value === UNKNOWN) return value;
    const problem = displayNameProblem(value);
    return problem ? this.fail(property, problem) : value;
  }

  /** A UPN by Entra's username policy (lib/entra-rules.ts), as the stack config checks its two parts. */
  upn(property: string): unknown {
    const value = this.text(property, Infinity);
    if (typeof value !== "string" || value === UNKNOWN) return value;
    const problem = upnProblem(value);
    return problem ? this.fail(property, `must be local@domain by Entra's username policy: ${problem}`) : value;
  }

  guid(property: string): unknown {
    const value = this.present(property);
    if (value === undefined || value === UNKNOWN) return value;
    return isGuid(value) ? value.toLowerCase() : this.fail(property, "must be a GUID");
  }

  /** A non-empty set of GUIDs, returned lower-cased, unique and sorted so order never shows as a diff. */
  guidSet(property: string, maxSize: number): unknown {
    const value = this.present(property);
    if (value === undefined || value === UNKNOWN) return value;
    if (!Array.isArray(value) || value.length === 0) return this.fail(property, "must be a non-empty list of GUIDs");
    if (value.some((item) => item === UNKNOWN)) return value;
    if (!value.every(isGuid)) return this.fail(property, "must hold only GUIDs");
    const set = [...new Set(value.map((item: string) => item.toLowerCase()))].sort();
    return set.length > maxSize ? this.fail(property, `holds ${set.length} ids; at most ${maxSize} are allowed`) : set;
  }

  /** A list of GUIDs, possibly empty or absent, returned lower-cased, unique and sorted. */
  guidList(property: string): unknown {
    const value = this.news[property] ?? [];
    if (value === UNKNOWN) return value;
    if (!Array.isArray(value)) return this.fail(property, "must be a list of GUIDs");
    if (value.some((item) => item === UNKNOWN)) return value;
    if (!value.every(isGuid)) return this.fail(property, "must hold only GUIDs");
    return [...new Set(value.map((item: string) => item.toLowerCase()))].sort();
  }

  /** A delegated permission's value, by Entra's rule for permissionScope.value (lib/entra-rules.ts), as the stack config checks it. */
  scopeValue(property: string): unknown {
    // The length is scopeValueProblem's to judge, so both say the same.
    const value = this.text(property, Infinity);
    if (typeof value !== "string" || value === UNKNOWN) return value;
    const problem = scopeValueProblem(value);
    return problem ? this.fail(property, problem) : value;
  }

  url(property: string): unknown {
    const value = this.present(property);
    if (value === undefined || value === UNKNOWN) return value;
    const problem = baseUrlProblem(String(value));
    return problem ? this.fail(property, problem) : baseUrlOf(String(value));
  }

  /** The inputs every Graph resource shares, normalized, with defaults applied. */
  common(): Record<Exclude<keyof GraphResourceInputs, "provisioner">, unknown> & { provisioner?: unknown } {
    const windowMs = this.news.consistencyWindowMs ?? DEFAULT_CONSISTENCY_WINDOW_MS;
    const valid = windowMs === UNKNOWN || (Number.isInteger(windowMs) && (windowMs as number) >= 0 && (windowMs as number) <= MAX_CONSISTENCY_WINDOW_MS);
    if (!valid) this.fail("consistencyWindowMs", `must be a whole number of milliseconds from 0 to ${MAX_CONSISTENCY_WINDOW_MS}`);
    return {
      graphUrl: this.url("graphUrl"),
      authorityUrl: this.url("authorityUrl"),
      consistencyWindowMs: windowMs,
      providerVersion: this.text("providerVersion", 64),
      ...(this.news.provisioner === undefined ? {} : { provisioner: this.provisioner() }),
    };
  }

  /** The explicit provider's settings: string values under the setting names the kit reads; a value is never shown. */
  private provisioner(): unknown {
    const value = this.news.provisioner;
    if (value === UNKNOWN) return value;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return this.fail("provisioner", "must be an object of the azuread provider's settings");
    const known = Object.keys(PROVISIONER_SOURCES);
    for (const [key, setting] of Object.entries(value)) {
      if (!known.includes(key)) return this.fail("provisioner", `holds ${JSON.stringify(key)}, which is not one of the azuread provider's settings the kit reads (${known.join(", ")})`);
      if (typeof setting !== "string" && setting !== UNKNOWN) return this.fail("provisioner", `${key} must be a string`);
    }
    return value;
  }
}

/** The keys a resource adds to the common inputs: what its own checks and diff name. */
export type OwnKeys<T extends GraphResourceInputs> = Exclude<keyof T, keyof GraphResourceInputs> & string;

/**
 * A provider's check: the common inputs, then the resource's own (`specific`
 * reads each of them from the checker), with every failure found.
 */
export function checkInputs<T extends GraphResourceInputs>(
  news: T,
  specific: (c: InputChecker) => Record<OwnKeys<T>, unknown>,
): pulumi.dynamic.CheckResult<T> {
  const c = new InputChecker(news as unknown as Record<string, unknown>);
  const inputs = { ...c.common(), ...specific(c) };
  return { inputs: inputs as T, failures: c.failures };
}

/**
 * A stored base URL as check() now spells it: state written by an earlier
 * version may keep the URL as given (upper case, :443, a trailing slash), and
 * graphUrl replaces every object when it changes.
 */
function comparable(key: string, old: unknown): unknown {
  const isBaseUrl = key === "graphUrl" || key === "authorityUrl";
  return isBaseUrl && typeof old === "string" && URL.canParse(old) ? baseUrlOf(old) : old;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether a key's new value differs from the stored one (an unknown one may). */
function changedIn<T extends GraphResourceInputs>(olds: T, news: T): (key: keyof T & string) => boolean {
  return (key) => news[key] === UNKNOWN || !same(comparable(key, olds[key]), news[key]);
}

/** Which of a resource's own inputs replace the object when they change, and which update it in place. */
export interface DiffKeys<T extends GraphResourceInputs> {
  replace: readonly OwnKeys<T>[];
  update: readonly OwnKeys<T>[];
  deleteBeforeReplace?: boolean;
}

/**
 * Compares the old outputs with the new inputs, key by key. A change to a
 * `replace` key replaces the object; to an `update` key, updates it in place.
 */
export function diffKeys<T extends GraphResourceInputs>(olds: T, news: T, keys: DiffKeys<T>): pulumi.dynamic.DiffResult {
  const changed = changedIn(olds, news);
  const replaces = [...COMMON_REPLACE_KEYS, ...keys.replace].filter(changed);
  const updates = [...COMMON_UPDATE_KEYS, ...keys.update].filter(changed);
  return {
    changes: replaces.length + updates.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && keys.deleteBeforeReplace === true,
  };
}

/**
 * The stored outputs with the new inputs: a common input the program no
 * longer gives (an explicit provider's settings) leaves the state too, so
 * delete and refresh do not read settings the program dropped.
 */
export function withCommonInputs<T extends GraphResourceInputs, O extends T>(olds: O, news: T): O {
  const outs = { ...olds, ...news };
  if (news.provisioner === undefined) delete outs.provisioner;
  return outs;
}

/**
 * Whether an update changes the object in Graph: one of the resource's own
 * update keys changed. A change of the common ones alone (the provider
 * version, the provisioner's settings, the window) is the state's only.
 */
export function changesGraph<T extends GraphResourceInputs>(olds: T, news: T, keys: DiffKeys<T>): boolean {
  return keys.update.some(changedIn(olds, news));
}

