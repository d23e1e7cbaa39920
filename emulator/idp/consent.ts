import type { Reply } from "../router";
import type { ServicePrincipal, TenantStore } from "../store";
import { aadstsError } from "./aadsts-error";

/**
 * What a client may ask for a user on a resource: the delegated scopes of
 * its permission grants (AllPrincipals, or Principal for this user, as the
 * token endpoint sees them after the replication lag) and the scopes the
 * resource's API pre-authorizes the client for, which need no consent
 * (apiApplication.preAuthorizedApplications). Named scopes must each be
 * published by the resource (AADSTS70011 InvalidScope otherwise) and
 * consented; `.default` is every consented scope. Undefined when nothing
 * asked for is consented: the caller answers AADSTS65001.
 */
export function consentedScopes(store: TenantStore, clientId: string, userId: string, resource: ServicePrincipal, named?: readonly string[], clientAppId?: string): string[] | undefined {
  if (named) {
    const published = new Set(store.publishedScopes(resource).filter((s) => s.isEnabled).map((s) => s.value.toLowerCase()));
    const unknown = named.find((name) => !published.has(name.toLowerCase()));
    if (unknown !== undefined) {
      throw aadstsError(400, "invalid_scope", 70011, `The provided value for the input parameter 'scope' is not valid. The scope ${unknown} is not a permission that ${resource.displayName} publishes.`);
    }
  }
  const consented = new Set([...(store.effectiveGrantScopes(clientId, userId, resource.id) ?? []), ...preAuthorized(store, resource, clientAppId)]);
  const held = (name: string) => [...consented].some((scope) => scope.toLowerCase() === name.toLowerCase());
  if (named) return named.every(held) ? [...named] : undefined;
  return consented.size > 0 ? [...consented] : undefined;
}

/** The scope values a resource's API pre-authorizes a client (by appId) for. */
function preAuthorized(store: TenantStore, resource: ServicePrincipal, clientAppId: string | undefined): string[] {
  if (clientAppId === undefined || resource.kind === "agentIdentity") return [];
  const api = store.applicationByAppId(resource.appId)?.api;
  const ids = new Set(api?.preAuthorizedApplications.filter((p) => p.appId.toLowerCase() === clientAppId.toLowerCase()).flatMap((p) => p.delegatedPermissionIds) ?? []);
  return (api?.oauth2PermissionScopes ?? []).filter((s) => s.isEnabled && ids.has(s.id)).map((s) => s.value);
}

/** AADSTS65001 DelegationDoesNotExist (reference-error-codes): no consent for what the client asked, for this user. */
export function consentRequired(clientId: string, displayName: string): Reply {
  return aadstsError(
    400,
    "invalid_grant",
    65001,
    `The user or administrator has not consented to use the application with ID '${clientId}' named '${displayName}'. Send an interactive authorization request for this user and resource.`,
  );
}
