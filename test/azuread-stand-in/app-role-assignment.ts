/**
 * azuread:index/appRoleAssignment:AppRoleAssignment, as terraform-provider-azuread
 * internal/services/approleassignments/app_role_assignment_resource.go
 * manages it: every input ForceNew, no update.
 * - create: GET `/servicePrincipals/{resource}`, then
 *   `POST /servicePrincipals/{resource}/appRoleAssignedTo` with
 *   `{"@odata.type": "#microsoft.graph.appRoleAssignment", appRoleId,
 *   principalId, resourceId}`, retried while Graph answers 404 or a 400 "Not
 *   a valid reference update". The id is
 *   `/servicePrincipals/{resourceId the answer names}/appRoleAssignedTo/{id}`;
 *   azuread reads it straight back.
 * - read: `GET /servicePrincipals/{resource}/appRoleAssignedTo/{id}`; a 404 is gone.
 * - delete: `DELETE` of the same path.
 */
import { text, type JsonObject } from "./application";
import { postReplicated, readAfterCreate } from "./created-object";
import { azureadError, parsedId } from "./failure";
import { EXPECTED, wasNotFound } from "./graph";
import { assignmentPath, describeAssignment, parseAssignmentId, servicePrincipalPath } from "./ids";
import type { Operation, ResourceKind } from "./resource";
import { uuid } from "./validation";

const TOKEN = "azuread:index/appRoleAssignment:AppRoleAssignment";
const TYPE = "#microsoft.graph.appRoleAssignment";
/** The 400 Graph answers while the principal has not replicated (the create's RetryFunc). */
const NOT_REPLICATED = /Not a valid reference update/;

export const assignmentBody = (inputs: JsonObject): JsonObject => ({
  "@odata.type": TYPE,
  appRoleId: inputs.appRoleId,
  principalId: inputs.principalObjectId,
  resourceId: inputs.resourceObjectId,
});

async function create(op: Operation, inputs: JsonObject): Promise<{ id: string; outs: JsonObject }> {
  const resourceId = String(inputs.resourceObjectId);
  try {
    await op.graph.call({ method: "GET", path: servicePrincipalPath(resourceId), expect: EXPECTED.get });
  } catch (err) {
    if (wasNotFound(err)) throw azureadError(`Service principal not found for resource (Object ID: ${JSON.stringify(resourceId)})`, err, "principal_object_id");
    throw azureadError(`Could not retrieve service principal for resource (Object ID: ${JSON.stringify(resourceId)})`, err);
  }
  const made = await postReplicated(op, {
    path: `${servicePrincipalPath(resourceId)}/appRoleAssignedTo`,
    body: assignmentBody(inputs),
    notReplicated: NOT_REPLICATED,
    failure: "Could not create app role assignment",
  });
  if (!text(made, "id")) throw azureadError("Bad API response", "ID returned for app role assignment is nil");
  if (!text(made, "resourceId")) throw azureadError("Bad API response", "Resource ID returned for app role assignment is nil");
  const id = assignmentPath({ resourceId: text(made, "resourceId"), assignmentId: text(made, "id") });
  const given = { appRoleId: inputs.appRoleId, principalObjectId: inputs.principalObjectId, resourceObjectId: inputs.resourceObjectId };
  const outs = await readAfterCreate(() => read(op, id), id, given, () => azureadError(`retrieving ${describeAssignment(parseAssignmentId(id))}`, "not found right after its create"));
  return { id, outs };
}

const keyOf = (id: string) => parsedId(id, parseAssignmentId, "Parsing App Role Assignment ID");

async function read(op: Operation, id: string): Promise<JsonObject | undefined> {
  const key = keyOf(id);
  let assignment: JsonObject;
  try {
    assignment = ((await op.graph.call({ method: "GET", path: assignmentPath(key), expect: EXPECTED.get })).body ?? {}) as JsonObject;
  } catch (err) {
    if (wasNotFound(err)) return undefined;
    throw azureadError(`retrieving ${describeAssignment(key)}`, err);
  }
  return {
    appRoleId: text(assignment, "appRoleId"),
    principalDisplayName: text(assignment, "principalDisplayName"),
    principalObjectId: text(assignment, "principalId"),
    principalType: text(assignment, "principalType"),
    resourceDisplayName: text(assignment, "resourceDisplayName"),
    resourceObjectId: text(assignment, "resourceId"),
  };
}

async function remove(op: Operation, id: string): Promise<void> {
  const key = keyOf(id);
  try {
    await op.graph.call({ method: "DELETE", path: assignmentPath(key), expect: EXPECTED.delete });
  } catch (err) {
    // Upstream puts the error in the summary and in the detail.
    throw azureadError(`Deleting ${describeAssignment(key)}: ${(err as Error).message}`, err, "id");
  }
}

export const appRoleAssignment: ResourceKind = {
  token: TOKEN,
  rules: {
    appRoleId: { forceNew: true, validate: uuid },
    principalObjectId: { forceNew: true, validate: uuid },
    resourceObjectId: { forceNew: true, validate: uuid },
  },
  secretOutputs: [],
  create,
  read,
  delete: remove,
};
