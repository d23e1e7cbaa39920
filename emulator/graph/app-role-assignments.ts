import { isGuid } from "../../lib/entra-rules";
import { keySegment } from "../pipeline/graph-path";
import { newAssignmentId, type AppRoleAssignment } from "../app-role-assignments";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { ServicePrincipal } from "../store";
import { referenced, resourceNotFound, visible } from "./directory";
import { requireReach } from "./directory-auth";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, metadataUrl, requiredString } from "./odata";
import { jsonBody, odataType } from "./request-body";

/**
 * App role assignments, as azuread's AppRoleAssignment manages them: through
 * the resource service principal's `appRoleAssignedTo` (a read of the
 * resource first, then create, read and delete of the assignment), the route
 * Microsoft recommends for assigning to an agent identity too
 * (agentidentity-post-approleassignments, beta); and the list of the roles a
 * principal holds, which `doctor` reads. Graph shows a new assignment at
 * once; tokens carry it after the store's replication lag.
 */

const SP = `/servicePrincipals/${keySegment("id")}`;
const TYPE = "microsoft.graph.appRoleAssignment";

function view(a: AppRoleAssignment): Record<string, unknown> {
  const { id, appRoleId, principalId, principalType, principalDisplayName, resourceId, resourceDisplayName } = a;
  return { id, deletedDateTime: null, appRoleId, createdDateTime: new Date(a.createdAt).toISOString(), principalDisplayName, principalId, principalType, resourceDisplayName, resourceId };
}

/** The service principal the URL names, by object id, once it has replicated. */
function principalOf(req: EmulatorRequest, ctx: EmulatorContext): ServicePrincipal {
  const sp = visible(req, ctx, ctx.store.servicePrincipal(req.params.id!.toLowerCase()), req.params.id!);
  requireReach(req, { owners: sp.owners });
  return sp;
}

function guid(req: EmulatorRequest, body: Record<string, unknown>, name: string): string {
  const value = requiredString(req, body, name).toLowerCase();
  if (!isGuid(value)) throw graphError(req, GRAPH_ERRORS.notAGuid(name));
  return value;
}

/** POST …/appRoleAssignedTo `{principalId, resourceId, appRoleId}`: the resource is the URL's, the role one it publishes for applications. */
function create(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const { store } = ctx;
  const resource = principalOf(req, ctx);
  // A body may name its own type, as HashiCorp's Graph client does on every write (OData's type annotation).
  const body = jsonBody(req, ["@odata.type", "principalId", "resourceId", "appRoleId"]);
  odataType(req, body["@odata.type"], TYPE);
  const principalId = guid(req, body, "principalId");
  const resourceId = guid(req, body, "resourceId");
  const appRoleId = guid(req, body, "appRoleId");
  if (resourceId !== resource.id) throw graphError(req, GRAPH_ERRORS.assignmentResourceMismatch(resource.id));
  const principal = referenced(req, ctx, store.servicePrincipal(principalId), "The principal", principalId);
  const role = (resource.appRoles ?? []).find((r) => r.id === appRoleId && r.isEnabled && r.allowedMemberTypes.includes("Application"));
  if (!role) throw graphError(req, GRAPH_ERRORS.appRoleNotFound(appRoleId));
  if (store.appRoleAssignments.of("principalId", principal.id).some((a) => a.resourceId === resource.id && a.appRoleId === appRoleId)) {
    throw graphError(req, GRAPH_ERRORS.appRoleAssignmentExists());
  }
  const assignment = store.appRoleAssignments.create({
    id: newAssignmentId(),
    appRoleId,
    principalId: principal.id,
    principalType: "ServicePrincipal",
    principalDisplayName: principal.displayName,
    resourceId: resource.id,
    resourceDisplayName: resource.displayName,
    createdAt: store.stamp(),
  });
  return graphCreated({ "@odata.context": metadataUrl(req, `servicePrincipals('${resource.id}')/appRoleAssignedTo/$entity`), ...view(assignment) }, req.headers);
}

/** The assignment the URL names on its resource; one on another resource is not found there. */
function assignmentOf(req: EmulatorRequest, ctx: EmulatorContext): AppRoleAssignment {
  const resource = principalOf(req, ctx);
  const assignment = ctx.store.appRoleAssignments.get(req.params.assignmentId!);
  if (!assignment || assignment.resourceId !== resource.id) throw resourceNotFound(req, req.params.assignmentId!);
  return assignment;
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  return entity(req, view(assignmentOf(req, ctx)), TYPE, `servicePrincipals('${req.params.id}')/appRoleAssignedTo`);
}

function remove(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  ctx.store.appRoleAssignments.delete(assignmentOf(req, ctx).id);
  return graphNoContent(req.headers);
}

/** GET …/appRoleAssignments: the app roles the principal holds, on every resource. */
function listHeld(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const principal = principalOf(req, ctx);
  return collection(req, ctx.store.appRoleAssignments.of("principalId", principal.id).map(view), TYPE, `servicePrincipals('${principal.id}')/appRoleAssignments`);
}

export const appRoleAssignmentRoutes: Route[] = [
  { method: "POST", pattern: new RegExp(`^${SP}/appRoleAssignedTo$`), surface: "graph", operation: "appRoleAssignedTo.create", handler: create },
  { method: "GET", pattern: new RegExp(`^${SP}/appRoleAssignedTo/(?<assignmentId>[^/]+)$`), surface: "graph", operation: "appRoleAssignedTo.get", handler: get },
  { method: "DELETE", pattern: new RegExp(`^${SP}/appRoleAssignedTo/(?<assignmentId>[^/]+)$`), surface: "graph", operation: "appRoleAssignedTo.delete", handler: remove },
  { method: "GET", pattern: new RegExp(`^${SP}/appRoleAssignments$`), surface: "graph", operation: "appRoleAssignments.list", handler: listHeld },
];
