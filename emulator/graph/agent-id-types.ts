import type { AgentIdType } from "../pipeline/graph-path";

/**
 * The properties of the four Agent ID types, as their resource pages
 * document them (microsoftgraph/microsoft-graph-docs-contrib,
 * api-reference/v1.0/resources/): which a create or an update may set,
 * inherited ones included; which Entra sets itself (read-only); and which
 * these types refuse. Each page says "This resource is an open type that
 * allows additional properties beyond those documented here", so a
 * property no page names is kept as sent and served back.
 */

/** The JSON a property's value must be. */
export type ValueKind = "string" | "strings" | "boolean" | "object" | "objects";

export interface TypeModel {
  type: `microsoft.graph.${AgentIdType}`;
  /** The resource page's "open type" sentence. */
  open: boolean;
  /** Documented properties a body may set, with the JSON their value must be. */
  writable: Readonly<Record<string, ValueKind>>;
  /** Of those, the ones only a create sets. */
  createOnly?: readonly string[];
  /** Documented properties Entra sets: a body that names one is refused. */
  readOnly: readonly string[];
  /** Documented properties the type refuses in a body, with Graph's answer. */
  refused?: Readonly<Record<string, string>>;
  source: string;
}

/**
 * agentIdentityBlueprint (resources/agentidentityblueprint.md@282406a4),
 * inheriting application's. disabledByMicrosoftStatus is refused as read-only
 * on applications ("Property 'disabledByMicrosoftStatus' is read-only and
 * cannot be set.", microsoftgraph/msgraph-bicep-types#260); passwordCredentials
 * are added by addPassword ("New password credentials must be generated using
 * service actions.", microsoftgraph/msgraph-sdk-dotnet#2788): the addPassword
 * page's "you can also add passwords while creating the blueprint" names no
 * body, so the emulator refuses them in a create too, the stricter reading.
 */
export const BLUEPRINT: TypeModel = {
  type: "microsoft.graph.agentIdentityBlueprint",
  open: true,
  writable: {
    api: "object",
    appRoles: "objects",
    certification: "object",
    description: "string",
    displayName: "string",
    groupMembershipClaims: "string",
    identifierUris: "strings",
    info: "object",
    keyCredentials: "objects",
    optionalClaims: "object",
    requiredResourceAccess: "objects",
    serviceManagementReference: "string",
    signInAudience: "string",
    tags: "strings",
    tokenEncryptionKeyId: "string",
    verifiedPublisher: "object",
    web: "object",
  },
  readOnly: ["id", "appId", "createdByAppId", "createdDateTime", "disabledByMicrosoftStatus", "publisherDomain", "uniqueName"],
  refused: { passwordCredentials: "New password credentials must be generated using service actions." },
  source: "resources/agentidentityblueprint.md@282406a4",
};

/**
 * agentIdentityBlueprintPrincipal (resources/agentidentityblueprintprincipal.md@557d95ff),
 * inheriting servicePrincipal's. The properties the page describes as copied
 * from the blueprint or set by Entra (appDisplayName, appRoles,
 * publishedPermissionScopes, ...) are read-only here, the stricter reading;
 * servicePrincipalNames is "blocked on Agent Identity Blueprint Principal".
 */
export const BLUEPRINT_PRINCIPAL: TypeModel = {
  type: "microsoft.graph.agentIdentityBlueprintPrincipal",
  open: true,
  writable: { accountEnabled: "boolean", appId: "string", appRoleAssignmentRequired: "boolean", displayName: "string", info: "object", tags: "strings" },
  createOnly: ["appId"],
  readOnly: [
    "id",
    "appDescription",
    "appDisplayName",
    "appOwnerOrganizationId",
    "appRoles",
    "createdByAppId",
    "disabledByMicrosoftStatus",
    "publishedPermissionScopes",
    "publisherName",
    "servicePrincipalType",
    "signInAudience",
    "verifiedPublisher",
  ],
  refused: { servicePrincipalNames: "Property 'servicePrincipalNames' is blocked on agent identity blueprint principals." },
  source: "resources/agentidentityblueprintprincipal.md@557d95ff",
};

/**
 * agentIdentity (resources/agentidentity.md@3545666b), inheriting
 * servicePrincipal's. servicePrincipalType is "set to ServiceIdentity for all
 * agent identities"; agentIdentityBlueprintId names the blueprint it is
 * created from, so only a create sets it.
 */
export const AGENT_IDENTITY: TypeModel = {
  type: "microsoft.graph.agentIdentity",
  open: true,
  writable: { accountEnabled: "boolean", agentIdentityBlueprintId: "string", customSecurityAttributes: "object", displayName: "string", tags: "strings" },
  createOnly: ["agentIdentityBlueprintId"],
  readOnly: ["id", "createdByAppId", "createdDateTime", "disabledByMicrosoftStatus", "servicePrincipalType"],
  source: "resources/agentidentity.md@3545666b",
};

/**
 * agentUser (resources/agentuser.md@0f04ee02), inheriting user's: no
 * password ("no password authentication"), and identityParentId "can't be
 * cleared during updates", so only a create sets it. The license and plan
 * collections change through their own actions, not a body.
 */
export const AGENT_USER: TypeModel = {
  type: "microsoft.graph.agentUser",
  open: true,
  writable: {
    accountEnabled: "boolean",
    businessPhones: "strings",
    city: "string",
    companyName: "string",
    country: "string",
    customSecurityAttributes: "object",
    department: "string",
    displayName: "string",
    employeeHireDate: "string",
    employeeId: "string",
    employeeLeaveDateTime: "string",
    employeeOrgData: "object",
    employeeType: "string",
    faxNumber: "string",
    givenName: "string",
    identityParentId: "string",
    infoCatalogs: "strings",
    jobTitle: "string",
    mail: "string",
    mailNickname: "string",
    mobilePhone: "string",
    officeLocation: "string",
    otherMails: "strings",
    postalCode: "string",
    preferredDataLocation: "string",
    preferredLanguage: "string",
    showInAddressList: "boolean",
    state: "string",
    streetAddress: "string",
    surname: "string",
    usageLocation: "string",
    userPrincipalName: "string",
    userType: "string",
  },
  createOnly: ["identityParentId"],
  readOnly: [
    "id",
    "assignedLicenses",
    "assignedPlans",
    "createdDateTime",
    "creationType",
    "deletedDateTime",
    "imAddresses",
    "isLicenseReconciliationNeeded",
    "isManagementRestricted",
    "isResourceAccount",
    "licenseAssignmentStates",
    "provisionedPlans",
    "proxyAddresses",
    "refreshTokensValidFromDateTime",
    "securityIdentifier",
    "signInSessionsValidFromDateTime",
  ],
  refused: { passwordProfile: "Agent users cannot have a password: remove passwordProfile." },
  source: "resources/agentuser.md@0f04ee02",
};

/** "Includes all granular update permissions" of a blueprint (the matrix below). */
export const BLUEPRINT_ALL_UPDATES = "AgentIdentityBlueprint.ReadWrite.All";

/**
 * The permission a change of each blueprint property needs, by the category
 * Microsoft's Agent ID permission matrix puts it in (microsoft/Agent365-devTools
 * docs/plans/agent-id-permissions-reference.md@3b0aa2f4, "Agent Blueprint
 * Property Update Permissions"); agentidentityblueprint-update's "Permissions
 * for specific scenarios" agrees for displayName, description, keyCredentials
 * and passwordCredentials. A property the matrix names in no category
 * (appRoles, requiredResourceAccess, one no page documents) needs
 * BLUEPRINT_ALL_UPDATES, the stricter reading.
 */
export const BLUEPRINT_PROPERTY_PERMISSIONS: Readonly<Record<string, string>> = {
  displayName: "AgentIdentityBlueprint.UpdateBranding.All",
  description: "AgentIdentityBlueprint.UpdateBranding.All",
  tags: "AgentIdentityBlueprint.UpdateBranding.All",
  info: "AgentIdentityBlueprint.UpdateBranding.All",
  web: "AgentIdentityBlueprint.UpdateBranding.All",
  api: "AgentIdentityBlueprint.UpdateAuthProperties.All",
  optionalClaims: "AgentIdentityBlueprint.UpdateAuthProperties.All",
  signInAudience: "AgentIdentityBlueprint.UpdateAuthProperties.All",
  tokenEncryptionKeyId: "AgentIdentityBlueprint.UpdateAuthProperties.All",
  identifierUris: "AgentIdentityBlueprint.UpdateAuthProperties.All",
  groupMembershipClaims: "AgentIdentityBlueprint.UpdateAuthProperties.All",
  keyCredentials: "AgentIdentityBlueprint.AddRemoveCreds.All",
};
