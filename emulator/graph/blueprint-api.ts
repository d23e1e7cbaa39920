import { isObject } from "../../lib/json-value";
import { isGuid } from "../../lib/entra-rules";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { ApiApplication, Application, PermissionScope } from "../store";
import { visible } from "./directory";
import { requireReach } from "./directory-auth";
import { graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { entity, jsonBody } from "./odata";

/**
 * A blueprint's exposed API, on the application's appId alternate key
 * (application-update: `PATCH /applications(appId='{appId}')`), as Entra's
 * create-blueprint page sets it: `identifierUris` and
 * `api.oauth2PermissionScopes` (entra-docs agent-id/create-blueprint.md,
 * "Configure identifier URI and scope"), with the clients pre-authorized for
 * them (`api.preAuthorizedApplications`). The rules are those of the
 * apiApplication and permissionScope resources: a scope has an id, a value,
 * a type and its consent texts; an enabled scope is neither removed nor
 * changed before it is disabled; an identifier URI is the default
 * `api://{appId}` form or on a verified domain, and unique in the tenant.
 */

const BY_APP_ID = "/v1\\.0/applications\\(appId='(?<appId>[^/]+)'\\)";
const TYPE = "microsoft.graph.application";

function blueprintByAppId(req: EmulatorRequest, ctx: EmulatorContext): Application {
  const app = ctx.store.applicationByAppId(req.params.appId!);
  const blueprint = visible(req, ctx, app?.kind === "agentIdentityBlueprint" ? app : undefined, req.params.appId!);
  requireReach(req, { owners: blueprint.owners });
  return blueprint;
}

function view(app: Application): Record<string, unknown> {
  const api: ApiApplication = app.api ?? { oauth2PermissionScopes: [], preAuthorizedApplications: [] };
  return { id: app.id, appId: app.appId, displayName: app.displayName, identifierUris: app.identifierUris ?? [], api };
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  return entity(req, view(blueprintByAppId(req, ctx)), TYPE, "applications");
}

function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const { store } = ctx;
  const app = blueprintByAppId(req, ctx);
  const body = jsonBody(req, ["identifierUris", "api"]);
  // Every field is checked before any is applied: a refused PATCH changes nothing.
  const identifierUris = body.identifierUris === undefined ? app.identifierUris : checkedUris(req, ctx, app, body.identifierUris);
  const api = body.api === undefined ? app.api : checkedApi(req, app, body.api);
  store.updateApplication(app.id, { identifierUris, api });
  return graphNoContent(req.headers);
}

function checkedUris(req: EmulatorRequest, ctx: EmulatorContext, app: Application, given: unknown): string[] {
  if (!Array.isArray(given) || !given.every((u) => typeof u === "string")) throw graphError(req, GRAPH_ERRORS.identifierUrisNotList());
  const tenant = ctx.store.tenantId;
  const allowed = (uri: string) => {
    const lower = uri.toLowerCase();
    if (lower === `api://${app.appId}` || lower.startsWith(`api://${tenant}/`)) return true;
    // An https identifier URI must be on a verified domain of the tenant (or a subdomain of one).
    const host = /^https:\/\/([^/:]+)/.exec(lower)?.[1];
    return host !== undefined && ctx.store.domains.some((d) => host === d.toLowerCase() || host.endsWith(`.${d.toLowerCase()}`));
  };
  for (const uri of given) {
    if (!allowed(uri)) throw graphError(req, GRAPH_ERRORS.identifierUriRefused(uri));
    const holder = ctx.store.applications().find((a) => a.id !== app.id && (a.identifierUris ?? []).some((u) => u.toLowerCase() === uri.toLowerCase()));
    if (holder) throw graphError(req, GRAPH_ERRORS.identifierUriTaken(uri));
  }
  return [...given];
}

function checkedApi(req: EmulatorRequest, app: Application, given: unknown): ApiApplication {
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
    // permissionScope.value: no spaces, and not starting with a dot.
    if (!text(scope.value) || /\s/.test(scope.value) || scope.value.startsWith(".")) throw bad("value must be a name without spaces, not starting with '.'");
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

export const blueprintApiRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${BY_APP_ID}$`), surface: "graph", operation: "blueprint.api.get", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${BY_APP_ID}$`), surface: "graph", operation: "blueprint.api.update", handler: update },
];
