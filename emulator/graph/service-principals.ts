import { keySegment } from "../pipeline/graph-path";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { ServicePrincipal } from "../store";
import type { OperationId } from "../../lib/graph-permissions";
import { callerAppId, callerId, createsAsManager, isReached, requireReach, type ReachTarget } from "./directory-auth";
import { displayName, owners, referenced, resourceNotFound, readSponsorBinds, visible } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { AGENT_IDENTITY, BLUEPRINT_PRINCIPAL } from "./agent-id-types";
import { collection, entity, matches, metadataUrl, parseFilter, requiredString } from "./odata";
import { mergeProperties, odataType, typedBody } from "./request-body";
import { ownerRoute } from "./owners";
import { sponsorRoutes } from "./sponsors";

/**
 * Service principals: blueprint principals and agent identities on their
 * typed URLs, and the untyped collection's lookups by `appId eq '...'` or
 * `servicePrincipalNames/any(n:n eq '...')` (how a grant, and doctor, find
 * the resource's principal).
 */

const PRINCIPAL_TYPE = BLUEPRINT_PRINCIPAL.type;
const IDENTITY_TYPE = AGENT_IDENTITY.type;
const PRINCIPALS = "/servicePrincipals/microsoft\\.graph\\.agentIdentityBlueprintPrincipal";
const PRINCIPAL = "/servicePrincipals/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentityBlueprintPrincipal";
const IDENTITIES = "/servicePrincipals/microsoft\\.graph\\.agentIdentity";
const IDENTITY = "/servicePrincipals/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentity";

/** A service principal as Graph serves it; the app role assignment routes serve the untyped one. */
export function view(sp: ServicePrincipal): Record<string, unknown> {
  return {
    "@odata.type": `#microsoft.graph.${sp.kind}`,
    id: sp.id,
    appId: sp.appId,
    displayName: sp.displayName,
    servicePrincipalType: sp.servicePrincipalType,
    servicePrincipalNames: sp.servicePrincipalNames,
    accountEnabled: sp.accountEnabled ?? true,
    oauth2PermissionScopes: sp.oauth2PermissionScopes ?? [],
    createdByAppId: sp.createdByAppId ?? null,
    tags: [],
    appRoles: sp.appRoles ?? [],
    ...sp.properties,
    ...(sp.kind === "agentIdentity" ? { agentIdentityBlueprintId: sp.agentIdentityBlueprintId ?? null } : {}),
  };
}

/**
 * Any service principal through the base type's URL, as azuread's
 * getServicePrincipal reads it by object id: on v1.0, then once on beta for
 * `$select=samlMetadataUrl` (serviceprincipal-get; the property is documented
 * on both versions, and the emulator's principals publish no SAML metadata).
 */
function getAny(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const sp = visible(req, ctx, ctx.store.servicePrincipal(req.params.id!.toLowerCase()), req.params.id!);
  requireReach(req, reachOf(sp));
  return entity(req, { ...view(sp), samlMetadataUrl: null }, "microsoft.graph.servicePrincipal", "servicePrincipals");
}

function ofKind(kind: ServicePrincipal["kind"]) {
  return (ctx: EmulatorContext, id: string): ServicePrincipal | undefined => {
    const sp = ctx.store.servicePrincipal(id.toLowerCase());
    return sp?.kind === kind ? sp : undefined;
  };
}
const principalById = ofKind("agentIdentityBlueprintPrincipal");
const identityById = ofKind("agentIdentity");

/** The principals a list shows: those its index has caught up with. */
function all(ctx: EmulatorContext, kind?: ServicePrincipal["kind"]): Array<Record<string, unknown>> {
  return ctx.store
    .servicePrincipals(kind)
    .filter((sp) => ctx.store.listed(sp.createdAt))
    .map(view);
}

function listAny(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const clauses = parseFilter(req, ["appId", "displayName"], ["servicePrincipalNames"]);
  return collection(req, all(ctx).filter((v) => matches(v, clauses)), "microsoft.graph.servicePrincipal", "servicePrincipals");
}

/** A blueprint principal create: on its typed URL, or on the untyped collection for a blueprint's appId (untyped-creates.ts). */
export function createPrincipal(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const body = typedBody(req, BLUEPRINT_PRINCIPAL, ["@odata.type"], true);
  odataType(req, body.values["@odata.type"], PRINCIPAL_TYPE);
  const appId = requiredString(req, body.values, "appId").toLowerCase();
  const app = ctx.store.applicationByAppId(appId);
  if (app && app.kind !== "agentIdentityBlueprint") throw graphError(req, GRAPH_ERRORS.principalNeedsBlueprint(appId));
  const blueprint = referenced(req, ctx, app, "The agent identity blueprint with appId", appId);
  requireReach(req, blueprint);
  if (ctx.store.servicePrincipalByAppId(appId)) throw graphError(req, GRAPH_ERRORS.principalExists(appId));
  const sp = ctx.store.createServicePrincipal({
    id: ctx.store.newId(),
    appId,
    kind: "agentIdentityBlueprintPrincipal",
    displayName: blueprint.displayName,
    servicePrincipalType: "Application",
    servicePrincipalNames: [appId],
    accountEnabled: typeof body.values.accountEnabled === "boolean" ? body.values.accountEnabled : undefined,
    properties: mergeProperties(body, ["appId", "accountEnabled", "displayName"]),
    sponsors: [],
    owners: callerId(req),
    createdByAppId: callerAppId(req),
    graphAppRoles: [],
    managerAppId: blueprint.managerAppId !== undefined && blueprint.managerAppId === createsAsManager(req) ? blueprint.managerAppId : undefined,
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": metadataUrl(req, `servicePrincipals/${PRINCIPAL_TYPE}/$entity`), ...view(sp) }, req.headers);
}

function createIdentity(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const typed = typedBody(req, AGENT_IDENTITY, ["@odata.type", "sponsors@odata.bind", "owners@odata.bind"], true);
  const body = typed.values;
  odataType(req, body["@odata.type"], IDENTITY_TYPE);
  const name = displayName(req, body);
  const blueprintAppId = requiredString(req, body, "agentIdentityBlueprintId").toLowerCase();
  const app = ctx.store.applicationByAppId(blueprintAppId);
  // No application, or a plain one: the usual mistake is the blueprint's object id in place of its appId.
  if (app?.kind !== "agentIdentityBlueprint") throw graphError(req, GRAPH_ERRORS.parentNotABlueprint(blueprintAppId));
  referenced(req, ctx, app, "The agent identity blueprint with appId", blueprintAppId);
  requireIdentityCreator(req, ctx, blueprintAppId);
  // Entra does not create the blueprint principal on its own, and refuses identities without it.
  const principal = ctx.store.servicePrincipalByAppId(blueprintAppId);
  if (!principal) throw graphError(req, GRAPH_ERRORS.blueprintWithoutPrincipal(blueprintAppId));
  referenced(req, ctx, principal, "The blueprint principal", principal.id);
  const id = ctx.store.newId();
  const sp = ctx.store.createServicePrincipal({
    id,
    // Observed on real agent identities: the appId is the object id.
    appId: id,
    kind: "agentIdentity",
    displayName: name,
    servicePrincipalType: "ServiceIdentity",
    servicePrincipalNames: [],
    agentIdentityBlueprintId: blueprintAppId,
    accountEnabled: typeof body.accountEnabled === "boolean" ? body.accountEnabled : undefined,
    properties: mergeProperties(typed, ["agentIdentityBlueprintId", "accountEnabled", "displayName"]),
    sponsors: readSponsorBinds(req, ctx, body["sponsors@odata.bind"], "agent identity"),
    owners: owners(req, ctx, callerId(req), body["owners@odata.bind"]),
    createdByAppId: callerAppId(req),
    graphAppRoles: [],
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": metadataUrl(req, `servicePrincipals/${IDENTITY_TYPE}/$entity`), ...view(sp) }, req.headers);
}

/**
 * Who may create an agent identity under this blueprint, with the codes of
 * the Agent ID error codes page: never an agent identity; a caller whose only
 * permission is scoped to its own blueprint (AgentIdentity.CreateAsManager)
 * only under itself. The page gives no status: the emulator answers 403, as
 * for any other caller a permission does not reach.
 */
function requireIdentityCreator(req: EmulatorRequest, ctx: EmulatorContext, blueprintAppId: string): void {
  const appId = callerAppId(req);
  if (appId && ctx.store.agentIdentity(appId)) throw graphError(req, GRAPH_ERRORS.identityCreatingIdentity());
  if (isReached(req, { blueprintAppId })) return;
  const callerIsBlueprint = appId !== undefined && ctx.store.applicationByAppId(appId)?.kind === "agentIdentityBlueprint";
  throw graphError(req, callerIsBlueprint ? GRAPH_ERRORS.blueprintCreatingOthersIdentity() : GRAPH_ERRORS.identitySelfCreateRequired());
}

/** What the reach of a permission on a blueprint principal or an agent identity is judged on. */
function reachOf(sp: ServicePrincipal | undefined): ReachTarget | undefined {
  return sp && { owners: sp.owners, managerAppId: sp.managerAppId, blueprintAppId: sp.agentIdentityBlueprintId };
}

function updateIdentity(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const sp = identityById(ctx, req.params.id!);
  requireReach(req, reachOf(sp));
  if (!sp) throw resourceNotFound(req, req.params.id!);
  const typed = typedBody(req, AGENT_IDENTITY, ["@odata.type"], false);
  const body = typed.values;
  odataType(req, body["@odata.type"], IDENTITY_TYPE);
  // Every field is checked before any is stored: a refused PATCH changes nothing.
  ctx.store.updateServicePrincipal(sp.id, {
    displayName: body.displayName !== undefined ? displayName(req, body) : sp.displayName,
    accountEnabled: typeof body.accountEnabled === "boolean" ? body.accountEnabled : sp.accountEnabled,
    properties: mergeProperties(typed, ["accountEnabled", "displayName"], sp.properties),
  });
  return graphNoContent(req.headers);
}

/** The routes one typed service principal collection shares. */
interface TypedCollection {
  operations: { list: OperationId; create: OperationId; get: OperationId; delete: OperationId; owners: OperationId };
  kind: ServicePrincipal["kind"];
  collectionPath: string;
  objectPath: string;
  find: (ctx: EmulatorContext, id: string) => ServicePrincipal | undefined;
  create: Route["handler"];
}

function typedRoutes(c: TypedCollection): Route[] {
  const type = `microsoft.graph.${c.kind}`;
  const context = `servicePrincipals/${type}`;
  const list = (req: EmulatorRequest, ctx: EmulatorContext) => {
    const clauses = parseFilter(req, ["appId", "displayName", "agentIdentityBlueprintId"]);
    return collection(req, all(ctx, c.kind).filter((v) => matches(v, clauses)), type, context);
  };
  const get = (req: EmulatorRequest, ctx: EmulatorContext) => {
    const sp = visible(req, ctx, c.find(ctx, req.params.id!), req.params.id!);
    requireReach(req, reachOf(sp));
    return entity(req, view(sp), type, context);
  };
  const remove = (req: EmulatorRequest, ctx: EmulatorContext) => {
    const sp = c.find(ctx, req.params.id!);
    requireReach(req, reachOf(sp));
    if (!sp) throw resourceNotFound(req, req.params.id!);
    ctx.store.deleteServicePrincipal(sp.id);
    return graphNoContent(req.headers);
  };
  return [
    { method: "GET", pattern: new RegExp(`^${c.collectionPath}$`), surface: "graph", operation: c.operations.list, handler: list },
    { method: "POST", pattern: new RegExp(`^${c.collectionPath}$`), surface: "graph", operation: c.operations.create, handler: c.create },
    { method: "GET", pattern: new RegExp(`^${c.objectPath}$`), surface: "graph", operation: c.operations.get, handler: get },
    { method: "DELETE", pattern: new RegExp(`^${c.objectPath}$`), surface: "graph", operation: c.operations.delete, handler: remove },
    ownerRoute(c.objectPath, c.operations.owners, c.find),
  ];
}

export const servicePrincipalRoutes: Route[] = [
  { method: "GET", pattern: /^\/servicePrincipals$/, surface: "graph", operation: "servicePrincipal.list", handler: listAny },
  ...typedRoutes({
    operations: { list: "principal.list", create: "principal.create", get: "principal.get", delete: "principal.delete", owners: "principal.owners.list" },
    kind: "agentIdentityBlueprintPrincipal",
    collectionPath: PRINCIPALS,
    objectPath: PRINCIPAL,
    find: principalById,
    create: createPrincipal,
  }),
  ...typedRoutes({
    operations: { list: "identity.list", create: "identity.create", get: "identity.get", delete: "identity.delete", owners: "identity.owners.list" },
    kind: "agentIdentity",
    collectionPath: IDENTITIES,
    objectPath: IDENTITY,
    find: identityById,
    create: createIdentity,
  }),
  { method: "PATCH", pattern: new RegExp(`^${IDENTITY}$`), surface: "graph", operation: "identity.update", handler: updateIdentity },
  ...sponsorRoutes(IDENTITY, { list: "identity.sponsors.list", add: "identity.sponsors.add", remove: "identity.sponsors.remove" }, { name: "agent identity", keepsOne: true }, identityById),
  // After the typed collections, whose paths `/servicePrincipals/{id}` would match too.
  { method: "GET", pattern: new RegExp(`^/servicePrincipals/${keySegment("id")}$`), surface: "graph", operation: "servicePrincipal.get", handler: getAny },
];
