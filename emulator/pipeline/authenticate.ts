import type { IncomingHttpHeaders } from "node:http";
import type { JwtClaims } from "../../lib/jwt";
import type { SigningKey } from "../signing-key";

/**
 * Who a Graph request says it is, read once: the rate limiter charges it and
 * the authorizer judges it, so each token's signature is verified once.
 */
export interface AuthenticatedCaller {
  /** The bearer token; absent when the Authorization header carries none. */
  token?: string;
  /**
   * The claims of a token this emulator signed; absent for any other. Only the
   * signature is checked here: audience, lifetime and permissions are the
   * authorizer's (graph/auth.ts), which answers Graph's 401 or 403.
   */
  claims?: JwtClaims;
}

/** The request's bearer token, and its claims when this emulator's key signed it. */
export function authenticate(headers: IncomingHttpHeaders, key: SigningKey): AuthenticatedCaller {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
  if (!bearer) return {};
  const token = bearer[1]!;
  return { token, claims: key.verify(token)?.claims };
}

/** The calling application's appId, lower-cased: azp in v2 tokens, appid in v1 ones. */
export function appIdOf(claims: JwtClaims): string | undefined {
  const id = typeof claims.azp === "string" ? claims.azp : claims.appid;
  return typeof id === "string" ? id.toLowerCase() : undefined;
}
