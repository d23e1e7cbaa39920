/** The azuread resources the kit uses (`grep azuread\. infra/`), each in its own file. */
import { appRoleAssignment } from "./app-role-assignment";
import { applicationCertificate } from "./application-certificate";
import { applicationPassword } from "./application-password";
import { servicePrincipalDelegatedPermissionGrant } from "./delegated-permission-grant";
import { applicationFederatedIdentityCredential } from "./federated-credential";
import type { ResourceKind } from "./resource";

export const RESOURCES: readonly ResourceKind[] = [
  applicationPassword,
  applicationCertificate,
  applicationFederatedIdentityCredential,
  servicePrincipalDelegatedPermissionGrant,
  appRoleAssignment,
];
