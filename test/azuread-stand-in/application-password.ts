/**
 * azuread:index/applicationPassword:ApplicationPassword, as
 * terraform-provider-azuread internal/services/applications/application_password_resource.go
 * manages it: every input ForceNew, no update.
 * - create: GET the application, `POST /applications/{id}/addPassword` with
 *   `{passwordCredential: {displayName, startDateTime, endDateTime}}` (the
 *   ones given; credentials.go PasswordCredentialForResource, which ignores
 *   end_date_relative), then GET the application until the keyId shows up.
 *   azuread polls for five reads in a row; the stand-in reads back once.
 *   The id is `{application object id}/password/{keyId}`; `value` is the
 *   secretText, which nothing can read again.
 * - read: GET the application; a 404, or no credential of that keyId, is gone.
 * - delete: `POST /applications/{id}/removePassword` `{keyId}`, then one
 *   read-back (azuread waits until five reads in a row miss it).
 */
import { credentialAdded, credentialRemoved, credentialsOf, findCredential, getApplication, givenInputs, text, type JsonObject } from "./application";
import { azureadError, parsedId } from "./failure";
import { EXPECTED, wasNotFound } from "./graph";
import { applicationObjectId, applicationPath, credentialId, describeApplication, parseCredentialId } from "./ids";
import { lockedBy } from "./locks";
import type { Operation, ResourceKind } from "./resource";
import { applicationId, notEmpty, rfc3339, rfc3339Time } from "./validation";

const TOKEN = "azuread:index/applicationPassword:ApplicationPassword";

/** The addPassword body's credential: only what the program set, dates as Go formats them. */
export function passwordCredential(inputs: JsonObject): JsonObject {
  const credential: JsonObject = {};
  if (typeof inputs.displayName === "string" && inputs.displayName !== "") credential.displayName = inputs.displayName;
  if (typeof inputs.startDate === "string" && inputs.startDate !== "") credential.startDateTime = rfc3339(inputs.startDate);
  if (typeof inputs.endDate === "string" && inputs.endDate !== "") credential.endDateTime = rfc3339(inputs.endDate);
  return credential;
}

/** What Read sets from the credential; a display name may come back only as customKeyIdentifier (base64). */
function stateOf(objectId: string, keyId: string, credential: JsonObject): JsonObject {
  const state: JsonObject = { applicationId: applicationPath(objectId), keyId, startDate: text(credential, "startDateTime"), endDate: text(credential, "endDateTime") };
  if (typeof credential.displayName === "string") state.displayName = credential.displayName;
  else if (typeof credential.customKeyIdentifier === "string") state.displayName = Buffer.from(credential.customKeyIdentifier, "base64").toString("utf8");
  return state;
}

async function create(op: Operation, inputs: JsonObject): Promise<{ id: string; outs: JsonObject }> {
  const objectId = applicationObjectId(String(inputs.applicationId))!;
  const app = describeApplication(objectId);
  const credential = passwordCredential(inputs);
  return lockedBy(objectId, async () => {
    try {
      await getApplication(op.graph, objectId);
    } catch (err) {
      if (wasNotFound(err)) throw azureadError(`${app} was not found`, undefined, "application_id");
      throw azureadError(`Retrieving ${app}`, err, "application_id");
    }
    let added: JsonObject;
    try {
      const { body } = await op.graph.call({ method: "POST", path: `${applicationPath(objectId)}/addPassword`, body: { passwordCredential: credential }, expect: EXPECTED.create });
      added = (body ?? {}) as JsonObject;
    } catch (err) {
      throw azureadError(`Adding password for ${app}`, err);
    }
    const keyId = text(added, "keyId");
    if (!keyId) throw azureadError(`API error adding password for ${app}`, "nil or empty keyId received");
    const secretText = text(added, "secretText");
    if (!secretText) throw azureadError(`API error adding password for ${app}`, "nil or empty password received");
    const id = credentialId({ objectId, kind: "password", keyId });
    const read = await credentialAdded(op.graph, objectId, "passwordCredentials", keyId, `Waiting for password credential for ${app}`, "password credential not found in application manifest");
    return { id, outs: { ...givenInputs(inputs), ...stateOf(objectId, keyId, read), value: secretText } };
  });
}

const keyOf = (id: string) => parsedId(id, (v) => parseCredentialId(v, "password"), `Parsing password credential with ID ${JSON.stringify(id)}`);

async function read(op: Operation, id: string, state: JsonObject): Promise<JsonObject | undefined> {
  const key = keyOf(id);
  let app: JsonObject;
  try {
    app = await getApplication(op.graph, key.objectId);
  } catch (err) {
    if (wasNotFound(err)) return undefined;
    throw azureadError(`Retrieving ${describeApplication(key.objectId)}`, err, "application_id");
  }
  const credential = findCredential(credentialsOf(app, "passwordCredentials"), key.keyId);
  return credential ? { ...state, ...stateOf(key.objectId, key.keyId, credential) } : undefined;
}

async function remove(op: Operation, id: string): Promise<void> {
  const { objectId, keyId } = keyOf(id);
  const app = describeApplication(objectId);
  await lockedBy(objectId, async () => {
    try {
      await op.graph.call({ method: "POST", path: `${applicationPath(objectId)}/removePassword`, body: { keyId }, expect: EXPECTED.create });
    } catch (err) {
      throw azureadError(`Removing password credential ${JSON.stringify(keyId)} from ${app}`, err);
    }
    await credentialRemoved(op.graph, objectId, "passwordCredentials", keyId, `Waiting for deletion of password credential ${JSON.stringify(keyId)} from ${app}`);
  });
}

export const applicationPassword: ResourceKind = {
  token: TOKEN,
  rules: {
    applicationId: { forceNew: true, validate: applicationId },
    displayName: { forceNew: true, computed: true },
    startDate: { forceNew: true, computed: true, validate: rfc3339Time },
    endDate: { forceNew: true, computed: true, validate: rfc3339Time },
    endDateRelative: { forceNew: true, validate: notEmpty },
    rotateWhenChanged: { forceNew: true },
  },
  secretOutputs: ["value"],
  create,
  read,
  delete: remove,
};
