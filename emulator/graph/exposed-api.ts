import { isObject } from "../../lib/json-value";
import { isGuid, scopeValueProblem } from "../../lib/entra-rules";
import type { EmulatorContext, EmulatorRequest } from "../router";
import type { ApiApplication, Application, PermissionScope } from "../store";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

/**
 * A blueprint's exposed API, however a create or an update sets it (its
 * typed URL, its base type's, the appId alternate key): `identifierUris` and
 * `api` with its `oauth2PermissionScopes` and `preAuthorizedApplications`,
 * as Entra's create-blueprint page sets them (entra-docs
 * agent-id/create-blueprint.md, "Configure identifier URI and scope"). The
 * rules are those of the apiApplication and permissionScope resources: a
 * scope has an id, a value, a type and its consent texts; an enabled scope
 * is neither removed nor changed before it is disabled; an identifier URI is
 * the default `api://{appId}` form or on a verified domain, and unique in the
 * tenant without case, within one application too. The token endpoint
 * reads them (on-behalf-of's audience and scopes).
 */

/** The exposed API a body sets, checked against the blueprint as it stands: only the fields the body gives. */
export function exposedApi(req: EmulatorRequest, ctx: EmulatorContext, app: Pick<Application, "id" | "appId" | "api">, values: Record<string, unknown>): Pick<Application, "identifierUris" | "api"> {
  return {
    ...(values.identifierUris === undefined ? {} : { identifierUris: values.identifierUris === null ? [] : checkedUris(req, ctx, app, values.identifierUris) }),
    ...(values.api === undefined ? {} : { api: values.api === null ? undefined : checkedApi(req, app, values.api) }),
  };
}

/**
 * The identifier URI formats Entra's identifier URI restrictions list as
 * supported (entra identity-platform/identifier-uri-restrictions.md, "Secure
 * patterns"): api://{appId}, api://{tenantId}/{appId or string},
 * api://{string}/{appId}, https://{verified domain or its subdomain}[/{string}]
 * (the initial domain included), and api://{verified domain or its subdomain}/{string};
 * and api://{appId}/{string}, which Graph's identifierUriConfiguration gives
 * as holding a unique identifier.
 * Whether a tenant enforces them depends on its app management policy
 * (identifierUriConfiguration); the emulator takes the strict reading and
 * refuses any other format.
 */
function supportedIdentifierUri(uri: string, appId: string, tenantId: string, domains: readonly string[]): boolean {
  const lower = uri.toLowerCase();
  const m = /^(api|https):\/\/([^/?#]+)(\/[^?#]*)?$/.exec(lower);
  if (!m) return false;
  const [, scheme, host, path = ""] = m as unknown as [string, string, string, string | undefined];
  const segments = path.split("/").filter(Boolean);
  const verified = domains.some((d) => host === d.toLowerCase() || host.endsWith(`.${d.toLowerCase()}`));
  if (scheme === "https") return verified;
  if (host === appId) return true;
  if (host === tenantId && segments.length > 0) return true;
  if (segments.length === 1 && segments[0] === appId) return true;
  return verified && segments.length > 0;
}

function checkedUris(req: EmulatorRequest, ctx: EmulatorContext, app: Pick<Application, "id" | "appId">, given: unknown): string[] {
  if (!Array.isArray(given) || !given.every((u) => typeof u === "string")) throw graphError(req, GRAPH_ERRORS.identifierUrisNotList());
  for (const uri of given) {
    if (!supportedIdentifierUri(uri, app.appId, ctx.store.tenantId, ctx.store.domains)) throw graphError(req, GRAPH_ERRORS.identifierUriRefused(uri));
  }
  // Unique without case, in the tenant and within the list itself: a token's audience names an identifier URI in any case (README: identifier URIs).
  const seen: string[] = [];
  for (const uri of given) {
    const key = uri.toLowerCase();
    const holder = seen.includes(key) || ctx.store.applications().some((a) => a.id !== app.id && (a.identifierUris ?? []).some((u) => u.toLowerCase() === key));
    if (holder) throw graphError(req, GRAPH_ERRORS.identifierUriTaken(uri));
    seen.push(key);
  }
  return [...given];
}

function checkedApi(req: EmulatorRequest, app: Pick<Application, "api">, given: unknown): ApiApplication {
  if (!isObject(given)) throw graphError(req, GRAPH_ERRORS.permissionScopeInvalid("api must be an object"));
  for (const key of Object.keys(given)) if (key !== "oauth2PermissionScopes" && key !== "preAuthorizedApplications") throw graphError(req, GRAPH_ERRORS.undeclaredProperty(`api.${key}`));
  const before = app.api ?? { oauth2PermissionScopes: [], preAuthorizedApplications: [] };
  const scopes = given.oauth2PermissionScopes === undefined ? before.oauth2PermissionScopes : checkedScopes(req, given.oauth2PermissionScopes);
  // An enabled scope may only be disabled: removing or changing it is refused until a PATCH has disabled it.
  for (const old of before.oauth2PermissionScopes.filter((s) => s.isEnabled)) {
    const now = scopes.find((s) => s.id === old.id);
    if (!now || SCOPE_FIELDS.some((field) => now[field] !== old[field])) throw graphError(req, GRAPH_ERRORS.enabledScopeChanged());
  }
  const preAuthorized = given.preAuthorizedApplications === undefined ? before.preAuthorizedApplications : checkedPreAuthorized(req, given.preAuthorizedApplications);
  for (const id of preAuthorized.flatMap((p) => p.delegatedPermissionIds)) {
    if (!scopes.some((s) => s.id === id)) throw graphError(req, GRAPH_ERRORS.preAuthorizedScopeMissing(id));
  }
  return { oauth2PermissionScopes: scopes, preAuthorizedApplications: preAuthorized };
}

/** What a scope is, besides whether it is enabled. */
const SCOPE_FIELDS = ["value", "type", "adminConsentDisplayName", "adminConsentDescription", "userConsentDisplayName", "userConsentDescription"] as const;

const text = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

function checkedScopes(req: EmulatorRequest, given: unknown): PermissionScope[] {
  if (!Array.isArray(given)) throw graphError(req, GRAPH_ERRORS.permissionScopeInvalid("it must be a list"));
  const scopes = given.map((s: unknown, i): PermissionScope => {
    const scope = isObject(s) ? s : {};
    const bad = (what: string) => graphError(req, GRAPH_ERRORS.permissionScopeInvalid(`[${i}].${what}`));
    if (!isGuid(scope.id)) throw bad("id must be a GUID");
    // permissionScope.value by Entra's character set and length (lib/entra-rules.ts names the page), the kit's own rule.
    if (typeof scope.value !== "string" || scopeValueProblem(scope.value) !== undefined) throw graphError(req, GRAPH_ERRORS.permissionScopeValueInvalid());
    if (scope.type !== "User" && scope.type !== "Admin") throw bad("type must be User or Admin");
    if (typeof scope.isEnabled !== "boolean") throw bad("isEnabled must be true or false");
    if (!text(scope.adminConsentDisplayName) || !text(scope.adminConsentDescription)) throw bad("adminConsentDisplayName and adminConsentDescription are required");
    const optional = (v: unknown) => (typeof v === "string" ? v : null);
    return {
      id: scope.id.toLowerCase(),
      value: scope.value,
      type: scope.type,
      isEnabled: scope.isEnabled,
      adminConsentDisplayName: scope.adminConsentDisplayName,
      adminConsentDescription: scope.adminConsentDescription,
      userConsentDisplayName: optional(scope.userConsentDisplayName),
      userConsentDescription: optional(scope.userConsentDescription),
    };
  });
  if (new Set(scopes.map((s) => s.id)).size !== scopes.length || new Set(scopes.map((s) => s.value.toLowerCase())).size !== scopes.length) {
    throw graphError(req, GRAPH_ERRORS.permissionScopeInvalid("each scope's id and value must be unique"));
  }
  return scopes;
}

function checkedPreAuthorized(req: EmulatorRequest, given: unknown): ApiApplication["preAuthorizedApplications"] {
  const list = Array.isArray(given) ? given : undefined;
  const valid = list?.every((p: unknown) => isObject(p) && isGuid(p.appId) && Array.isArray(p.delegatedPermissionIds) && p.delegatedPermissionIds.every(isGuid));
  if (!list || !valid) throw graphError(req, GRAPH_ERRORS.permissionScopeInvalid("preAuthorizedApplications must be a list of { appId, delegatedPermissionIds }"));
  return (list as Array<{ appId: string; delegatedPermissionIds: string[] }>).map((p) => ({ appId: p.appId.toLowerCase(), delegatedPermissionIds: p.delegatedPermissionIds.map((id) => id.toLowerCase()) }));
}
