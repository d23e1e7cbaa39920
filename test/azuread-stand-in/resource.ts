/**
 * What one azuread resource is to the stand-in: its Terraform schema's
 * behaviour for each input (ForceNew, Computed, a set or not, validation),
 * taken from its `*_resource.go`, and its Graph requests. The names are
 * azuread's SDK's; a rule for a name the SDK does not have is an error at
 * start, so the table cannot drift from the SDK unseen.
 */
import type { CheckFailure } from "@pulumi/pulumi/provider";
import type { Graph } from "./graph";
import { containsUnknown, reveal, type PropertyMap } from "./values";

export interface PropertyRule {
  /** A change replaces the resource (ForceNew). */
  forceNew?: boolean;
  /** The provider fills it in when the program leaves it out (Optional + Computed): leaving it out changes nothing. */
  computed?: boolean;
  /** A TypeSet: order does not count. */
  set?: boolean;
  /** The schema's Default, for a value left out. */
  default?: unknown;
  /** The schema's ValidateFunc, as the reason it refuses `value`, or undefined when it takes it. */
  validate?: (value: unknown, terraformName: string) => string | undefined;
}

/** Who an operation acts as, and the state it acts on. */
export interface Operation {
  graph: Graph;
  /** Now, for a relative end date. */
  now: () => number;
}

export interface ResourceKind {
  token: string;
  /** Every input azuread's schema has that the kit may set, by its Pulumi name. */
  rules: Readonly<Record<string, PropertyRule>>;
  /** Outputs that are secrets (the schema's Sensitive ones). */
  secretOutputs: readonly string[];
  create(op: Operation, inputs: PropertyMap): Promise<{ id: string; outs: PropertyMap }>;
  /** The state as Graph has it now, or undefined when the object is gone (the engine then drops it). */
  read(op: Operation, id: string, state: PropertyMap): Promise<PropertyMap | undefined>;
  /** Present when some input changes in place (no ForceNew). */
  update?(op: Operation, id: string, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap>;
  delete(op: Operation, id: string, state: PropertyMap): Promise<void>;
}

/** `applicationId` → `application_id`: how Terraform's messages name a property. */
export const terraformName = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Zero values Terraform's SDK does not tell from absence: "", false, 0, an empty list or map. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === false || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

function sameValue(a: unknown, b: unknown, rule: PropertyRule): boolean {
  if (isZero(a) && isZero(b)) return true;
  if (rule.set && Array.isArray(a) && Array.isArray(b)) {
    const key = (list: unknown[]) => [...new Set(list.map((v) => JSON.stringify(v)))].sort();
    return JSON.stringify(key(a)) === JSON.stringify(key(b));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface PlannedChange {
  changed: string[];
  replaces: string[];
}

/**
 * The plan Terraform makes from the program's inputs against the state:
 * an input left out keeps a computed value or its default; an unknown one is
 * a change; a change of a ForceNew input replaces.
 */
export function planChanges(rules: Readonly<Record<string, PropertyRule>>, olds: PropertyMap, news: PropertyMap): PlannedChange {
  const changed: string[] = [];
  for (const [name, rule] of Object.entries(rules)) {
    const given = news[name];
    if (given !== undefined && containsUnknown(given)) {
      changed.push(name);
      continue;
    }
    const wanted = given === undefined ? rule.default : reveal(given);
    if (wanted === undefined && rule.computed) continue;
    if (!sameValue(wanted, reveal(olds[name]), rule)) changed.push(name);
  }
  return { changed, replaces: changed.filter((name) => rules[name]!.forceNew) };
}

/** The inputs that break a rule: names azuread's schema lacks, and values its validation refuses. */
export function checkInputs(kind: ResourceKind, schemaInputs: ReadonlySet<string>, news: PropertyMap): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const name of Object.keys(news)) {
    // The engine's own keys (`__defaults` and the like) are no input of azuread's.
    if (name.startsWith("__")) continue;
    if (!schemaInputs.has(name)) {
      failures.push({ property: name, reason: `${kind.token} has no input ${JSON.stringify(name)} in azuread's schema (its inputs: ${[...schemaInputs].sort().join(", ")})` });
      continue;
    }
    const value = news[name];
    const reason = value === undefined || containsUnknown(value) ? undefined : kind.rules[name]?.validate?.(reveal(value), terraformName(name));
    if (reason) failures.push({ property: name, reason });
  }
  return failures;
}
