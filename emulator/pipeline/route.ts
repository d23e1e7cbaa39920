import type { IncomingHttpHeaders } from "node:http";
import { authorizeRoute } from "../graph/auth";
import { graphErrorResponse } from "../graph/envelope";
import { GRAPH_ERRORS } from "../graph/errors";
import { matchRoute, Reply, type EmulatorContext, type EmulatorRequest, type EmulatorResponse, type MatchedRoute } from "../router";
import { ROUTES } from "../routes";
import type { AuthenticatedCaller } from "./authenticate";
import { readGraphPath } from "./graph-path";

/**
 * The route that serves the request, or the 404 (no such path) or 405 (no
 * such method) answer, in the shape of the surface the path belongs to. A
 * Graph path is matched as the path grammar reads it (graph-path.ts).
 */
export function findRoute(method: string, path: string, req: { headers: IncomingHttpHeaders }): MatchedRoute | { notServed: EmulatorResponse } {
  const graph = readGraphPath(path);
  const match = matchRoute(ROUTES, method, graph?.path ?? path, graph?.version);
  if (typeof match === "object") return match;
  const wrongMethod = match === "method";
  if (graph) {
    return { notServed: graphErrorResponse(req, wrongMethod ? GRAPH_ERRORS.methodNotServed(method, path) : GRAPH_ERRORS.segmentNotServed(path)) };
  }
  return { notServed: { status: wrongMethod ? 405 : 404, body: { error: "not_found", error_description: `The emulator does not serve ${method} ${path}.` } } };
}

/** The authorize and route stages: the route's operation checked against the caller, then its handler; a Reply thrown by either is the answer. */
export async function runRoute(match: MatchedRoute, request: EmulatorRequest, caller: AuthenticatedCaller, ctx: EmulatorContext): Promise<EmulatorResponse> {
  try {
    authorizeRoute(match.route, request, caller, ctx);
    return await match.route.handler(request, ctx);
  } catch (err) {
    if (!(err instanceof Reply)) throw err;
    return err.response;
  }
}
