import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { PermissionGrant } from "../store";
import { authorizeGraph } from "./auth";
import { GRANT_READERS, GRANT_WRITERS } from "./directory-auth";
import { referenced, resourceNotFound } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { collection, entity, jsonBody, matches, parseFilter, requiredString } from "./odata";

/**
 * Delegated permission grants (`oauth2PermissionGrants`), as azuread's
 * ServicePrincipalDelegatedPermissionGrant manages them. Graph shows a
 * change at once; the token endpoint sees it only after the store's
 * replication lag (reference section 2: allow 30 to 120 s), through
 * effectiveAt and previousScope.
 */

const TYPE = "microsoft.graph.oAuth2PermissionGrant";
const CONTEXT = "oauth2PermissionGrants";
const COLLECTION = /^\/v1\.0\/oauth2PermissionGrants$/;
const OBJECT = /^\/v1\.0\/oauth2PermissionGrants\/(?<id>[^/]+)$/;

function view(grant: PermissionGrant): Record<string, unknown> {
  const { id, clientId, consentType, principalId, resourceId, scope } = grant;
  return { id, clientId, consentType, principalId, resourceId, scope };
}

const authorize = (req: EmulatorRequest, ctx: EmulatorContext, accepted: readonly string[]) =>
  authorizeGraph(req, ctx, { application: accepted, delegated: accepted, deniedCode: "Authorization_RequestDenied" });

/** Graph's grant ids are the client, resource and (for one user) principal ids, base64url-encoded. */
function grantId(clientId: string, resourceId: string, principalId: string | null): string {
  const hex = [clientId, resourceId, principalId ?? ""].join("").replace(/-/g, "");
  return Buffer.from(hex, "hex").toString("base64url");
}

function guid(req: EmulatorRequest, body: Record<string, unknown>, name: string): string {
  const value = requiredString(req, body, name).toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) {
    throw graphError(400, "Request_BadRequest", `Invalid value specified for property '${name}': it must be an object id (GUID).`, req.headers);
  }
  return value;
}

/** The scope the token endpoint sees now: the new one once the change has replicated. */
function effectiveScope(ctx: EmulatorContext, grant: PermissionGrant): string | undefined {
  return ctx.store.now() >= grant.effectiveAt ? grant.scope : grant.previousScope;
}

function create(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorize(req, ctx, GRANT_WRITERS);
  const body = jsonBody(req, ["clientId", "consentType", "principalId", "resourceId", "scope"]);
  const { store } = ctx;
  const clientId = guid(req, body, "clientId");
  const resourceId = guid(req, body, "resourceId");
  referenced(req, ctx, store.servicePrincipals.get(clientId), "The client service principal", clientId);
  referenced(req, ctx, store.servicePrincipals.get(resourceId), "The resource service principal", resourceId);
  const consentType = body.consentType;
  let principalId: string | null = null;
  if (consentType === "Principal") {
    principalId = guid(req, body, "principalId");
    referenced(req, ctx, store.users.get(principalId), "The user", principalId);
  } else if (consentType !== "AllPrincipals") {
    throw graphError(400, "Request_BadRequest", "consentType must be Principal or AllPrincipals.", req.headers);
  } else if (body.principalId !== undefined && body.principalId !== null) {
    throw graphError(400, "Request_BadRequest", "principalId must be null when consentType is AllPrincipals.", req.headers);
  }
  if (body.scope !== undefined && body.scope !== null && typeof body.scope !== "string") {
    throw graphError(400, "Request_BadRequest", "scope must be a space-separated string of delegated permissions.", req.headers);
  }
  const id = grantId(clientId, resourceId, principalId);
  if (store.grants.has(id)) throw graphError(409, "Request_MultipleObjectsWithSameKeyValue", "Permission entry already exists.", req.headers);
  const grant: PermissionGrant = {
    id,
    clientId,
    consentType,
    principalId,
    resourceId,
    scope: typeof body.scope === "string" ? body.scope : "",
    effectiveAt: store.now() + store.replicationLagMs,
  };
  store.grants.set(id, grant);
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#${CONTEXT}/$entity`, ...view(grant) }, req.headers);
}

function list(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorize(req, ctx, GRANT_READERS);
  // The properties oAuth2PermissionGrant documents as filterable (eq only); Graph refuses others.
  const clauses = parseFilter(req, ["clientId", "consentType"]);
  return collection(req, [...ctx.store.grants.values()].map(view).filter((v) => matches(v, clauses)), TYPE, CONTEXT);
}

function existing(req: EmulatorRequest, ctx: EmulatorContext): PermissionGrant {
  const grant = ctx.store.grants.get(req.params.id!);
  if (!grant) throw resourceNotFound(req, req.params.id!);
  return grant;
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorize(req, ctx, GRANT_READERS);
  return entity(req, view(existing(req, ctx)), TYPE, CONTEXT);
}

/** PATCH replaces the whole scope string; tokens keep the old one until the change replicates. */
function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorize(req, ctx, GRANT_WRITERS);
  const grant = existing(req, ctx);
  const body = jsonBody(req, ["scope"]);
  if (typeof body.scope !== "string") throw graphError(400, "Request_BadRequest", "scope must be a space-separated string of delegated permissions.", req.headers);
  grant.previousScope = effectiveScope(ctx, grant);
  grant.scope = body.scope;
  grant.effectiveAt = ctx.store.now() + ctx.store.replicationLagMs;
  return graphNoContent(req.headers);
}

/** A deleted grant stops new tokens at once; tokens already issued stay valid until they expire. */
function remove(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorize(req, ctx, GRANT_WRITERS);
  ctx.store.grants.delete(existing(req, ctx).id);
  return graphNoContent(req.headers);
}

export const grantRoutes: Route[] = [
  { method: "GET", pattern: COLLECTION, surface: "graph", handler: list },
  { method: "POST", pattern: COLLECTION, surface: "graph", handler: create },
  { method: "GET", pattern: OBJECT, surface: "graph", handler: get },
  { method: "PATCH", pattern: OBJECT, surface: "graph", handler: update },
  { method: "DELETE", pattern: OBJECT, surface: "graph", handler: remove },
];
