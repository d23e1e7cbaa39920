/**
 * azuread:index/servicePrincipalDelegatedPermissionGrant:ServicePrincipalDelegatedPermissionGrant,
 * as terraform-provider-azuread
 * internal/services/serviceprincipals/service_principal_delegated_permission_grant_resource.go
 * manages it: the three object ids ForceNew, claimValues (a set) updated in place.
 * - create: GET `/servicePrincipals/{client}` and `/servicePrincipals/{resource}`,
 *   then `POST /oauth2PermissionGrants` with `{"@odata.type":
 *   "#microsoft.graph.oAuth2PermissionGrant", clientId, consentType,
 *   principalId, resourceId, scope}` (consentType Principal with the user,
 *   else AllPrincipals; scope the claim values space-joined in the set's
 *   order), retried while Graph answers 404 or a 400 that a referenced object
 *   does not exist yet. The id is `/oauth2PermissionGrants/{id}`. No wait:
 *   azuread reads it straight back.
 * - update: `PATCH /oauth2PermissionGrants/{id}` `{"@odata.type", scope}`.
 * - read: GET the grant; a 404 is gone. The claim values are the scope's.
 * - delete: `DELETE /oauth2PermissionGrants/{id}`.
 */
import { givenInputs, text, type JsonObject } from "./application";
import { postReplicated, readAfterCreate } from "./created-object";
import { azureadError, parsedId } from "./failure";
import { EXPECTED, wasNotFound, type Graph } from "./graph";
import { describeGrant, describeServicePrincipal, grantId, parseGrantId, servicePrincipalPath } from "./ids";
import type { Operation, ResourceKind } from "./resource";
import { terraformSetOrder } from "./set-order";
import { listOf, notEmpty, uuid } from "./validation";

const TOKEN = "azuread:index/servicePrincipalDelegatedPermissionGrant:ServicePrincipalDelegatedPermissionGrant";
const TYPE = "#microsoft.graph.oAuth2PermissionGrant";
/** The 400 Graph answers while a principal the grant names has not replicated (the create's RetryFunc). */
const NOT_REPLICATED = /does not exist or one of its queried reference-property objects are not present/;

export const scopeOf = (claimValues: unknown): string => terraformSetOrder(Array.isArray(claimValues) ? claimValues.map(String) : []).join(" ");

/** The create's body. */
export function grantBody(inputs: JsonObject): JsonObject {
  const body: JsonObject = {
    "@odata.type": TYPE,
    clientId: inputs.servicePrincipalObjectId,
    resourceId: inputs.resourceServicePrincipalObjectId,
    scope: scopeOf(inputs.claimValues),
    consentType: "AllPrincipals",
  };
  if (typeof inputs.userObjectId === "string" && inputs.userObjectId !== "") {
    body.principalId = inputs.userObjectId;
    body.consentType = "Principal";
  }
  return body;
}

/** Both principals must exist before the grant is asked for, as azuread checks. */
async function requirePrincipals(graph: Graph, clientId: string, resourceId: string): Promise<void> {
  const checks: Array<[string, string, string]> = [
    [clientId, `${describeServicePrincipal(clientId)} was not found)`, `Could not retrieve ${describeServicePrincipal(clientId)}`],
    [resourceId, `${describeServicePrincipal(resourceId)} not found for resource`, `Could not retrieve ${describeServicePrincipal(resourceId)} for resource`],
  ];
  for (const [id, missing, failed] of checks) {
    try {
      await graph.call({ method: "GET", path: servicePrincipalPath(id), expect: EXPECTED.get });
    } catch (err) {
      // Upstream's summary for a missing client has the stray ")", and both name principal_object_id.
      if (wasNotFound(err)) throw azureadError(missing, err, "principal_object_id");
      throw azureadError(failed, err);
    }
  }
}

async function create(op: Operation, inputs: JsonObject): Promise<{ id: string; outs: JsonObject }> {
  await requirePrincipals(op.graph, String(inputs.servicePrincipalObjectId), String(inputs.resourceServicePrincipalObjectId));
  const made = await postReplicated(op, { path: "/oauth2PermissionGrants", body: grantBody(inputs), notReplicated: NOT_REPLICATED, failure: "Could not create delegated permission grant" });
  if (!text(made, "id")) throw azureadError("Bad API response", "ID returned for delegated permission grant is nil");
  const id = grantId(text(made, "id"));
  const missing = () => azureadError(`Retrieving Delegated Permission Grant with ID ${JSON.stringify(id)}`, "not found right after its create", "id");
  const outs = await readAfterCreate(() => read(op, id, givenInputs(inputs)), id, givenInputs(inputs), missing);
  return { id, outs };
}

const keyOf = (id: string) => parsedId(id, parseGrantId, "Parsing ID");

async function read(op: Operation, id: string, state: JsonObject): Promise<JsonObject | undefined> {
  const key = keyOf(id);
  let grant: JsonObject;
  try {
    grant = ((await op.graph.call({ method: "GET", path: `/oauth2PermissionGrants/${key}`, expect: EXPECTED.get })).body ?? {}) as JsonObject;
  } catch (err) {
    if (wasNotFound(err)) return undefined;
    throw azureadError(`Retrieving Delegated Permission Grant with ID ${JSON.stringify(id)}`, err, "id");
  }
  return {
    ...state,
    // A set's elements come out of the bridge in cty's order, which sorts strings.
    claimValues: text(grant, "scope").split(" ").filter(Boolean).sort(),
    resourceServicePrincipalObjectId: text(grant, "resourceId"),
    servicePrincipalObjectId: text(grant, "clientId"),
    userObjectId: text(grant, "principalId"),
  };
}

async function update(op: Operation, id: string, _olds: JsonObject, news: JsonObject): Promise<JsonObject> {
  const key = keyOf(id);
  try {
    await op.graph.call({ method: "PATCH", path: `/oauth2PermissionGrants/${key}`, body: { "@odata.type": TYPE, scope: scopeOf(news.claimValues) }, expect: EXPECTED.update });
  } catch (err) {
    throw azureadError(`Updating ${describeGrant(key)}`, err);
  }
  const outs = await read(op, id, givenInputs(news));
  if (!outs) throw azureadError(`Retrieving Delegated Permission Grant with ID ${JSON.stringify(id)}`, "not found right after its update", "id");
  return outs;
}

async function remove(op: Operation, id: string): Promise<void> {
  const key = keyOf(id);
  try {
    await op.graph.call({ method: "DELETE", path: `/oauth2PermissionGrants/${key}`, expect: EXPECTED.delete });
  } catch (err) {
    throw azureadError(`Deleting ${describeGrant(key)}`, err, "id");
  }
}

export const servicePrincipalDelegatedPermissionGrant: ResourceKind = {
  token: TOKEN,
  rules: {
    claimValues: { set: true, validate: listOf(notEmpty, 1) },
    resourceServicePrincipalObjectId: { forceNew: true, validate: uuid },
    servicePrincipalObjectId: { forceNew: true, validate: uuid },
    userObjectId: { forceNew: true, validate: uuid },
  },
  secretOutputs: [],
  create,
  read,
  update,
  delete: remove,
};
