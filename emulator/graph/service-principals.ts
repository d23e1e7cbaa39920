import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { ServicePrincipal } from "../store";
import type { OperationId } from "../../lib/graph-permissions";
import { callerAppId, callerId, createsAsManager, isReached, requireReach, type ReachTarget } from "./directory-auth";
import { displayName, owners, referenced, resourceNotFound, readSponsorBinds, visible } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, jsonBody, matches, odataType, parseFilter, requireODataVersion, requiredString } from "./odata";
import { sponsorRoutes } from "./sponsors";

/**
 * Service principals: blueprint principals and agent identities on their
 * typed URLs, and the untyped collection's lookups by `appId eq '...'` or
 * `servicePrincipalNames/any(n:n eq '...')` (how a grant, and doctor, find
 * the resource's principal).
 */

const PRINCIPAL_TYPE = "microsoft.graph.agentIdentityBlueprintPrincipal";
const IDENTITY_TYPE = "microsoft.graph.agentIdentity";
const PRINCIPALS = "/v1\\.0/servicePrincipals/microsoft\\.graph\\.agentIdentityBlueprintPrincipal";
const PRINCIPAL = "/v1\\.0/servicePrincipals/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentityBlueprintPrincipal";
const IDENTITIES = "/v1\\.0/servicePrincipals/microsoft\\.graph\\.agentIdentity";
const IDENTITY = "/v1\\.0/servicePrincipals/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentity";

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
    appRoles: sp.appRoles ?? [],
    ...(sp.kind === "agentIdentity" ? { agentIdentityBlueprintId: sp.agentIdentityBlueprintId ?? null } : {}),
  };
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

function createPrincipal(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  requireODataVersion(req);
  const principalBody = jsonBody(req, ["@odata.type", "appId"]);
  odataType(req, principalBody, PRINCIPAL_TYPE);
  const appId = requiredString(req, principalBody, "appId").toLowerCase();
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
    sponsors: [],
    owners: callerId(req),
    graphAppRoles: [],
    managerAppId: blueprint.managerAppId !== undefined && blueprint.managerAppId === createsAsManager(req) ? blueprint.managerAppId : undefined,
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#servicePrincipals/${PRINCIPAL_TYPE}/$entity`, ...view(sp) }, req.headers);
}

function createIdentity(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  requireODataVersion(req);
  const body = jsonBody(req, ["@odata.type", "displayName", "agentIdentityBlueprintId", "sponsors@odata.bind", "owners@odata.bind"]);
  odataType(req, body, IDENTITY_TYPE);
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
    sponsors: readSponsorBinds(req, ctx, body["sponsors@odata.bind"], "agent identity"),
    owners: owners(req, ctx, callerId(req), body["owners@odata.bind"]),
    graphAppRoles: [],
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#servicePrincipals/${IDENTITY_TYPE}/$entity`, ...view(sp) }, req.headers);
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
  const body = jsonBody(req, ["@odata.type", "displayName"]);
  odataType(req, body, IDENTITY_TYPE);
  if (body.displayName !== undefined) ctx.store.updateServicePrincipal(sp.id, { displayName: displayName(req, body) });
  return graphNoContent(req.headers);
}

/** The routes one typed service principal collection shares. */
interface TypedCollection {
  operations: { list: OperationId; create: OperationId; get: OperationId; delete: OperationId };
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
  ];
}

export const servicePrincipalRoutes: Route[] = [
  { method: "GET", pattern: /^\/v1\.0\/servicePrincipals$/, surface: "graph", operation: "servicePrincipal.list", handler: listAny },
  ...typedRoutes({
    operations: { list: "principal.list", create: "principal.create", get: "principal.get", delete: "principal.delete" },
    kind: "agentIdentityBlueprintPrincipal",
    collectionPath: PRINCIPALS,
    objectPath: PRINCIPAL,
    find: principalById,
    create: createPrincipal,
  }),
  ...typedRoutes({
    operations: { list: "identity.list", create: "identity.create", get: "identity.get", delete: "identity.delete" },
    kind: "agentIdentity",
    collectionPath: IDENTITIES,
    objectPath: IDENTITY,
    find: identityById,
    create: createIdentity,
  }),
  { method: "PATCH", pattern: new RegExp(`^${IDENTITY}$`), surface: "graph", operation: "identity.update", handler: updateIdentity },
  ...sponsorRoutes(IDENTITY, { list: "identity.sponsors.list", add: "identity.sponsors.add", remove: "identity.sponsors.remove" }, { name: "agent identity", keepsOne: true }, identityById),
];
