import { createHash, randomBytes } from "node:crypto";
import type { JwtClaims } from "../../lib/jwt";
import type { ServicePrincipal, User } from "../store";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD, TOKEN_EXCHANGE_APP_ID } from "../../lib/entra-rules";

/**
 * Claim sets of the tokens Entra issues in the agent-user flow, as decoded
 * from real tokens. Pure functions: the endpoint
 * decides what to mint, these decide what it looks like.
 */

/** Lifetimes observed on real tokens; clients must trust expires_in, never assume 3600. */
export const LIFETIME_S = { exchange: 65 * 60, user: 69 * 60, app: 60 * 60 + 11 * 60, idToken: 60 * 60 } as const;

/** The facet values seen on agent tokens: 11 marks the agent identity, 13 the agent user. */
export const FACETS = { agentIdentity: "3 11", agentUser: "3 13" } as const;

/** When a token is valid, and its identity: every token Entra issues has its own `uti`, so two are never equal. */
export interface TokenTimes {
  iat: number;
  nbf: number;
  exp: number;
  uti: string;
}

export function times(nowMs: number, lifetimeS: number): TokenTimes {
  const iat = Math.floor(nowMs / 1000);
  return { iat, nbf: iat, exp: iat + lifetimeS, uti: randomBytes(16).toString("base64url") };
}

export const v2Issuer = (origin: string, tenantId: string) => `${origin}/${tenantId}/v2.0`;
const v1Issuer = (tenantId: string) => `https://sts.windows.net/${tenantId}/`;

function guidB64url(guid: string): string {
  return Buffer.from(guid.replace(/-/g, ""), "hex").toString("base64url");
}

/** T1's subject binds it to one agent identity: the last segment is the fmi_path. */
export function exchangeSubject(tenantId: string, blueprintAppId: string, fmiPath: string): string {
  return `/eid1/c/pub/t/${guidB64url(tenantId)}/a/${guidB64url(blueprintAppId)}/${fmiPath}`;
}

/** The agent identity id a T1 was minted for, or undefined if it is not a T1. */
export function exchangeSubjectTarget(sub: unknown): string | undefined {
  if (typeof sub !== "string" || !sub.startsWith("/eid1/")) return undefined;
  return sub.split("/").pop() || undefined;
}

export function blueprintExchangeClaims(
  origin: string,
  tenantId: string,
  blueprintAppId: string,
  blueprintPrincipalId: string,
  fmiPath: string,
  t: TokenTimes,
): JwtClaims {
  return {
    aud: TOKEN_EXCHANGE_APP_ID,
    iss: v2Issuer(origin, tenantId),
    ...t,
    azp: blueprintAppId,
    azpacr: "1",
    idtyp: "app",
    oid: blueprintPrincipalId,
    sub: exchangeSubject(tenantId, blueprintAppId, fmiPath),
    tid: tenantId,
    ver: "2.0",
  };
}

export function identityExchangeClaims(origin: string, tenantId: string, identity: ServicePrincipal, t: TokenTimes): JwtClaims {
  return {
    aud: TOKEN_EXCHANGE_APP_ID,
    iss: v2Issuer(origin, tenantId),
    ...t,
    azp: identity.id,
    azpacr: "2",
    idtyp: "app",
    oid: identity.id,
    sub: identity.id,
    tid: tenantId,
    ver: "2.0",
    xms_par_app_azp: identity.agentIdentityBlueprintId,
    xms_act_fct: FACETS.agentIdentity,
    xms_sub_fct: FACETS.agentIdentity,
  };
}

/** Graph takes v1 tokens (aud https://graph.microsoft.com); other resources v2 ones. */
export function audienceFields(origin: string, tenantId: string, resource: ServicePrincipal, clientId: string) {
  return resource.appId === MICROSOFT_GRAPH_APP_ID
    ? { aud: PUBLIC_CLOUD.resourceUrl, iss: v1Issuer(tenantId), appid: clientId, ver: "1.0" }
    : { aud: resource.appId, iss: v2Issuer(origin, tenantId), azp: clientId, ver: "2.0" };
}

export function appClaims(origin: string, tenantId: string, client: ServicePrincipal, resource: ServicePrincipal, t: TokenTimes): JwtClaims {
  const roles = resource.appId === MICROSOFT_GRAPH_APP_ID ? client.graphAppRoles : [];
  return {
    ...audienceFields(origin, tenantId, resource, client.appId),
    ...t,
    idtyp: "app",
    oid: client.id,
    sub: client.id,
    tid: tenantId,
    ...(roles.length > 0 ? { roles: [...roles] } : {}),
  };
}

/** Entra's `sub` is pairwise: one value per (user, client), never the object id. */
export function pairwiseSubject(user: User, client: ServicePrincipal): string {
  return createHash("sha256").update(`${user.id}:${client.id}`).digest("base64url").slice(0, 43);
}

export function agentUserClaims(
  origin: string,
  tenantId: string,
  identity: ServicePrincipal,
  user: User,
  resource: ServicePrincipal,
  scopes: readonly string[],
  t: TokenTimes,
): JwtClaims {
  return {
    ...audienceFields(origin, tenantId, resource, identity.id),
    ...t,
    idtyp: "user",
    oid: user.id,
    sub: pairwiseSubject(user, identity),
    tid: tenantId,
    upn: user.userPrincipalName,
    unique_name: user.userPrincipalName,
    name: user.displayName,
    scp: [...scopes, "openid", "profile", "email"].join(" "),
    xms_par_app_azp: identity.agentIdentityBlueprintId,
    xms_act_fct: FACETS.agentIdentity,
    xms_sub_fct: FACETS.agentUser,
    // agent-token-claims, "acts autonomously via agent user": 1, a member user.
    xms_idrel: "1",
  };
}

/**
 * The v2.0 ID token of the agent user, for its agent identity, when `openid` is
 * asked: claims as "ID token claims reference" (entra-docs identity-platform/
 * id-token-claims-reference.md) lists them: `sub` pairwise as in the access
 * token; `oid`, `name` and `preferred_username` only with the `profile` scope
 * (`email` would come with `email`, but the emulator's users have no mail).
 * The default ID token lifetime is one hour
 * ("Configurable token lifetimes", identity-platform/configurable-token-lifetimes.md).
 */
export function agentUserIdTokenClaims(
  origin: string,
  tenantId: string,
  identity: ServicePrincipal,
  user: User,
  oidc: ReadonlySet<string>,
  t: TokenTimes,
): JwtClaims {
  return {
    aud: identity.id,
    iss: v2Issuer(origin, tenantId),
    ...t,
    sub: pairwiseSubject(user, identity),
    tid: tenantId,
    ver: "2.0",
    ...(oidc.has("profile") ? { oid: user.id, name: user.displayName, preferred_username: user.userPrincipalName } : {}),
  };
}

/**
 * `client_info`, sent when the request has `client_info=1`: base64url JSON
 * `{uid, utid}`, the user's object id and tenant id, from which MSAL builds the
 * account's home id (msal-common account/ClientInfo.ts `buildClientInfo`).
 */
export function clientInfo(userId: string, tenantId: string): string {
  return Buffer.from(JSON.stringify({ uid: userId, utid: tenantId })).toString("base64url");
}
