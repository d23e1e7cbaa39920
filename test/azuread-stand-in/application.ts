/**
 * The application reads the credential resources share:
 * `GET /v1.0/applications/{id}` with no query (application.GetApplication,
 * DefaultGetApplicationOperationOptions), and the credential of one keyId in
 * it, matched case-insensitively (internal/helpers/credentials/credentials.go
 * GetPasswordCredential, GetKeyCredential).
 */
import { azureadError } from "./failure";
import { EXPECTED, type Graph } from "./graph";
import { applicationPath } from "./ids";

export type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

export async function getApplication(graph: Graph, objectId: string): Promise<JsonObject> {
  const { body } = await graph.call({ method: "GET", path: applicationPath(objectId), expect: EXPECTED.get });
  if (!isObject(body)) throw new Error("model was nil");
  return body;
}

/** `passwordCredentials` or `keyCredentials` of an application as Graph answered it. */
export function credentialsOf(app: JsonObject, collection: "passwordCredentials" | "keyCredentials"): JsonObject[] {
  const list = app[collection];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

export function findCredential(list: readonly JsonObject[], keyId: string): JsonObject | undefined {
  return list.find((c) => typeof c.keyId === "string" && c.keyId.toLowerCase() === keyId.toLowerCase());
}

/** A string field as Go's GetOrZero reads a nullable one: "" when absent or null. */
export const text = (object: JsonObject, name: string): string => (typeof object[name] === "string" ? (object[name] as string) : "");

/** The given inputs that are set, for the outputs: Terraform keeps what the program gave beside what it reads. */
export function givenInputs(inputs: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(inputs).filter(([name, value]) => value !== undefined && !name.startsWith("__")));
}

type Collection = "passwordCredentials" | "keyCredentials";

/**
 * The one read-back that stands for azuread's wait after adding a
 * credential (five reads in a row that see it): the credential, or azuread's
 * wait error, `waiting` its summary.
 */
export async function credentialAdded(graph: Graph, objectId: string, collection: Collection, keyId: string, waiting: string, missing: string): Promise<JsonObject> {
  let found: JsonObject | undefined;
  try {
    found = findCredential(credentialsOf(await getApplication(graph, objectId), collection), keyId);
  } catch (err) {
    throw azureadError(waiting, err);
  }
  if (!found) throw azureadError(waiting, missing);
  return found;
}

/** The one read-back that stands for consistency.WaitForDeletion after removing one (five reads in a row that miss it). */
export async function credentialRemoved(graph: Graph, objectId: string, collection: Collection, keyId: string, waiting: string): Promise<void> {
  let left: JsonObject | undefined;
  try {
    left = findCredential(credentialsOf(await getApplication(graph, objectId), collection), keyId);
  } catch (err) {
    throw azureadError(waiting, `retrieving resource: ${(err as Error).message}`);
  }
  if (left) throw azureadError(waiting, "the credential was still there when the stand-in read the application back");
}
