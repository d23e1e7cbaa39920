import type { JwtClaims } from "../../lib/jwt";
import type { ServicePrincipal, TenantStore, User } from "../store";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { agentUserClaims, audienceFields, FACETS, pairwiseSubject, v2Issuer, type TokenTimes } from "./claims";

/**
 * Claim sets of the two flows beside the agent user's, as Entra's
 * "Token claims reference for agents" (entra-docs agent-id/agent-token-claims.md)
 * lists them per scenario: the agent identity acting autonomously (an app
 * token: `idtyp` app, `oid` the agent identity, `roles`, `xms_idrel` 7, the
 * facets 11), acting for a human user (a delegated token: `idtyp` user, `oid`
 * the user, `scp`, `xms_idrel` 1, `xms_act_fct` 11); and the token a person's
 * client gets for the blueprint's API, which the second flow takes as its
 * assertion. `xms_par_app_azp`, "the parent application of the authorized
 * party", is the blueprint in both agent tokens.
 */

/** `xms_idrel` values (agent-token-claims, "xms_idrel"): a member user, a service principal. */
const IDREL = { memberUser: "1", servicePrincipal: "7" } as const;

/**
 * The values of the app roles a principal holds on a resource, as the token
 * endpoint sees them: assignments that have replicated, of roles the resource
 * still publishes enabled; and, for Graph, the roles a seeded principal holds
 * outright (graphAppRoles).
 */
function assignedRoles(store: TenantStore, principal: ServicePrincipal, resource: ServicePrincipal): string[] {
  const published = new Map((resource.appRoles ?? []).filter((r) => r.isEnabled).map((r) => [r.id, r.value]));
  const assigned = store.appRoleAssignments
    .of("principalId", principal.id)
    .filter((a) => a.resourceId === resource.id && store.replicated(a.createdAt))
    .map((a) => published.get(a.appRoleId))
    .filter((value): value is string => value !== undefined);
  const seeded = resource.appId === MICROSOFT_GRAPH_APP_ID ? principal.graphAppRoles : [];
  return [...new Set([...seeded, ...assigned])];
}

/** The agent identity's own app token for `resource` (the autonomous app flow). */
export function agentAppClaims(origin: string, store: TenantStore, identity: ServicePrincipal, resource: ServicePrincipal, t: TokenTimes): JwtClaims {
  const roles = assignedRoles(store, identity, resource);
  return {
    ...audienceFields(origin, store.tenantId, resource, identity.id),
    ...t,
    idtyp: "app",
    oid: identity.id,
    sub: identity.id,
    tid: store.tenantId,
    ...(roles.length > 0 ? { roles } : {}),
    xms_idrel: IDREL.servicePrincipal,
    xms_par_app_azp: identity.agentIdentityBlueprintId,
    xms_act_fct: FACETS.agentIdentity,
    xms_sub_fct: FACETS.agentIdentity,
  };
}

/**
 * The agent identity's delegated token for a human user (the on-behalf-of
 * flow): an agent user token's claims for that user, but for the scopes
 * consented alone, `xms_idrel` that of a member user, and no subject facet
 * (the scenario lists only the actor's).
 */
export function onBehalfOfClaims(origin: string, tenantId: string, identity: ServicePrincipal, user: User, resource: ServicePrincipal, scopes: readonly string[], t: TokenTimes): JwtClaims {
  const claims: JwtClaims = { ...agentUserClaims(origin, tenantId, identity, user, resource, scopes, t), scp: scopes.join(" "), xms_idrel: IDREL.memberUser };
  delete claims.xms_sub_fct;
  return claims;
}

/**
 * A person's v2 access token for an API (the blueprint's), as the client
 * they signed in to receives it: `aud` the API's appId, `azp` the client,
 * `scp` the scopes consented ("Access token claims reference",
 * entra-docs identity-platform/access-token-claims-reference.md).
 */
export function userAccessClaims(origin: string, tenantId: string, client: ServicePrincipal, user: User, api: ServicePrincipal, scopes: readonly string[], t: TokenTimes): JwtClaims {
  return {
    aud: api.appId,
    iss: v2Issuer(origin, tenantId),
    ...t,
    azp: client.appId,
    // A public client proves nothing about itself.
    azpacr: "0",
    idtyp: "user",
    name: user.displayName,
    oid: user.id,
    preferred_username: user.userPrincipalName,
    scp: scopes.join(" "),
    sub: pairwiseSubject(user, client),
    tid: tenantId,
    ver: "2.0",
  };
}
