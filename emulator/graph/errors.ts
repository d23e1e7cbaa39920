import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../../lib/entra-rules";

/**
 * Every error the emulated Graph answers with, by name: its status, code,
 * message and any header it carries, in one place. Clients and tests match
 * these codes and words, so an entry changes only with them. A handler throws
 * `graphError(req, GRAPH_ERRORS.name(...))` (envelope.ts).
 */

interface Fields {
  status: number;
  code: string;
  message: string;
  /** Headers the answer must carry, e.g. WWW-Authenticate on a 401. */
  headers?: Record<string, string>;
}

declare const CATALOGUED: unique symbol;
/** An entry of the catalogue: only this file makes them, so an error written inline elsewhere does not compile. */
export type GraphErrorSpec = Fields & { readonly [CATALOGUED]: true };
const spec = (fields: Fields) => fields as GraphErrorSpec;

/** Graph's 401 names the authority to get a token from. */
const WWW_AUTHENTICATE = `Bearer realm="", authorization_uri="${PUBLIC_CLOUD.authorityUrl}/common/oauth2/authorize", client_id="${MICROSOFT_GRAPH_APP_ID}"`;

/** Graph's directory APIs answer a refused body or reference with this 400. */
const badRequest = (message: string) => spec({ status: 400, code: "Request_BadRequest", message });
/** The OData layer's own 400, before any directory rule. */
const odataBadRequest = (message: string) => spec({ status: 400, code: "BadRequest", message });
/** An Agent ID rule's own code (learn.microsoft.com/entra/agent-id/error-codes), with the status the emulator chose. */
const agentIdError = (status: 400 | 403, code: string, message: string) => spec({ status, code, message });
const conflict = (message: string) => spec({ status: 409, code: "Request_MultipleObjectsWithSameKeyValue", message });
const unsupportedQuery = (message: string) => spec({ status: 400, code: "Request_UnsupportedQuery", message });
const itemNotFound = (message: string) => spec({ status: 404, code: "itemNotFound", message });
const unauthenticated = (message: string) =>
  spec({ status: 401, code: "InvalidAuthenticationToken", message, headers: { "www-authenticate": WWW_AUTHENTICATE } });
/** A 403 in the API's own code: Authorization_RequestDenied for the directory, accessDenied for files. */
const denied = (code: string, message: string) => spec({ status: 403, code, message });
const retryAfter = (seconds: number) => ({ "retry-after": String(seconds) });

export const GRAPH_ERRORS = {
  // --- Authentication (401, answered with WWW-Authenticate) and authorization (403, in the API's own code).
  tokenEmpty: () => unauthenticated("Access token is empty."),
  tokenUnverified: () => unauthenticated("Access token validation failure: the token is malformed or not signed by this tenant's keys."),
  audienceInvalid: (aud: unknown) => unauthenticated(`Access token validation failure. Invalid audience: ${JSON.stringify(aud ?? null)} is not Microsoft Graph.`),
  tokenExpired: () => unauthenticated("Lifetime validation failed, the token is expired."),
  tokenNotYetValid: () => unauthenticated("Lifetime validation failed, the token is not yet valid."),
  tokenWithoutIdtyp: () => unauthenticated("Access token validation failure: the token has no idtyp claim (user or app)."),
  agentIdWriteBlocked: (blocker: string, summary: string) =>
    denied(
      "Authorization_RequestDenied",
      `Insufficient privileges to complete the operation: a caller holding ${blocker} has its Agent ID permissions ignored, so it may not ${summary}; call as an application without ${blocker}.`,
    ),
  scopesMissing: (code: string, summary: string, accepted: readonly string[]) =>
    denied(code, `Insufficient privileges to complete the operation: to ${summary} the token's scp needs one of ${accepted.join(", ")}.`),
  applicationOnly: (code: string) => denied(code, "Insufficient privileges to complete the operation: this API takes application permissions only, not a user token."),
  rolesMissing: (code: string, summary: string, accepted: readonly string[]) =>
    denied(code, `Insufficient privileges to complete the operation: to ${summary} the token's roles need one of ${accepted.join(", ")}.`),
  propertyPermissionMissing: (property: string, category: string | undefined, all: string) =>
    denied("Authorization_RequestDenied", `Insufficient privileges to complete the operation: changing ${property} of an agent identity blueprint needs ${category ? `${category} or ` : ""}${all}.`),
  delegatedOnly: (code: string) => denied(code, "Insufficient privileges to complete the operation: this API takes delegated permissions only, not an application token."),
  notReached: (summary: string, held: readonly string[], tenantWide: readonly string[]) =>
    denied(
      "Authorization_RequestDenied",
      `Insufficient privileges to complete the operation: ${held.join(", ")} does not reach this object (not its owner, or not created or parented by the caller), and to ${summary} on any object the token's roles need one of ${tenantWide.join(", ")}.`,
    ),

  // --- Not found.
  resourceNotFound: (id: string) =>
    spec({
      status: 404,
      code: "Request_ResourceNotFound",
      message: `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`,
    }),
  sharingLinkNotFound: () => itemNotFound("The sharing link no longer exists, or you do not have permission to access it."),
  itemNotFound: () => itemNotFound("The resource could not be found."),
  segmentNotServed: (path: string) => odataBadRequest(`Resource not found for the segment in '${path}' (the emulator serves a slice of Graph).`),
  methodNotServed: (method: string | undefined, path: string) =>
    spec({
      status: 405,
      code: "Request_BadRequest",
      message: `The emulator does not serve ${method} ${path}.`,
    }),

  // --- The request as HTTP and OData.
  tooLarge: (maxBytes: number) => spec({ status: 413, code: "RequestEntityTooLarge", message: `The request body is larger than ${maxBytes} bytes.` }),
  throttled: (retryAfterS: number) =>
    spec({
      status: 429,
      code: "TooManyRequests",
      message: "Too many requests; retry after the interval in Retry-After.",
      headers: retryAfter(retryAfterS),
    }),
  unavailable: (retryAfterS: number) =>
    spec({
      status: 503,
      code: "serviceNotAvailable",
      message: "The service is temporarily unavailable.",
      headers: retryAfter(retryAfterS),
    }),
  // concepts/json-batching: "If the batch request itself is malformed, the status code is 400"; the page gives no code or words.
  batchMalformed: (reason: string) => odataBadRequest(`Invalid batch request: ${reason}.`),
  // "If an individual request fails, any request that depends on that request fails with status code 424 (Failed Dependency)."
  batchDependencyFailed: (id: string) => spec({ status: 424, code: "FailedDependency", message: `[emulator rule] The request it depends on (${JSON.stringify(id)}) failed.` }),
  unreadableJson: () => odataBadRequest("Unable to read JSON request payload. Please ensure Content-Type header is set and payload is of valid JSON format."),
  bodyNotObject: () => odataBadRequest("The request body must be a JSON object."),
  // No documented code: the emulator's choice, a Graph-shaped 400 (emulator/graph/README.md).
  blueprintSecretsRefused: () =>
    badRequest("This tenant's policy does not allow password or certificate credentials on agent identity blueprints; add a federated identity credential instead."),
  odataTypeMismatch: (given: unknown, expected: string) =>
    badRequest(`The @odata.type ${JSON.stringify(given)} is not #${expected}, the type this URL creates or changes (any case, with or without '#').`),
  odataTypeMissing: (expected: string) => badRequest(`An update of this object must carry "@odata.type": "#${expected}".`),
  undeclaredProperty: (key: string) => badRequest(`Property '${key}' does not exist as a declared property or extension property.`),
  // Graph's words for a read-only property in a body (microsoftgraph/msgraph-bicep-types#260, on applications); the code is the directory's 400, the emulator's choice.
  readOnlyProperty: (key: string) => badRequest(`Property '${key}' is read-only and cannot be set.`),
  requiredString: (name: string) => badRequest(`Property '${name}' is required and must be a non-empty string.`),
  /** A documented property the type refuses in a body, with the answer its source gives (graph/agent-id-types.ts). */
  propertyRefused: (message: string) => badRequest(message),
  propertyValueInvalid: (name: string, kind: string) =>
    badRequest(`Invalid value for property '${name}': expected ${{ string: "a string", strings: "a list of strings", boolean: "true or false", object: "an object", objects: "a list of objects" }[kind] ?? kind}.`),
  propertyTwice: (name: string) => badRequest(`[emulator rule] Property '${name}' is given twice: Graph reads property names without regard to case.`),
  // The Entra how-to: "The OData-Version header must be set to 4.0" for the untyped collection's create.
  untypedCreateWithoutODataVersion: (type: string, path: string) =>
    badRequest(
      `[emulator rule] POST ${path} names "@odata.type": "#${type}" without the header OData-Version: 4.0; the Entra how-to requires it for this form, ` +
        `and without it Microsoft Graph does not create the ${type.slice("microsoft.graph.".length)}: send the header, or POST to ${path.replace(/\/+$/, "")}/${type}.`,
    ),
  untypedCreateNotServed: (what: string, path: string) =>
    badRequest(`[emulator rule] POST ${path} creates ${what} here, which the emulator does not serve; it serves the Agent ID types of this collection, named by "@odata.type" or on their typed URLs.`),
  queryOptionNotServed: (name: string) => unsupportedQuery(`[emulator rule] the query option ${name} is not served by the emulator.`),
  filterClauseInvalid: (rest: string) => odataBadRequest(`Invalid filter clause: '${rest}' (the emulator reads eq clauses joined by 'and').`),
  filterAndExpected: (rest: string) => odataBadRequest(`Invalid filter clause: expected 'and' before '${rest}'.`),
  filterPropertyUnsupported: (property: string) => unsupportedQuery(`Unsupported or invalid query filter clause specified for property '${property}'.`),
  selectUnknown: (name: string, typeName: string) => badRequest(`Could not find a property named '${name}' on type '${typeName}'.`),
  topOutOfRange: (top: string | null, max: number) => badRequest(`Invalid $top value '${top}': it must be from 1 to ${max}.`),
  skipTokenInvalid: () => badRequest("Invalid $skiptoken."),
  /** The beta files APIs answer paging errors with OData's own code. */
  pageTopOutOfRange: (top: number, max: number) => odataBadRequest(`Invalid $top value '${top}': it must be from 1 to ${max}.`),
  pageValueInvalid: (name: string, value: string) => odataBadRequest(`Invalid ${name} value '${value}'.`),

  // --- References between directory objects.
  referenceMissing: (what: string, id: string) => badRequest(`${what} '${id}' does not exist in the tenant.`),
  referenceMalformed: (url: unknown) =>
    badRequest(`Invalid object reference ${JSON.stringify(url)}: expected a URL ending /users/{id}, /groups/{id}, /servicePrincipals/{id} or /directoryObjects/{id}.`),
  sponsorsMissing: (what: string) => badRequest(`An ${what} needs at least one sponsor: set sponsors@odata.bind to one or more user or group URLs.`),
  // The sponsor pages state these rules but document no code for them: Graph's generic 400.
  sponsorMissing: (id: string) => badRequest(`Sponsor '${id}' does not exist in this tenant as the user or group the URL names.`),
  sponsorNotPerson: (id: string) => badRequest(`Sponsor '${id}' is a service principal or an agent user; a sponsor is a user or a group.`),
  sponsorGroupKind: (id: string) => badRequest(`Group '${id}' cannot be a sponsor: only Microsoft 365 groups and groups with dynamic membership can.`),
  sponsorGroupRoleAssignable: (id: string) => badRequest(`Group '${id}' is role-assignable; role-assignable groups cannot be sponsors.`),
  sponsorGroupsTooMany: (max: number) => badRequest(`At most ${max} of an object's sponsors may be groups.`),
  sponsorsTooMany: (max: number) => badRequest(`An object may have at most ${max} sponsors.`),
  sponsorAlreadyThere: () => badRequest("One or more added object references already exist for the following modified properties: 'sponsors'."),
  lastSponsor: (kind: string) => badRequest(`An ${kind} must keep at least one sponsor: add the new sponsor before removing the last one.`),
  ownersNotList: () => badRequest("owners@odata.bind must be a list of URLs."),
  ownerMissing: (id: string) => badRequest(`Owner '${id}' does not exist in this tenant.`),

  // --- Blueprints, principals and agent identities.
  displayNameTooLong: (length: number, max: number) => badRequest(`displayName is ${length} characters; at most ${max} are allowed.`),
  tagsNotStrings: () => badRequest("tags must be a list of strings."),
  descriptionTooLong: (length: number, max: number) => badRequest(`description is ${length} characters; at most ${max} are allowed.`),
  /** The user form's wording ("Invalid value specified for property 'x' of resource 'User'."), for applications. */
  invalidApplicationValue: (name: string) => badRequest(`Invalid value specified for property '${name}' of resource 'Application'.`),
  principalExists: (appId: string) => conflict(`The blueprint ${appId} already has a service principal in this tenant.`),
  // Codes from the Agent ID error codes page (learn.microsoft.com/entra/agent-id/error-codes), which gives no statuses:
  // the emulator answers 400 for a refused body and 403 for a caller that may not create.
  principalNeedsBlueprint: (appId: string) =>
    agentIdError(400, "AgentBlueprintPrincipal_RequireAgentBlueprint", `Application '${appId}' is not an agent identity blueprint: agent identity blueprint principals can only be created for agent identity blueprints.`),
  blueprintWithoutPrincipal: (appId: string) =>
    agentIdError(
      400,
      "AgentIdentity_AgentBlueprintPrincipalDoesNotExist",
      `The agent identity blueprint ${appId} has no service principal in this tenant; create its agentIdentityBlueprintPrincipal first.`,
    ),
  parentNotABlueprint: (appId: string) =>
    agentIdError(
      400,
      "AgentIdentity_IncompatibleParentType",
      `The specified application (appId ${appId}) isn't an agent identity blueprint; agentIdentityBlueprintId must be the appId of an agent identity blueprint.`,
    ),
  identityCreatingIdentity: () =>
    agentIdError(403, "Error_AgentIdentitiesCreatingAgentIdentitiesNotAllowed", "Agent identities can't create other agent identities; use the blueprint principal or another service principal with the required permissions."),
  blueprintCreatingOthersIdentity: () =>
    agentIdError(
      403,
      "Error_AgentBlueprintCannotCreateAssociatedIdentity",
      "Agent identity blueprints can't create agent identities associated with another agent identity blueprint; use that blueprint, or a principal with AgentIdentity.Create.All.",
    ),
  identitySelfCreateRequired: () =>
    agentIdError(403, "Error_AgentIdentitySelfCreateRequired", "Applications can only create agent identities under themselves: agentIdentityBlueprintId doesn't match the calling application's appId."),

  // --- Agent users.
  upnDomainUnverified: (domains: readonly string[]) =>
    badRequest(
      "The domain portion of the userPrincipalName property is invalid. " +
        `You must use one of the verified domain names in your organization (${domains.join(", ")}).`,
    ),
  /** Graph's answer for a value its rules refuse (seen for mailNickname and userPrincipalName). */
  invalidUserValue: (name: string) => badRequest(`Invalid value specified for property '${name}' of resource 'User'.`),
  upnTaken: () => badRequest("Another object with the same value for property userPrincipalName already exists."),
  accountEnabledNotBoolean: () => badRequest("accountEnabled must be true or false."),
  identityHasAgentUser: (identityId: string, userId: string) =>
    badRequest(`Agent identity ${identityId} already has an agent user (${userId}); an agent identity holds at most one.`),

  // --- Application credentials.
  dateInvalid: (name: string) => badRequest(`${name} must be an ISO 8601 date and time.`),
  /** Graph's wording for a property value it refuses on an application (as public reports of application PATCHes quote it). */
  keyCredentialInvalid: (name: string) => badRequest(`Invalid value specified for property '${name}' of resource 'Application'.`),
  passwordCredentialNotObject: () => badRequest('passwordCredential must be an object such as {"displayName": "..."}.'),
  federatedNameTaken: (name: string) => conflict(`A federated identity credential named '${name}' already exists on this application.`),
  federatedLimit: (max: number) => badRequest(`An application holds at most ${max} federated identity credentials.`),
  audiencesNotOne: () => badRequest("audiences must hold exactly one value, e.g. api://AzureADTokenExchange."),

  // --- Delegated permission grants.
  notAGuid: (name: string) => badRequest(`Invalid value specified for property '${name}': it must be an object id (GUID).`),
  consentTypeInvalid: () => badRequest("consentType must be Principal or AllPrincipals."),
  principalIdWithAllPrincipals: () => badRequest("principalId must be null when consentType is AllPrincipals."),
  scopeNotString: () => badRequest("scope must be a space-separated string of delegated permissions."),
  grantExists: () => conflict("Permission entry already exists."),

  // --- App role assignments (the texts Graph answers, as azuread's provider and users quote them).
  appRoleNotFound: (appRoleId: string) => badRequest(`Permission being assigned was not found on application: app role '${appRoleId}' is not an enabled application permission of the resource.`),
  appRoleAssignmentExists: () => badRequest("Permission being assigned already exists on the object."),
  assignmentResourceMismatch: (id: string) => badRequest(`resourceId must be '${id}', the service principal in the URL.`),

  // --- A blueprint's exposed API (identifierUris and api).
  identifierUrisNotList: () => badRequest("identifierUris must be a list of URIs."),
  identifierUriRefused: (uri: string) =>
    badRequest(
      `Values of identifierUris property must use a verified domain of the organization or its subdomain, or a format with the application's or the tenant's id (api://{appId}, api://{tenantId}/..., api://.../{appId}): '${uri}' is none of them.`,
    ),
  identifierUriTaken: (uri: string) => badRequest(`Another object with the same value for property identifierUris already exists: '${uri}'.`),
  // permissionScope: "To delete a permission, this property must first be set to false"; Graph's text as its SDKs' users quote it
  // (microsoftgraph/msgraph-sdk-powershell#1054, OfficeDev/microsoft-365-agents-toolkit#9420).
  enabledScopeChanged: () => spec({ status: 400, code: "CannotDeleteOrUpdateEnabledEntitlement", message: "Permission (scope or role) cannot be deleted or updated unless disabled first." }),
  permissionScopeInvalid: (detail: string) => badRequest(`Invalid value specified for property 'oauth2PermissionScopes': ${detail}.`),
  // Graph's words for a permissionScope property it refuses, as its users quote them for `type`
  // (microsoftgraph/microsoft-graph-docs-contrib#4750), here for `value` (permissionscope.md's character set).
  permissionScopeValueInvalid: () => badRequest("Invalid value specified for property 'value' of resource 'PermissionScope'."),
  preAuthorizedScopeMissing: (id: string) => badRequest(`preAuthorizedApplications names delegated permission '${id}', which api.oauth2PermissionScopes does not hold.`),
} satisfies Record<string, (...args: never[]) => GraphErrorSpec>;
