/**
 * azuread:index/applicationCertificate:ApplicationCertificate, as
 * terraform-provider-azuread internal/services/applications/application_certificate_resource.go
 * manages it: every input ForceNew, no update.
 * - create: GET the application, then `PATCH /applications/{id}` with
 *   `{"@odata.type": "#microsoft.graph.application", id, keyCredentials}`:
 *   the credentials as read, then the new one (credentials.go
 *   KeyCredentialForResource: `key` is base64 of the PEM text, a base64 or
 *   hex DER value being PEM-encoded first; usage Verify; the keyId given or a
 *   new UUID). A keyId the application already holds is refused as an
 *   existing resource. Then GET until it shows up (azuread: five reads in a
 *   row; the stand-in: one). The id is `{object id}/certificate/{keyId}`.
 * - read: GET the application; no credential of that keyId is gone. azuread
 *   does not treat the application's 404 as gone here (the password does).
 * - delete: GET, PATCH keyCredentials without it, one read-back.
 */
import { randomUUID } from "node:crypto";
import { credentialAdded, credentialRemoved, credentialsOf, findCredential, getApplication, givenInputs, text, type JsonObject } from "./application";
import { azureadError, parsedId } from "./failure";
import { EXPECTED, type Graph } from "./graph";
import { applicationObjectId, applicationPath, credentialId, describeApplication, parseCredentialId } from "./ids";
import { lockedBy } from "./locks";
import type { Operation, ResourceKind } from "./resource";
import { applicationId, formatRfc3339, notEmpty, oneOf, parseDuration, rfc3339, rfc3339Time, uuid } from "./validation";

const TOKEN = "azuread:index/applicationCertificate:ApplicationCertificate";
const ENCODINGS = ["base64", "hex", "pem"] as const;

/** pem.EncodeToMemory of a CERTIFICATE block: base64 in lines of 64. */
function pemOf(der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`;
}

/** A CredentialError: its message, and the attribute it is about. */
class CredentialError extends Error {
  constructor(
    message: string,
    readonly attribute: string,
  ) {
    super(message);
  }
}

/** keyCredential.key as azuread writes it from `value` in its `encoding`. */
export function encodedKey(value: string, encoding: string): string {
  if (encoding === "base64") {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value.trim())) throw new CredentialError("failed to decode base64 certificate data", "");
    return Buffer.from(pemOf(Buffer.from(value.trim(), "base64"))).toString("base64");
  }
  if (encoding === "hex") {
    if (!/^([0-9a-fA-F]{2})*$/.test(value.trim())) throw new CredentialError("failed to decode hexadecimal certificate data", "");
    return Buffer.from(pemOf(Buffer.from(value.trim(), "hex"))).toString("base64");
  }
  return Buffer.from(value).toString("base64");
}

/** The end date azuread asks for: end_date, else now + end_date_relative. */
function endDateOf(inputs: JsonObject, now: () => number): string | undefined {
  if (typeof inputs.endDate === "string" && inputs.endDate !== "") return rfc3339(inputs.endDate);
  if (typeof inputs.endDateRelative !== "string" || inputs.endDateRelative === "") return undefined;
  const duration = parseDuration(inputs.endDateRelative);
  if (duration === undefined) throw new CredentialError(`Unable to parse \`end_date_relative\` (${JSON.stringify(inputs.endDateRelative)}) as a duration`, "end_date_relative");
  // Upstream parses the relative value itself as the start date when one is set, which always fails.
  if (typeof inputs.startDate === "string" && inputs.startDate !== "") {
    throw new CredentialError(`Unable to parse the provided start date ${JSON.stringify(inputs.endDateRelative)}`, "start_date");
  }
  return formatRfc3339(now() + duration);
}

/** The new keyCredential. */
export function keyCredential(inputs: JsonObject, now: () => number): JsonObject {
  const credential: JsonObject = {
    keyId: typeof inputs.keyId === "string" && inputs.keyId !== "" ? inputs.keyId : randomUUID(),
    type: typeof inputs.type === "string" ? inputs.type : "",
    usage: "Verify",
    key: encodedKey(String(inputs.value), typeof inputs.encoding === "string" ? inputs.encoding : "pem"),
  };
  if (typeof inputs.startDate === "string" && inputs.startDate !== "") credential.startDateTime = rfc3339(inputs.startDate);
  const end = endDateOf(inputs, now);
  if (end) credential.endDateTime = end;
  return credential;
}

/** A read keyCredential as Go's model writes it back: its own fields only, nulls kept. */
const KEY_CREDENTIAL_FIELDS = ["customKeyIdentifier", "displayName", "endDateTime", "key", "keyId", "@odata.id", "@odata.type", "startDateTime", "type", "usage"];
export const keptKeyCredential = (read: JsonObject): JsonObject => Object.fromEntries(KEY_CREDENTIAL_FIELDS.filter((f) => f in read).map((f) => [f, read[f]]));

async function patchKeys(graph: Graph, objectId: string, keyCredentials: JsonObject[]): Promise<void> {
  const body = { "@odata.type": "#microsoft.graph.application", id: objectId, keyCredentials };
  await graph.call({ method: "PATCH", path: applicationPath(objectId), body, expect: EXPECTED.update });
}

async function heldKeys(graph: Graph, objectId: string): Promise<JsonObject[]> {
  try {
    return credentialsOf(await getApplication(graph, objectId), "keyCredentials");
  } catch (err) {
    throw azureadError(`Retrieving ${describeApplication(objectId)}`, err, "application_id");
  }
}

const stateOf = (objectId: string, keyId: string, credential: JsonObject): JsonObject => ({
  applicationId: applicationPath(objectId),
  keyId,
  type: text(credential, "type"),
  startDate: text(credential, "startDateTime"),
  endDate: text(credential, "endDateTime"),
});

async function create(op: Operation, inputs: JsonObject): Promise<{ id: string; outs: JsonObject }> {
  const objectId = applicationObjectId(String(inputs.applicationId))!;
  const app = describeApplication(objectId);
  let credential: JsonObject;
  try {
    credential = keyCredential(inputs, op.now);
  } catch (err) {
    throw azureadError(`Generating certificate credentials for ${app}`, err, err instanceof CredentialError ? err.attribute : undefined);
  }
  const keyId = String(credential.keyId);
  const id = credentialId({ objectId, kind: "certificate", keyId });
  return lockedBy(objectId, async () => {
    const held = await heldKeys(op.graph, objectId);
    if (findCredential(held, keyId)) {
      throw azureadError(
        `A resource with the ID ${JSON.stringify(id)} already exists`,
        'To be managed via Terraform, this resource needs to be imported into the State. Please see the resource documentation for "azuread_application_certificate" for more information.',
        "id",
      );
    }
    try {
      await patchKeys(op.graph, objectId, [...held.map(keptKeyCredential), credential]);
    } catch (err) {
      throw azureadError(`Adding certificate for ${app}`, err);
    }
    const found = await credentialAdded(op.graph, objectId, "keyCredentials", keyId, `Waiting for certificate credential for ${app}`, "certificate credential not found in application manifest");
    return { id, outs: { encoding: "pem", ...givenInputs(inputs), ...stateOf(objectId, keyId, found) } };
  });
}

const keyOf = (id: string) => parsedId(id, (v) => parseCredentialId(v, "certificate"), `Parsing certificate credential with ID ${JSON.stringify(id)}`);

async function read(op: Operation, id: string, state: JsonObject): Promise<JsonObject | undefined> {
  const { objectId, keyId } = keyOf(id);
  const credential = findCredential(await heldKeys(op.graph, objectId), keyId);
  return credential ? { ...state, ...stateOf(objectId, keyId, credential) } : undefined;
}

async function remove(op: Operation, id: string): Promise<void> {
  const { objectId, keyId } = keyOf(id);
  const where = `certificate credential ${JSON.stringify(keyId)} from application with object ID ${JSON.stringify(objectId)}`;
  await lockedBy(objectId, async () => {
    const held = await heldKeys(op.graph, objectId);
    const kept = held.filter((c) => text(c, "keyId").toLowerCase() !== keyId.toLowerCase()).map(keptKeyCredential);
    try {
      await patchKeys(op.graph, objectId, kept);
    } catch (err) {
      throw azureadError(`Removing ${where}`, err);
    }
    await credentialRemoved(op.graph, objectId, "keyCredentials", keyId, `Waiting for deletion of ${where}`);
  });
}

export const applicationCertificate: ResourceKind = {
  token: TOKEN,
  rules: {
    applicationId: { forceNew: true, validate: applicationId },
    encoding: { forceNew: true, default: "pem", validate: oneOf(ENCODINGS) },
    keyId: { forceNew: true, computed: true, validate: uuid },
    startDate: { forceNew: true, computed: true, validate: rfc3339Time },
    endDate: { forceNew: true, computed: true, validate: rfc3339Time },
    endDateRelative: { forceNew: true, validate: notEmpty },
    type: { forceNew: true, validate: oneOf(["AsymmetricX509Cert", "Symmetric"]) },
    value: { forceNew: true },
  },
  secretOutputs: ["value"],
  create,
  read,
  delete: remove,
};
