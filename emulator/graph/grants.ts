import { isGuid } from "../../lib/entra-rules";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { PermissionGrant } from "../store";
import { referenced, resourceNotFound } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, matches, metadataUrl, parseFilter, requiredString } from "./odata";
import { jsonBody, odataType } from "./request-body";

/**
 * Delegated permission grants (`oauth2PermissionGrants`), as azuread's
 * ServicePrincipalDelegatedPermissionGrant manages them. Graph shows a
 * change at once; the token endpoint sees it only after the store's
 * replication lag (allow 30 to 120 s), through
 * effectiveAt and previousScope.
 */

const TYPE = "microsoft.graph.oAuth2PermissionGrant";
const CONTEXT = "oauth2PermissionGrants";
const COLLECTION = /^\/oauth2PermissionGrants$/;
const OBJECT = /^\/oauth2PermissionGrants\/(?<id>[^/]+)$/;

function view(grant: PermissionGrant): Record<string, unknown> {
  const { id, clientId, consentType, principalId, resourceId, scope } = grant;
  return { id, clientId, consentType, principalId, resourceId, scope };
}

/** Graph's grant ids are the client, resource and (for one user) principal ids, base64url-encoded. */
function grantId(clientId: string, resourceId: string, principalId: string | null): string {
  const hex = [clientId, resourceId, principalId ?? ""].join("").replace(/-/g, "");
  return Buffer.from(hex, "hex").toString("base64url");
}

function guid(req: EmulatorRequest, body: Record<string, unknown>, name: string): string {
  const value = requiredString(req, body, name).toLowerCase();
  if (!isGuid(value)) {
    throw graphError(req, GRAPH_ERRORS.notAGuid(name));
  }
  return value;
}

function create(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  // A body may name its own type, as HashiCorp's Graph client does on every write (OData's type annotation).
  const body = jsonBody(req, ["@odata.type", "clientId", "consentType", "principalId", "resourceId", "scope"]);
  odataType(req, body["@odata.type"], TYPE);
  const { store } = ctx;
  const clientId = guid(req, body, "clientId");
  const resourceId = guid(req, body, "resourceId");
  referenced(req, ctx, store.servicePrincipal(clientId), "The client service principal", clientId);
  referenced(req, ctx, store.servicePrincipal(resourceId), "The resource service principal", resourceId);
  const consentType = body.consentType;
  let principalId: string | null = null;
  if (consentType === "Principal") {
    principalId = guid(req, body, "principalId");
    referenced(req, ctx, store.user(principalId), "The user", principalId);
  } else if (consentType !== "AllPrincipals") {
    throw graphError(req, GRAPH_ERRORS.consentTypeInvalid());
  } else if (body.principalId !== undefined && body.principalId !== null) {
    throw graphError(req, GRAPH_ERRORS.principalIdWithAllPrincipals());
  }
  if (body.scope !== undefined && body.scope !== null && typeof body.scope !== "string") {
    throw graphError(req, GRAPH_ERRORS.scopeNotString());
  }
  const id = grantId(clientId, resourceId, principalId);
  if (store.grant(id)) throw graphError(req, GRAPH_ERRORS.grantExists());
  const grant = store.createGrant({
    id,
    clientId,
    consentType,
    principalId,
    resourceId,
    scope: typeof body.scope === "string" ? body.scope : "",
    effectiveAt: store.now() + store.replicationLagMs,
  });
  return graphCreated({ "@odata.context": metadataUrl(req, `${CONTEXT}/$entity`), ...view(grant) }, req.headers);
}

function list(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  // The properties oAuth2PermissionGrant documents as filterable (eq only); Graph refuses others.
  const clauses = parseFilter(req, ["clientId", "consentType"]);
  return collection(req, ctx.store.grants().map(view).filter((v) => matches(v, clauses)), TYPE, CONTEXT);
}

function existing(req: EmulatorRequest, ctx: EmulatorContext): PermissionGrant {
  const grant = ctx.store.grant(req.params.id!);
  if (!grant) throw resourceNotFound(req, req.params.id!);
  return grant;
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  return entity(req, view(existing(req, ctx)), TYPE, CONTEXT);
}

/** PATCH replaces the whole scope string; tokens keep the old one until the change replicates. */
function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const grant = existing(req, ctx);
  const body = jsonBody(req, ["@odata.type", "scope"]);
  odataType(req, body["@odata.type"], TYPE);
  if (typeof body.scope !== "string") throw graphError(req, GRAPH_ERRORS.scopeNotString());
  ctx.store.changeGrantScope(grant.id, body.scope);
  return graphNoContent(req.headers);
}

/** A deleted grant stops new tokens at once; tokens already issued stay valid until they expire. */
function remove(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  ctx.store.deleteGrant(existing(req, ctx).id);
  return graphNoContent(req.headers);
}

export const grantRoutes: Route[] = [
  { method: "GET", pattern: COLLECTION, surface: "graph", operation: "grant.list", handler: list },
  { method: "POST", pattern: COLLECTION, surface: "graph", operation: "grant.create", handler: create },
  { method: "GET", pattern: OBJECT, surface: "graph", operation: "grant.get", handler: get },
  { method: "PATCH", pattern: OBJECT, surface: "graph", operation: "grant.update", handler: update },
  { method: "DELETE", pattern: OBJECT, surface: "graph", operation: "grant.delete", handler: remove },
];
