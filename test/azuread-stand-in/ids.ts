/**
 * azuread's resource ids and the way its errors name objects, from
 * terraform-provider-azuread v3.8.0 (the commit pulumi-azuread 6.9.1 pins)
 * and the go-azure-sdk ids it vendors:
 * - a credential, `{application object id}/{password|certificate|federatedIdentityCredential}/{key or credential id}`
 *   (internal/services/applications/parse/credentials.go NewCredentialID, parse/object.go);
 * - a grant, `/oauth2PermissionGrants/{id}` (common-types/stable/id_oauth2permissiongrant.go);
 * - an app role assignment, `/servicePrincipals/{resource id}/appRoleAssignedTo/{id}`
 *   (id_serviceprincipalidapproleassignedto.go);
 * - a service principal, `/servicePrincipals/{id}`; an application, `/applications/{id}` (id_application.go).
 * Each id type's String() is how an error names it: `Application (Application: "…")`.
 */

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** hashicorp/go-uuid ParseUUID: 36 characters, hex and dashes in the 8-4-4-4-12 places. */
export const isUuid = (value: string): boolean => UUID.test(value);

export type CredentialKind = "password" | "certificate" | "federatedIdentityCredential";

export interface CredentialId {
  objectId: string;
  kind: CredentialKind;
  keyId: string;
}

export const credentialId = (id: CredentialId): string => `${id.objectId}/${id.kind}/${id.keyId}`;

/** parse.ObjectSubResourceID's rules and messages. */
export function parseCredentialId(value: string, kind: CredentialKind): CredentialId {
  const parts = value.split("/");
  if (parts.length !== 3) throw new Error(`Object Resource ID should be in the format {objectId}/{type}/{subId} - but got ${JSON.stringify(value)}`);
  const [objectId, type, keyId] = parts as [string, string, string];
  if (!isUuid(objectId)) throw new Error(`Object ID isn't a valid UUID (${JSON.stringify(objectId)})`);
  if (type !== kind) throw new Error(`Type in {objectID}/{type}/{subID} was expected to be ${kind}, got ${type}`);
  if (!isUuid(keyId)) throw new Error(`Object Sub Resource ID isn't a valid UUID (${JSON.stringify(keyId)})`);
  return { objectId, kind, keyId };
}

export const applicationPath = (objectId: string): string => `/applications/${objectId}`;

/** stable.ParseApplicationID of `/applications/{id}`: the object id, or undefined when the value is not of that form. */
export function applicationObjectId(value: string): string | undefined {
  const match = /^\/applications\/([^/]+)$/.exec(value);
  return match?.[1];
}

export const describeApplication = (objectId: string): string => `Application (Application: ${JSON.stringify(objectId)})`;

export const servicePrincipalPath = (objectId: string): string => `/servicePrincipals/${objectId}`;

export const describeServicePrincipal = (objectId: string): string => `Service Principal (Service Principal: ${JSON.stringify(objectId)})`;

export const grantId = (id: string): string => `/oauth2PermissionGrants/${id}`;

/** stable.ParseOAuth2PermissionGrantID. */
export function parseGrantId(value: string): string {
  const match = /^\/oauth2PermissionGrants\/([^/]+)$/.exec(value);
  if (!match) throw new Error(`parsing ${JSON.stringify(value)}: expected an ID of the form /oauth2PermissionGrants/{oAuth2PermissionGrantId}`);
  return match[1]!;
}

export const describeGrant = (id: string): string => `O Auth 2 Permission Grant (O Auth 2 Permission Grant: ${JSON.stringify(id)})`;

export interface AssignmentId {
  resourceId: string;
  assignmentId: string;
}

export const assignmentPath = (id: AssignmentId): string => `/servicePrincipals/${id.resourceId}/appRoleAssignedTo/${id.assignmentId}`;

/** stable.ParseServicePrincipalIdAppRoleAssignedToID. */
export function parseAssignmentId(value: string): AssignmentId {
  const match = /^\/servicePrincipals\/([^/]+)\/appRoleAssignedTo\/([^/]+)$/.exec(value);
  if (!match) throw new Error(`parsing ${JSON.stringify(value)}: expected an ID of the form /servicePrincipals/{servicePrincipalId}/appRoleAssignedTo/{appRoleAssignmentId}`);
  return { resourceId: match[1]!, assignmentId: match[2]! };
}

export const describeAssignment = (id: AssignmentId): string =>
  `Service Principal Id App Role Assigned To (Service Principal: ${JSON.stringify(id.resourceId)}\nApp Role Assignment: ${JSON.stringify(id.assignmentId)})`;

export const describeFederatedCredential = (objectId: string, credentialId: string): string =>
  `Application Id Federated Identity Credential (Application: ${JSON.stringify(objectId)}\nFederated Identity Credential: ${JSON.stringify(credentialId)})`;
