import type { JwtClaims } from "../../lib/jwt";
import type { EmulatorContext, EmulatorRequest, Route } from "../router";
import { GRAPH_APP_ID, GRAPH_RESOURCE } from "../store";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

/**
 * Bearer validation for the emulated Graph routes, in Graph's order: first
 * the token itself (401 InvalidAuthenticationToken), then whether it carries
 * a permission the route accepts (403). Each route declares its permission;
 * `authorizeRoute` checks it once, before the handler, as Azurite checks its
 * authorization in one layer ahead of its handlers.
 */

/** What a route accepts; a token kind with no list is refused. */
export interface GraphPermission {
  /** Delegated scopes: a user token (idtyp=user) needs one of them in `scp`. */
  delegated?: readonly string[];
  /** Application permissions: an app token (idtyp=app) needs one of them in `roles`. */
  application?: readonly string[];
  /** Delegated scopes that get a user token refused whatever else it holds (reference section 3: Directory.AccessAsUser.All on Agent ID writes). */
  refusedScopes?: readonly string[];
  /** Graph's 403 code for this API: directory APIs answer Authorization_RequestDenied; the default is the file APIs' accessDenied. */
  deniedCode?: string;
}

/** Graph's accepted audiences: its identifier URI (with or without a slash) or its appId. */
const GRAPH_AUDIENCES = new Set([GRAPH_RESOURCE, `${GRAPH_RESOURCE}/`, GRAPH_APP_ID]);

/** Graph tolerates this much clock skew on exp and nbf. */
const CLOCK_SKEW_S = 300;

function bearer(req: EmulatorRequest): string {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ""));
  if (!m) throw graphError(req, GRAPH_ERRORS.tokenEmpty());
  return m[1]!;
}

/** The caller's verified claims, or a 401/403 Reply in Graph's envelope. */
function authorizeGraph(req: EmulatorRequest, ctx: EmulatorContext, permission: GraphPermission): JwtClaims {
  const jwt = ctx.key.verify(bearer(req));
  if (!jwt) throw graphError(req, GRAPH_ERRORS.tokenUnverified());
  const c = jwt.claims;
  const audiences = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (!audiences.some((a) => typeof a === "string" && GRAPH_AUDIENCES.has(a))) {
    throw graphError(req, GRAPH_ERRORS.audienceInvalid(c.aud));
  }
  const now = Math.floor(ctx.store.now() / 1000);
  if (typeof c.exp !== "number" || c.exp + CLOCK_SKEW_S < now) throw graphError(req, GRAPH_ERRORS.tokenExpired());
  if (typeof c.nbf === "number" && c.nbf - CLOCK_SKEW_S > now) throw graphError(req, GRAPH_ERRORS.tokenNotYetValid());

  const code = permission.deniedCode ?? "accessDenied";
  if (c.idtyp === "user") {
    const scopes = typeof c.scp === "string" ? c.scp.split(/\s+/) : [];
    const refused = permission.refusedScopes?.find((s) => scopes.includes(s));
    if (refused) throw graphError(req, GRAPH_ERRORS.scopeRefused(code, refused));
    if (!permission.delegated?.some((s) => scopes.includes(s))) {
      throw graphError(req, permission.delegated ? GRAPH_ERRORS.scopesMissing(code, permission.delegated) : GRAPH_ERRORS.applicationOnly(code));
    }
    return c;
  }
  if (c.idtyp === "app") {
    const roles = Array.isArray(c.roles) ? c.roles : [];
    if (!permission.application?.some((r) => roles.includes(r))) {
      throw graphError(req, permission.application ? GRAPH_ERRORS.rolesMissing(code, permission.application) : GRAPH_ERRORS.delegatedOnly(code));
    }
    return c;
  }
  throw graphError(req, GRAPH_ERRORS.tokenWithoutIdtyp());
}

/** The one check of a route's declared permission, before its handler; the caller's claims go on the request. */
export function authorizeRoute(route: Route, req: EmulatorRequest, ctx: EmulatorContext): void {
  if (!route.permission) return;
  req.caller = authorizeGraph(req, ctx, typeof route.permission === "function" ? route.permission(req, ctx) : route.permission);
}

/** The claims `authorizeRoute` verified; a handler on a route without a permission has no caller. */
export function callerOf(req: EmulatorRequest): JwtClaims {
  if (!req.caller) throw new Error(`[emulator] ${req.method} ${req.url.pathname} declares no permission, so it has no verified caller`);
  return req.caller;
}
