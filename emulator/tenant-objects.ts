import type { FederatedIdentityCredential, KeyCredential, PasswordCredential } from "./tenant-credentials";

/** The directory objects of the emulated tenant (applications, service principals, users, groups) and delegated grants, with the changes a PATCH may make. */

export type ApplicationKind = "application" | "agentIdentityBlueprint";

export interface Application {
  id: string;
  appId: string;
  kind: ApplicationKind;
  displayName: string;
  uniqueName?: string | null;
  /** Free-form tags; the blueprint provider finds its own blueprint by one. */
  tags?: string[];
  /** The other properties a body set: documented ones (description, signInAudience, identifierUris, ...) and, the type being open, any other. */
  properties?: Record<string, unknown>;
  sponsors: string[];
  owners: string[];
  passwordCredentials: PasswordCredential[];
  keyCredentials: KeyCredential[];
  federatedIdentityCredentials: FederatedIdentityCredential[];
  /** Graph's read-only createdByAppId: the appId of the application whose token created it (absent: made by no application the tenant file names). */
  createdByAppId?: string;
  /** Internal, never served: the appId that created it holding AgentIdentityBlueprint.CreateAsManager, which then reaches it alone. */
  managerAppId?: string;
  /** The URIs its API answers to as a token audience, e.g. api://{appId}. */
  identifierUris?: string[];
  /** The API it exposes (Graph's apiApplication): its delegated scopes, and the clients that need no consent for them. */
  api?: ApiApplication;
  /** A public client (isFallbackPublicClient): it signs in users with no client secret, as the resource owner password grant allows. */
  publicClient?: boolean;
  createdAt: number;
}

/** Graph's apiApplication: the delegated scopes an API publishes, and the client apps pre-authorized for them. */
export interface ApiApplication {
  oauth2PermissionScopes: PermissionScope[];
  preAuthorizedApplications: Array<{ appId: string; delegatedPermissionIds: string[] }>;
}

/** An application permission a resource API publishes (Graph's appRole), which an app role assignment gives a principal. */
export interface AppRole {
  id: string;
  value: string;
  displayName: string;
  description: string;
  allowedMemberTypes: string[];
  isEnabled: boolean;
}

/** A delegated permission a resource API publishes (Graph's permissionScope). */
export interface PermissionScope {
  id: string;
  value: string;
  type: "User" | "Admin";
  isEnabled: boolean;
  adminConsentDisplayName: string;
  adminConsentDescription: string;
  userConsentDisplayName: string | null;
  userConsentDescription: string | null;
}

export type ServicePrincipalKind = "servicePrincipal" | "agentIdentityBlueprintPrincipal" | "agentIdentity";

export interface ServicePrincipal {
  id: string;
  appId: string;
  kind: ServicePrincipalKind;
  displayName: string;
  servicePrincipalType: "Application" | "ServiceIdentity" | "ManagedIdentity";
  /** Identifier URIs this principal answers to as a token resource, e.g. https://graph.microsoft.com. */
  servicePrincipalNames: string[];
  /** For agent identities: the blueprint's appId. */
  agentIdentityBlueprintId?: string;
  sponsors: string[];
  /** Object ids of the principals that created it: owners may manage it with create-only permissions. */
  owners?: string[];
  /** Graph's read-only createdByAppId: the appId of the application whose token created it (absent: made by no application the tenant file names). */
  createdByAppId?: string;
  /** Application permissions granted to this principal on Microsoft Graph. */
  graphAppRoles: string[];
  /** False when an administrator disabled it: no token is issued to it. Enabled when absent. */
  accountEnabled?: boolean;
  /** The delegated permissions this principal publishes as a resource API. */
  oauth2PermissionScopes?: PermissionScope[];
  /** The other properties a body set: documented ones (tags, appRoleAssignmentRequired, ...) and, the type being open, any other. */
  properties?: Record<string, unknown>;
  /** The application permissions (app roles) this principal publishes as a resource API. */
  appRoles?: AppRole[];
  /** Internal, never served: for a blueprint principal, the appId that created it holding AgentIdentityBlueprint.CreateAsManager. */
  managerAppId?: string;
  createdAt: number;
}

export type UserKind = "user" | "agentUser";

export interface User {
  id: string;
  kind: UserKind;
  displayName: string;
  userPrincipalName: string;
  mailNickname: string;
  accountEnabled: boolean;
  /** For agent users: the agent identity's object id. */
  identityParentId?: string;
  /** For agent users: sponsors (users or groups), which the create call does not set. */
  sponsors?: string[];
  /** The other properties a body set: documented ones (jobTitle, usageLocation, ...) and, the type being open, any other. */
  properties?: Record<string, unknown>;
  /** A human user's password, for the resource owner password grant (a test-only sign-in); agent users have none. */
  password?: string;
  createdAt: number;
}

/**
 * A group. Only Microsoft 365 groups (groupTypes "Unified") and groups with
 * dynamic membership ("DynamicMembership") may sponsor, and no role-assignable
 * one (agentidentity-post-sponsors).
 */
export interface Group {
  id: string;
  displayName: string;
  groupTypes: string[];
  isAssignableToRole: boolean;
  createdAt: number;
}

export interface PermissionGrant {
  id: string;
  clientId: string;
  consentType: "Principal" | "AllPrincipals";
  principalId: string | null;
  resourceId: string;
  scope: string;
  /** Creates and changes reach the token endpoint only from this moment. */
  effectiveAt: number;
  /** The scope tokens see until effectiveAt; undefined when the grant did not exist before. */
  previousScope?: string;
}

/** The fields a PATCH or a drift may change; ids, kinds and creation times stay. */
export type ApplicationChanges = Partial<Pick<Application, "displayName" | "tags" | "sponsors" | "owners" | "passwordCredentials" | "keyCredentials" | "properties" | "identifierUris" | "api">>;
export type ServicePrincipalChanges = Partial<Pick<ServicePrincipal, "displayName" | "sponsors" | "owners" | "graphAppRoles" | "accountEnabled" | "properties">>;
export type UserChanges = Partial<Pick<User, "displayName" | "mailNickname" | "userPrincipalName" | "accountEnabled" | "identityParentId" | "properties">>;
