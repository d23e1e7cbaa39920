import type { EmulatorRequest, EmulatorResponse } from "../router";
import { graphError, graphOk } from "./envelope";
import { GRAPH_ERRORS, type GraphErrorSpec } from "./errors";

/**
 * The OData slice the directory routes understand: `$filter` with `eq`
 * clauses joined by `and` (and `any` on a collection, such as
 * `tags/any(t:t eq '...')` or `servicePrincipalNames/any(n:n eq '...')`), `$select`, `$top`
 * and paging (request bodies: request-body.ts). Anything else is refused with 400, so
 * a client that starts sending a query the emulator would silently ignore
 * finds out at once.
 */

const SUPPORTED_OPTIONS: readonly string[] = ["$filter", "$select", "$top", "$skiptoken"];
const DEFAULT_PAGE_SIZE = 100;
const MAX_TOP = 999;

/** One `$filter` clause: `property eq 'value'`, or `property/any(x:x eq 'value')` on a collection. */
export interface FilterClause {
  property: string;
  value: string;
  any: boolean;
}

const LITERAL = "'((?:[^']|'')*)'";
const EQ = new RegExp(`^([A-Za-z]+)\\s+eq\\s+${LITERAL}`);
const ANY = new RegExp(`^([A-Za-z]+)/any\\(\\s*([A-Za-z]\\w*)\\s*:\\s*\\2\\s+eq\\s+${LITERAL}\\s*\\)`);

function refuseOptions(req: EmulatorRequest): void {
  for (const name of req.url.searchParams.keys()) {
    if (name.startsWith("$") && !SUPPORTED_OPTIONS.includes(name)) {
      throw graphError(req, GRAPH_ERRORS.queryOptionNotServed(name));
    }
  }
}

/**
 * The `$filter` clauses, each on one of `filterable` (`eq`) or of
 * `collections` (`any`); all must hold. A collection compared with `eq`, or a
 * single value with `any`, is refused as Graph refuses it.
 */
export function parseFilter(req: EmulatorRequest, filterable: readonly string[], collections: readonly string[] = []): FilterClause[] {
  refuseOptions(req);
  let rest = (req.url.searchParams.get("$filter") ?? "").trim();
  const clauses: FilterClause[] = [];
  while (rest !== "") {
    const any = ANY.exec(rest);
    const eq = any ? null : EQ.exec(rest);
    const m = any ?? eq;
    if (!m) throw graphError(req, GRAPH_ERRORS.filterClauseInvalid(rest));
    const clause = { property: m[1]!, value: (any ? m[3]! : m[2]!).replace(/''/g, "'"), any: any !== null };
    if (!(clause.any ? collections : filterable).includes(clause.property)) throw graphError(req, GRAPH_ERRORS.filterPropertyUnsupported(clause.property));
    clauses.push(clause);
    rest = rest.slice(m[0].length).trim();
    if (rest === "") break;
    const and = /^and\s+/i.exec(rest);
    if (!and) throw graphError(req, GRAPH_ERRORS.filterAndExpected(rest));
    rest = rest.slice(and[0].length);
  }
  return clauses;
}

const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();

/** Whether a served object satisfies every clause; string comparison ignores case, as the directory's does. */
export function matches(view: Record<string, unknown>, clauses: readonly FilterClause[]): boolean {
  return clauses.every((c) => {
    const value = view[c.property];
    return c.any ? Array.isArray(value) && value.some((item) => same(item, c.value)) : same(value, c.value);
  });
}

/** The `@odata.context` of an answer: the metadata document of the version the URL names, and the fragment. */
export function metadataUrl(req: EmulatorRequest, fragment: string): string {
  return `${req.origin}/${req.version ?? "v1.0"}/$metadata#${fragment}`;
}

/**
 * The object as `$select` asks for it; a property the type does not have is
 * a 400, as at Graph. `*` selects every property the object holds (OData
 * URL conventions, "System Query Option $select"; Entra PowerShell's
 * Get-EntraUserSponsor sends `$select=*`).
 */
function selected(req: EmulatorRequest, view: Record<string, unknown>, typeName: string, defaults?: readonly string[]): Record<string, unknown> {
  const select = req.url.searchParams.get("$select");
  // An instance of a type derived from the one the URL declares names its type, whatever is selected.
  const derived = "@odata.type" in view && view["@odata.type"] !== `#${typeName}`;
  const out: Record<string, unknown> = derived ? { "@odata.type": view["@odata.type"] } : {};
  if (!select) {
    if (!defaults) return view;
    for (const name of defaults) out[name] = view[name];
    return out;
  }
  for (const name of select.split(",").map((s) => s.trim())) {
    if (name === "*") return { ...view, ...out };
    if (!(name in view)) throw graphError(req, GRAPH_ERRORS.selectUnknown(name, typeName));
    out[name] = view[name];
  }
  return out;
}

/**
 * One page of a collection, with `$select` applied. The nextLink is absolute,
 * keeps the query, and its `$skiptoken` is an offset (opaque to clients).
 */
export function collection(req: EmulatorRequest, views: ReadonlyArray<Record<string, unknown>>, typeName: string, context: string): EmulatorResponse {
  refuseOptions(req);
  const topText = req.url.searchParams.get("$top");
  const top = topText === null ? DEFAULT_PAGE_SIZE : Number(topText);
  if (!Number.isInteger(top) || top < 1 || top > MAX_TOP) throw graphError(req, GRAPH_ERRORS.topOutOfRange(topText, MAX_TOP));
  const skip = Number(req.url.searchParams.get("$skiptoken") ?? "0");
  if (!Number.isInteger(skip) || skip < 0) throw graphError(req, GRAPH_ERRORS.skipTokenInvalid());
  const value = views.slice(skip, skip + top).map((v) => selected(req, v, typeName));
  const body: Record<string, unknown> = { "@odata.context": metadataUrl(req, context), value };
  if (skip + top < views.length) {
    const next = new URLSearchParams(req.url.searchParams);
    next.set("$skiptoken", String(skip + top));
    body["@odata.nextLink"] = `${req.origin}${req.url.pathname}?${next.toString()}`;
  }
  return graphOk(body, req.headers);
}

/** One object, with `$select` applied; without it, the type's documented default property set if it has one. */
export function entity(req: EmulatorRequest, view: Record<string, unknown>, typeName: string, context: string, defaults?: readonly string[]): EmulatorResponse {
  refuseOptions(req);
  return graphOk({ "@odata.context": metadataUrl(req, `${context}/$entity`), ...selected(req, view, typeName, defaults) }, req.headers);
}

/** A required string property of a body. */
export function requiredString(req: EmulatorRequest, body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== "string" || value.trim() === "") {
    throw graphError(req, GRAPH_ERRORS.requiredString(name));
  }
  return value;
}

/** A required string of at most `max` characters; a longer one is refused with the surface's own error. */
export function boundedString(req: EmulatorRequest, body: Record<string, unknown>, name: string, max: number, tooLong: (length: number) => GraphErrorSpec): string {
  const value = requiredString(req, body, name);
  if (value.length > max) throw graphError(req, tooLong(value.length));
  return value;
}
