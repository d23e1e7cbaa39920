/**
 * The shape of a recorded request sequence: the Graph calls one of
 * Microsoft's Agent ID tools (or one of Microsoft's pages) makes, in order,
 * each with the file and commit it was read from and the answer the Graph
 * reference documents for it. Facts only: the tools' code is not here, only
 * the method, path, headers and body each one sends.
 *
 * Strings may hold `{name}` placeholders: a value the run provides (the
 * tenant's `{sponsorId}`, `{domain}` and `{tenantId}`, a `{newGuid}` made for
 * each use, a `{nextYear}` timestamp) or one an earlier step kept from its
 * answer.
 */

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** Who makes a step's call. */
export type Caller =
  /** A signed-in user (the tenant's sponsor, Ada) with the delegated scopes the sequence names: what Connect-MgGraph or an interactive sign-in gives the tool. */
  | "user"
  /** The blueprint itself with an application token holding the sequence's `blueprintRoles`: what a tool's "connect as the blueprint" gives. */
  | "blueprint";

export interface Expectation {
  status: number;
  /** Properties the answer's body holds with these values (placeholders filled); an object or a list of objects in it is matched on the keys it names. */
  body?: Record<string, unknown>;
  /** Properties the answer's body holds, whatever their value. */
  has?: readonly string[];
  /** For a collection: how many entries `value` holds. */
  count?: number;
  /** The reference page the status and shape come from. */
  reference: string;
}

export interface Step {
  /** What the tool does with the call. */
  does: string;
  /** Repository path@commit (and lines) the request is read from, or the page that shows it. */
  source: string;
  method: Method;
  /** Path and query as sent (a relative Invoke-MgGraphRequest URI resolves under https://graph.microsoft.com/). */
  path: string;
  /** Headers the tool sets besides Authorization. */
  headers?: Record<string, string>;
  body?: unknown;
  /** Defaults to "user". */
  as?: Caller;
  expect: Expectation;
  /** Values to keep from the answer's body for later steps: placeholder name → property name. */
  keep?: Record<string, string>;
}

export interface Sequence {
  tool: string;
  /** The flow, as the tool names it. */
  name: string;
  /** The delegated scopes the tool asks for, and where it asks. */
  scopes: readonly string[];
  scopesSource: string;
  /** Application permissions of the blueprint's own token, for steps made as the blueprint. */
  blueprintRoles?: readonly string[];
  steps: readonly Step[];
}

/** The headers Invoke-MgGraphRequest sends with a JSON body (Microsoft.Graph.Authentication): no OData-Version. */
export const POWERSHELL_JSON = { "Content-Type": "application/json" } as const;
