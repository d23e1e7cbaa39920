import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { ServicePrincipal } from "../store";
import {
  AGENT_IDENTITIES,
  BLUEPRINT_PRINCIPALS,
  SERVICE_PRINCIPAL_READERS,
  authorizeCreate,
  authorizeManage,
  authorizeRead,
  callerId,
  type PermissionFamily,
} from "./directory-auth";
import { deleteServicePrincipal, owners, referenced, resourceNotFound, sponsorBinds, visible } from "./directory";
import { authorizeGraph } from "./auth";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { collection, entity, jsonBody, matches, parseFilter, requireODataVersion, requiredString } from "./odata";
import { sponsorRoutes } from "./sponsors";

/**
 * Service principals: blueprint principals and agent identities on their
 * typed URLs, and the untyped collection's `$filter=appId eq '...'` lookup
 * (how a grant finds its resource's principal). Reference section 3.
 */

const PRINCIPAL_TYPE = "microsoft.graph.agentIdentityBlueprintPrincipal";
const IDENTITY_TYPE = "microsoft.graph.agentIdentity";
const PRINCIPALS = "/v1\\.0/servicePrincipals/microsoft\\.graph\\.agentIdentityBlueprintPrincipal";
const PRINCIPAL = "/v1\\.0/servicePrincipals/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentityBlueprintPrincipal";
const IDENTITIES = "/v1\\.0/servicePrincipals/microsoft\\.graph\\.agentIdentity";
const IDENTITY = "/v1\\.0/servicePrincipals/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentity";
const MAX_DISPLAY_NAME = 256;

function view(sp: ServicePrincipal): Record<string, unknown> {
  return {
    "@odata.type": `#microsoft.graph.${sp.kind}`,
    id: sp.id,
    appId: sp.appId,
    displayName: sp.displayName,
    servicePrincipalType: sp.servicePrincipalType,
    servicePrincipalNames: sp.servicePrincipalNames,
    accountEnabled: sp.accountEnabled ?? true,
    oauth2PermissionScopes: sp.oauth2PermissionScopes ?? [],
    ...(sp.kind === "agentIdentity" ? { agentIdentityBlueprintId: sp.agentIdentityBlueprintId ?? null } : {}),
  };
}

function ofKind(kind: ServicePrincipal["kind"]) {
  return (ctx: EmulatorContext, id: string): ServicePrincipal | undefined => {
    const sp = ctx.store.servicePrincipals.get(id.toLowerCase());
    return sp?.kind === kind ? sp : undefined;
  };
}
const principalById = ofKind("agentIdentityBlueprintPrincipal");
const identityById = ofKind("agentIdentity");

function all(ctx: EmulatorContext, kind?: ServicePrincipal["kind"]): Array<Record<string, unknown>> {
  return [...ctx.store.servicePrincipals.values()].filter((sp) => kind === undefined || sp.kind === kind).map(view);
}

function listAny(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorizeGraph(req, ctx, { application: SERVICE_PRINCIPAL_READERS, delegated: SERVICE_PRINCIPAL_READERS, deniedCode: "Authorization_RequestDenied" });
  const clauses = parseFilter(req, ["appId", "displayName"]);
  return collection(req, all(ctx).filter((v) => matches(v, clauses)), "microsoft.graph.servicePrincipal", "servicePrincipals");
}

function createPrincipal(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const claims = authorizeCreate(req, ctx, BLUEPRINT_PRINCIPALS);
  requireODataVersion(req);
  const appId = requiredString(req, jsonBody(req, ["appId"]), "appId").toLowerCase();
  const app = ctx.store.applicationByAppId(appId);
  if (app && app.kind !== "agentIdentityBlueprint") {
    throw graphError(400, "Request_BadRequest", `Application '${appId}' is not an agent identity blueprint.`, req.headers);
  }
  const blueprint = referenced(req, ctx, app, "The agent identity blueprint with appId", appId);
  if (ctx.store.servicePrincipalByAppId(appId)) {
    throw graphError(409, "Request_MultipleObjectsWithSameKeyValue", `The blueprint ${appId} already has a service principal in this tenant.`, req.headers);
  }
  const sp: ServicePrincipal = {
    id: ctx.store.newId(),
    appId,
    kind: "agentIdentityBlueprintPrincipal",
    displayName: blueprint.displayName,
    servicePrincipalType: "Application",
    servicePrincipalNames: [appId],
    sponsors: [],
    owners: callerId(claims),
    graphAppRoles: [],
    createdAt: ctx.store.stamp(),
  };
  ctx.store.servicePrincipals.set(sp.id, sp);
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#servicePrincipals/${PRINCIPAL_TYPE}/$entity`, ...view(sp) }, req.headers);
}

function createIdentity(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const claims = authorizeCreate(req, ctx, AGENT_IDENTITIES);
  requireODataVersion(req);
  const body = jsonBody(req, ["displayName", "agentIdentityBlueprintId", "sponsors@odata.bind", "owners@odata.bind"]);
  const displayName = requiredString(req, body, "displayName");
  if (displayName.length > MAX_DISPLAY_NAME) {
    throw graphError(400, "Request_BadRequest", `displayName is longer than ${MAX_DISPLAY_NAME} characters.`, req.headers);
  }
  const blueprintAppId = requiredString(req, body, "agentIdentityBlueprintId").toLowerCase();
  const app = ctx.store.applicationByAppId(blueprintAppId);
  referenced(req, ctx, app?.kind === "agentIdentityBlueprint" ? app : undefined, "The agent identity blueprint with appId", blueprintAppId);
  // Entra does not create the blueprint principal on its own, and refuses identities without it (reference section 3).
  const principal = ctx.store.servicePrincipalByAppId(blueprintAppId);
  if (!principal) {
    const message = `The agent identity blueprint ${blueprintAppId} has no service principal in this tenant; create its agentIdentityBlueprintPrincipal first.`;
    throw graphError(400, "Request_BadRequest", message, req.headers);
  }
  referenced(req, ctx, principal, "The blueprint principal", principal.id);
  const id = ctx.store.newId();
  const sp: ServicePrincipal = {
    id,
    // Observed on real agent identities: the appId is the object id.
    appId: id,
    kind: "agentIdentity",
    displayName,
    servicePrincipalType: "ServiceIdentity",
    servicePrincipalNames: [],
    agentIdentityBlueprintId: blueprintAppId,
    sponsors: sponsorBinds(req, ctx, body["sponsors@odata.bind"], "agent identity"),
    owners: owners(req, ctx, callerId(claims), body["owners@odata.bind"]),
    graphAppRoles: [],
    createdAt: ctx.store.stamp(),
  };
  ctx.store.servicePrincipals.set(id, sp);
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#servicePrincipals/${IDENTITY_TYPE}/$entity`, ...view(sp) }, req.headers);
}

/** Owners of the identity's blueprint may manage it too (Microsoft's API reference). */
function identityOwners(ctx: EmulatorContext, sp: ServicePrincipal | undefined): { owners: string[] } | undefined {
  if (!sp) return undefined;
  const blueprint = sp.agentIdentityBlueprintId ? ctx.store.applicationByAppId(sp.agentIdentityBlueprintId) : undefined;
  return { owners: [...(sp.owners ?? []), ...(blueprint?.owners ?? [])] };
}

function updateIdentity(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const sp = identityById(ctx, req.params.id!);
  authorizeManage(req, ctx, AGENT_IDENTITIES, identityOwners(ctx, sp));
  if (!sp) throw resourceNotFound(req, req.params.id!);
  const body = jsonBody(req, ["@odata.type", "displayName"]);
  if (body.displayName !== undefined) sp.displayName = requiredString(req, body, "displayName");
  return graphNoContent(req.headers);
}

/** The routes one typed service principal collection shares. */
interface TypedCollection {
  family: PermissionFamily;
  kind: ServicePrincipal["kind"];
  collectionPath: string;
  objectPath: string;
  find: (ctx: EmulatorContext, id: string) => ServicePrincipal | undefined;
  /** Whose ownership lets a caller with an "owned" permission delete it. */
  owners: (ctx: EmulatorContext, sp: ServicePrincipal | undefined) => { owners?: string[] } | undefined;
  create: Route["handler"];
}

function typedRoutes(c: TypedCollection): Route[] {
  const type = `microsoft.graph.${c.kind}`;
  const context = `servicePrincipals/${type}`;
  const list = (req: EmulatorRequest, ctx: EmulatorContext) => {
    authorizeRead(req, ctx, c.family);
    const clauses = parseFilter(req, ["appId", "displayName", "agentIdentityBlueprintId"]);
    return collection(req, all(ctx, c.kind).filter((v) => matches(v, clauses)), type, context);
  };
  const get = (req: EmulatorRequest, ctx: EmulatorContext) => {
    authorizeRead(req, ctx, c.family);
    return entity(req, view(visible(req, ctx, c.find(ctx, req.params.id!), req.params.id!)), type, context);
  };
  const remove = (req: EmulatorRequest, ctx: EmulatorContext) => {
    const sp = c.find(ctx, req.params.id!);
    authorizeManage(req, ctx, c.family, c.owners(ctx, sp));
    if (!sp) throw resourceNotFound(req, req.params.id!);
    deleteServicePrincipal(ctx.store, sp.id);
    return graphNoContent(req.headers);
  };
  return [
    { method: "GET", pattern: new RegExp(`^${c.collectionPath}$`), surface: "graph", handler: list },
    { method: "POST", pattern: new RegExp(`^${c.collectionPath}$`), surface: "graph", handler: c.create },
    { method: "GET", pattern: new RegExp(`^${c.objectPath}$`), surface: "graph", handler: get },
    { method: "DELETE", pattern: new RegExp(`^${c.objectPath}$`), surface: "graph", handler: remove },
  ];
}

export const servicePrincipalRoutes: Route[] = [
  { method: "GET", pattern: /^\/v1\.0\/servicePrincipals$/, surface: "graph", handler: listAny },
  ...typedRoutes({
    family: BLUEPRINT_PRINCIPALS,
    kind: "agentIdentityBlueprintPrincipal",
    collectionPath: PRINCIPALS,
    objectPath: PRINCIPAL,
    find: principalById,
    owners: (_ctx, sp) => sp,
    create: createPrincipal,
  }),
  ...typedRoutes({
    family: AGENT_IDENTITIES,
    kind: "agentIdentity",
    collectionPath: IDENTITIES,
    objectPath: IDENTITY,
    find: identityById,
    owners: identityOwners,
    create: createIdentity,
  }),
  { method: "PATCH", pattern: new RegExp(`^${IDENTITY}$`), surface: "graph", handler: updateIdentity },
  ...sponsorRoutes(IDENTITY, AGENT_IDENTITIES, identityById),
];
