/**
 * azuread:index/applicationFederatedIdentityCredential:ApplicationFederatedIdentityCredential,
 * as terraform-provider-azuread
 * internal/services/applications/application_federated_identity_credential_resource.go
 * manages it: applicationId and displayName ForceNew, the rest updated in place.
 * - create: GET the application, `POST /applications/{id}/federatedIdentityCredentials`
 *   with `{"@odata.type": "#microsoft.graph.federatedIdentityCredential",
 *   audiences, description, issuer, name, subject}` (description "" when not
 *   given), then GET `…/federatedIdentityCredentials/{credential id}` until it
 *   answers (azuread: five in a row; the stand-in: one). The id is
 *   `{object id}/federatedIdentityCredential/{credential id}`.
 * - update: `PATCH …/federatedIdentityCredentials/{credential id}` with every
 *   field, `id` and the unchanged name included.
 * - read: GET the credential; a 404 is gone.
 * - delete: `DELETE …/federatedIdentityCredentials/{credential id}`, then one
 *   read-back that must answer 404.
 */
import { getApplication, givenInputs, text, type JsonObject } from "./application";
import { azureadError, parsedId } from "./failure";
import { EXPECTED, wasNotFound, type Graph } from "./graph";
import { applicationObjectId, applicationPath, credentialId, describeApplication, describeFederatedCredential, parseCredentialId } from "./ids";
import { lockedBy } from "./locks";
import type { Operation, ResourceKind } from "./resource";
import { applicationId, lengthBetween, listOf, notEmpty } from "./validation";

const TOKEN = "azuread:index/applicationFederatedIdentityCredential:ApplicationFederatedIdentityCredential";
const TYPE = "#microsoft.graph.federatedIdentityCredential";

const credentialPath = (objectId: string, id: string) => `${applicationPath(objectId)}/federatedIdentityCredentials/${id}`;

/** The credential's fields as the program gives them, in Graph's names. */
export function credentialBody(inputs: JsonObject): JsonObject {
  return {
    "@odata.type": TYPE,
    audiences: Array.isArray(inputs.audiences) ? inputs.audiences : [],
    description: typeof inputs.description === "string" ? inputs.description : "",
    issuer: String(inputs.issuer ?? ""),
    name: String(inputs.displayName ?? ""),
    subject: String(inputs.subject ?? ""),
  };
}

const stateOf = (objectId: string, id: string, read: JsonObject): JsonObject => ({
  applicationId: applicationPath(objectId),
  credentialId: id,
  audiences: Array.isArray(read.audiences) ? read.audiences : [],
  description: text(read, "description"),
  displayName: text(read, "name"),
  issuer: text(read, "issuer"),
  subject: text(read, "subject"),
});

async function getCredential(graph: Graph, objectId: string, id: string): Promise<JsonObject> {
  const { body } = await graph.call({ method: "GET", path: credentialPath(objectId, id), expect: EXPECTED.get });
  return (body ?? {}) as JsonObject;
}

async function create(op: Operation, inputs: JsonObject): Promise<{ id: string; outs: JsonObject }> {
  const objectId = applicationObjectId(String(inputs.applicationId))!;
  const app = describeApplication(objectId);
  return lockedBy(objectId, async () => {
    try {
      await getApplication(op.graph, objectId);
    } catch (err) {
      // Upstream formats the error into the summary and adds it as the detail too.
      throw azureadError(`retrieving ${app}: ${(err as Error).message}`, err);
    }
    let made: JsonObject;
    try {
      const { body } = await op.graph.call({ method: "POST", path: `${applicationPath(objectId)}/federatedIdentityCredentials`, body: credentialBody(inputs), expect: EXPECTED.create });
      made = (body ?? {}) as JsonObject;
    } catch (err) {
      throw azureadError(`Adding federated identity credential for ${app}`, err);
    }
    const ficId = text(made, "id");
    if (!ficId) throw azureadError(`API error adding federated identity credential for ${app}`, "nil or empty ID received");
    const described = describeFederatedCredential(objectId, ficId);
    let read: JsonObject;
    try {
      read = await getCredential(op.graph, objectId, ficId);
    } catch (err) {
      // Upstream's summary has no space before the id.
      if (wasNotFound(err)) throw azureadError(`Waiting for federated identity credential${described}`, "federated identity credential not found in application manifest");
      throw azureadError(`Waiting for ${described}`, err);
    }
    return { id: credentialId({ objectId, kind: "federatedIdentityCredential", keyId: ficId }), outs: { ...givenInputs(inputs), ...stateOf(objectId, ficId, read) } };
  });
}

const keyOf = (id: string) => parsedId(id, (v) => parseCredentialId(v, "federatedIdentityCredential"), `Parsing federated identity credential with ID ${JSON.stringify(id)}`);

async function read(op: Operation, id: string, state: JsonObject): Promise<JsonObject | undefined> {
  const { objectId, keyId } = keyOf(id);
  try {
    return { ...state, ...stateOf(objectId, keyId, await getCredential(op.graph, objectId, keyId)) };
  } catch (err) {
    if (wasNotFound(err)) return undefined;
    throw azureadError(`Retrieving federated identity credential with ID ${JSON.stringify(keyId)} for application with object ID ${JSON.stringify(objectId)}`, err, "id");
  }
}

async function update(op: Operation, id: string, _olds: JsonObject, news: JsonObject): Promise<JsonObject> {
  const { objectId, keyId } = keyOf(id);
  await lockedBy(objectId, async () => {
    try {
      await op.graph.call({ method: "PATCH", path: credentialPath(objectId, keyId), body: { ...credentialBody(news), id: keyId }, expect: EXPECTED.update });
    } catch (err) {
      throw azureadError(`Updating federated identity credential with ID ${JSON.stringify(keyId)} for application with object ID ${JSON.stringify(objectId)}`, err);
    }
  });
  const outs = await read(op, id, givenInputs(news));
  if (!outs) throw azureadError(`Retrieving federated identity credential with ID ${JSON.stringify(keyId)}`, "not found after its update");
  return outs;
}

async function remove(op: Operation, id: string): Promise<void> {
  const { objectId, keyId } = keyOf(id);
  const described = describeFederatedCredential(objectId, keyId);
  await lockedBy(objectId, async () => {
    try {
      await op.graph.call({ method: "DELETE", path: credentialPath(objectId, keyId), expect: EXPECTED.delete });
    } catch (err) {
      throw azureadError(`Removing ${described}`, err);
    }
    try {
      await getCredential(op.graph, objectId, keyId);
    } catch (err) {
      if (wasNotFound(err)) return;
      throw azureadError(`Waiting for deletion of ${described}`, `retrieving resource: ${(err as Error).message}`);
    }
    throw azureadError(`Waiting for deletion of ${described}`, "the credential still answered when the stand-in read it back");
  });
}

export const applicationFederatedIdentityCredential: ResourceKind = {
  token: TOKEN,
  rules: {
    applicationId: { forceNew: true, validate: applicationId },
    audiences: { validate: listOf(notEmpty, 1, 1) },
    description: {},
    displayName: { forceNew: true, validate: lengthBetween(1, 120) },
    issuer: {},
    subject: {},
  },
  secretOutputs: [],
  create,
  read,
  update,
  delete: remove,
};
