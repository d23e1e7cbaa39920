import { isObject } from "../../lib/json-value";
import { namesType } from "../pipeline/graph-path";
import type { EmulatorRequest } from "../router";
import type { TypeModel, ValueKind } from "./agent-id-types";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

/**
 * The JSON bodies of the emulated Graph. Property names are matched without
 * regard to case, and served under Graph's own spelling: "Assume ... request
 * body parameters, including any API property names and values, are not
 * case-sensitive" (microsoftgraph/microsoft-graph-docs-contrib
 * concepts/traverse-the-graph.md@013aa22e); Entra PowerShell and
 * MSIdentityTools send `AgentIdentityBlueprintId`. Two names that differ
 * only in case are one property given twice, refused. Annotations
 * (`@odata.type`, `sponsors@odata.bind`) are matched the same way.
 */

function parsed(req: EmulatorRequest): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(req.body);
  } catch {
    throw graphError(req, GRAPH_ERRORS.unreadableJson());
  }
  if (!isObject(body)) throw graphError(req, GRAPH_ERRORS.bodyNotObject());
  return body as Record<string, unknown>;
}

/** Each key of the body under the name of `names` it spells (the key itself when none), refusing a name given twice. */
function canonicalKeys(req: EmulatorRequest, body: Record<string, unknown>, names: readonly string[]): Array<[string, unknown, boolean]> {
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  const seen = new Set<string>();
  return Object.entries(body).map(([key, value]) => {
    const name = byLower.get(key.toLowerCase());
    if (seen.has((name ?? key).toLowerCase())) throw graphError(req, GRAPH_ERRORS.propertyTwice(name ?? key));
    seen.add((name ?? key).toLowerCase());
    return [name ?? key, value, name !== undefined];
  });
}

/** The JSON object a POST or PATCH carries, under Graph's spelling; only `allowed` properties may appear. */
export function jsonBody(req: EmulatorRequest, allowed: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value, known] of canonicalKeys(req, parsed(req), allowed)) {
    if (!known) throw graphError(req, GRAPH_ERRORS.undeclaredProperty(name));
    out[name] = value;
  }
  return out;
}

const KIND_CHECKS: Record<ValueKind, (v: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  strings: (v) => Array.isArray(v) && v.every((s) => typeof s === "string"),
  boolean: (v) => typeof v === "boolean",
  object: (v) => isObject(v),
  objects: (v) => Array.isArray(v) && v.every(isObject),
};

/** A body of one of the Agent ID types: its documented properties, checked, and (on an open type) any others. */
export interface TypedBody {
  /** Documented properties and the annotations allowed, under Graph's spelling. */
  values: Record<string, unknown>;
  /** Properties no page documents, kept as sent on an open type. */
  dynamic: Record<string, unknown>;
}

/**
 * A create (`create`) or update body of `model`'s type (of the object
 * `ownId`, on an update): a read-only or
 * refused property is refused as Graph refuses it, a documented one must
 * hold the JSON its page gives (or null, which leaves it unset), and
 * a property no page documents is kept on an open type and refused on any
 * other, with Graph's "does not exist as a declared property" answer.
 */
export function typedBody(req: EmulatorRequest, model: TypeModel, annotations: readonly string[], create: boolean, ownId?: string): TypedBody {
  const names = [...Object.keys(model.writable), ...model.readOnly, ...Object.keys(model.refused ?? {}), ...annotations];
  const out: TypedBody = { values: {}, dynamic: {} };
  for (const [name, value, known] of canonicalKeys(req, parsed(req), names)) {
    // An update may repeat the object's own id, as HashiCorp's Graph client does on every PATCH.
    if (name === "id" && ownId !== undefined && typeof value === "string" && value.toLowerCase() === ownId) continue;
    if (!known) {
      if (!model.open || name.includes("@")) throw graphError(req, GRAPH_ERRORS.undeclaredProperty(name));
      out.dynamic[name] = value;
    } else if (model.readOnly.includes(name) || (!create && model.createOnly?.includes(name))) {
      throw graphError(req, GRAPH_ERRORS.readOnlyProperty(name));
    } else if (model.refused?.[name] !== undefined) {
      throw graphError(req, GRAPH_ERRORS.propertyRefused(model.refused[name]!));
    } else {
      const kind = model.writable[name];
      if (kind && value !== null && !KIND_CHECKS[kind](value)) throw graphError(req, GRAPH_ERRORS.propertyValueInvalid(name, kind));
      out.values[name] = value;
    }
  }
  return out;
}

/**
 * The properties a typed body sets besides the ones the store keeps in
 * fields of their own (`apart`), merged over `current`: null leaves a
 * property unset, and an open type's undocumented ones are kept as sent.
 */
export function mergeProperties(body: TypedBody, apart: readonly string[], current: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...current };
  for (const [name, value] of Object.entries({ ...body.values, ...body.dynamic })) {
    if (name.includes("@") || apart.includes(name)) continue;
    if (value === null) delete out[name];
    else out[name] = value;
  }
  return out;
}

/**
 * A body's `@odata.type`: the types are open, so a body may name its own
 * type (Entra's how-to sends it), never another one; `required` when the
 * page says the body must carry it (an agentUser PATCH). The type is read as
 * the path grammar reads a cast: with or without `#`, the namespace or its
 * `graph` alias, in any case (`Microsoft.Graph.AgentIdentityBlueprint`, the
 * how-to's and the Agent 365 CLI's spelling).
 */
export function odataType(req: EmulatorRequest, given: unknown, type: string, required = false): void {
  if (given === undefined) {
    if (required) throw graphError(req, GRAPH_ERRORS.odataTypeMissing(type));
    return;
  }
  if (typeof given !== "string" || !namesType(given, type)) throw graphError(req, GRAPH_ERRORS.odataTypeMismatch(given, type));
}

/** Whether the request carries `OData-Version: 4.0`. */
export function hasODataVersion(req: EmulatorRequest): boolean {
  return String(req.headers["odata-version"] ?? "").trim() === "4.0";
}
