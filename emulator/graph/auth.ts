import type { JwtClaims } from "../../lib/jwt";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../../lib/entra-rules";
import { AGENT_ID_WRITE_BLOCKERS, GRAPH_OPERATIONS, holdsPermission, type GraphOperation, type OperationId } from "../../lib/graph-permissions";
import type { AuthenticatedCaller } from "../pipeline/authenticate";
import type { EmulatorContext, EmulatorRequest, Route } from "../router";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

/**
 * Bearer validation for the emulated Graph routes, in Graph's order: first
 * the token the pipeline authenticated (401 InvalidAuthenticationToken when
 * it is missing, not signed by this tenant, for another audience or out of
 * its lifetime), then whether it carries a permission the operation's row of
 * the permission table accepts (403).
 * Each route names its operation; `authorizeRoute` checks it once, before the
 * handler, as Azurite checks its authorization in one layer ahead of its
 * handlers. A permission that reaches only some objects (owners,
 * CreateAsManager) is checked by the handler, which knows the object
 * (directory-auth.ts `requireReach`).
 */

/** The file APIs answer a refusal with accessDenied; the directory APIs with Authorization_RequestDenied. */
const FILE_OPERATIONS: readonly OperationId[] = ["share.driveItem", "comments.list", "comments.replies"];

/** Graph's accepted audiences: its identifier URI (with or without a slash) or its appId. */
const GRAPH_AUDIENCES = new Set([PUBLIC_CLOUD.resourceUrl, `${PUBLIC_CLOUD.resourceUrl}/`, MICROSOFT_GRAPH_APP_ID]);

/** Graph tolerates this much clock skew on exp and nbf. */
const CLOCK_SKEW_S = 300;

/** What the token holds: its roles (an application) or its scopes (a user). */
export function heldBy(c: JwtClaims): string[] {
  if (c.idtyp === "user") return typeof c.scp === "string" ? c.scp.split(/\s+/) : [];
  return Array.isArray(c.roles) ? c.roles.map(String) : [];
}

/** The caller's verified claims, or a 401/403 Reply in Graph's envelope. */
function authorizeGraph(req: EmulatorRequest, caller: AuthenticatedCaller, ctx: EmulatorContext, id: OperationId): JwtClaims {
  if (caller.token === undefined) throw graphError(req, GRAPH_ERRORS.tokenEmpty());
  const c = caller.claims;
  if (!c) throw graphError(req, GRAPH_ERRORS.tokenUnverified());
  const audiences = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (!audiences.some((a) => typeof a === "string" && GRAPH_AUDIENCES.has(a))) {
    throw graphError(req, GRAPH_ERRORS.audienceInvalid(c.aud));
  }
  const now = Math.floor(ctx.store.now() / 1000);
  if (typeof c.exp !== "number" || c.exp + CLOCK_SKEW_S < now) throw graphError(req, GRAPH_ERRORS.tokenExpired());
  if (typeof c.nbf === "number" && c.nbf - CLOCK_SKEW_S > now) throw graphError(req, GRAPH_ERRORS.tokenNotYetValid());
  if (c.idtyp !== "user" && c.idtyp !== "app") throw graphError(req, GRAPH_ERRORS.tokenWithoutIdtyp());

  const op: GraphOperation = GRAPH_OPERATIONS[id];
  const code = FILE_OPERATIONS.includes(id) ? "accessDenied" : "Authorization_RequestDenied";
  const held = heldBy(c);
  const accepted = c.idtyp === "user" ? op.delegated : op.application;
  // Entra ignores the Agent ID permissions of a caller that also holds one of these (Agent ID known issues).
  const blocker = op.agentIdWrite ? AGENT_ID_WRITE_BLOCKERS.find((p) => held.includes(p)) : undefined;
  if (blocker) throw graphError(req, GRAPH_ERRORS.agentIdWriteBlocked(blocker, op.summary));
  if (accepted.length === 0) throw graphError(req, c.idtyp === "user" ? GRAPH_ERRORS.applicationOnly(code) : GRAPH_ERRORS.delegatedOnly(code));
  if (!holdsPermission(op, held, c.idtyp === "user" ? "delegated" : "application")) {
    throw graphError(req, c.idtyp === "user" ? GRAPH_ERRORS.scopesMissing(code, op.summary, accepted) : GRAPH_ERRORS.rolesMissing(code, op.summary, accepted));
  }
  return c;
}

/** The one check of a route's operation, before its handler, on the caller the pipeline authenticated; the caller's claims and the operation go on the request. */
export function authorizeRoute(route: Route, req: EmulatorRequest, caller: AuthenticatedCaller, ctx: EmulatorContext): void {
  if (!route.operation) return;
  req.callerClaims = authorizeGraph(req, caller, ctx, route.operation);
  req.operation = route.operation;
}

/** The claims `authorizeRoute` verified; a handler on a route without an operation has no caller. */
export function callerOf(req: EmulatorRequest): JwtClaims {
  if (!req.callerClaims) throw new Error(`[emulator] ${req.method} ${req.url.pathname} names no operation, so it has no verified caller`);
  return req.callerClaims;
}
