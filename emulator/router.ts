import type { IncomingHttpHeaders } from "node:http";
import type { JwtClaims } from "../lib/jwt";
import type { Faults } from "./faults";
import type { OperationId } from "../lib/graph-permissions";
import type { GraphVersion } from "./pipeline/graph-path";
import type { SigningKey } from "./signing-key";
import type { TenantStore } from "./store";

/** Which surface a route belongs to, for faults and for counting requests. */
export type Surface = "token" | "graph" | "other";

export interface EmulatorRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  /** Named groups of the route's pattern, URI-decoded. */
  params: Record<string, string>;
  /** scheme://host:port the client used, e.g. for a token endpoint URL or an @odata.nextLink. */
  origin: string;
  /** The Graph API version the URL names, for a Graph route (pipeline/graph-path.ts). */
  version?: GraphVersion;
  /** The verified claims of the caller, on a route that names a Graph operation. */
  callerClaims?: JwtClaims;
  /** The Graph operation the caller was authorized for. */
  operation?: OperationId;
}

export interface EmulatorResponse {
  status: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless it is a string. */
  body?: unknown;
}

export interface EmulatorContext {
  store: TenantStore;
  key: SigningKey;
  faults: Faults;
  /** Every origin this emulator answers on; tokens name one of them as issuer. */
  origins: readonly string[];
}

export type Handler = (req: EmulatorRequest, ctx: EmulatorContext) => EmulatorResponse | Promise<EmulatorResponse>;

export interface Route {
  method: string;
  /** Matched on the URL path; for a Graph route, on the canonical path without the version (pipeline/graph-path.ts). */
  pattern: RegExp;
  surface: Surface;
  /** The Graph versions that serve the route, where the reference documents only one; both when absent. */
  versions?: readonly GraphVersion[];
  /**
   * The Graph operation the route serves: its row of the permission table
   * (lib/graph-operations.json) says what a caller must hold, checked before the
   * handler runs (graph/auth.ts `authorizeRoute`).
   */
  operation?: OperationId;
  handler: Handler;
}

/** Thrown by validation at the edge to answer at once with an error response. */
export class Reply extends Error {
  constructor(readonly response: EmulatorResponse) {
    super(`HTTP ${response.status}`);
  }
}

export interface MatchedRoute {
  route: Route;
  params: Record<string, string>;
  /** The Graph version of a Graph route's URL. */
  version?: GraphVersion;
}

/** A path segment, URI-decoded; a malformed escape (e.g. `%ZZ`) is kept as sent, so the handler answers "not found", never a 500. */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The route serving `method` on `path`, "method" when only another method is
 * served there. A Graph route matches a Graph path (one with a version) of a
 * version it serves; every other route, a path outside Graph.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string, version?: GraphVersion): MatchedRoute | "method" | undefined {
  let pathMatched = false;
  for (const route of routes) {
    if ((route.surface === "graph") !== (version !== undefined)) continue;
    if (version !== undefined && route.versions && !route.versions.includes(version)) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.groups ?? {})) if (v !== undefined) params[k] = decodeParam(v);
    return { route, params, ...(version ? { version } : {}) };
  }
  return pathMatched ? "method" : undefined;
}
