/**
 * The two functions the kit calls.
 * - getClientConfig (internal/services/serviceprincipals/client_config_data_source.go):
 *   the provider's own tenant, client and object ids, no request; its id is
 *   `{tenantId}-{clientId}-{objectId}`.
 * - getServicePrincipal (service_principal_data_source.go): exactly one of
 *   objectId (`GET /v1.0/servicePrincipals/{id}`), displayName or clientId
 *   (`GET /v1.0/servicePrincipals?$filter=displayName eq '…'` or `appId eq '…'`,
 *   every page), then `GET /beta/servicePrincipals/{id}?$select=samlMetadataUrl`;
 *   the outputs flattened as internal/helpers/applications/applications.go
 *   does (appRoleIds and oauth2PermissionScopeIds map value → id, the
 *   servicePrincipalNames without the appId). Its id is `/servicePrincipals/{id}`.
 */
import type { CheckFailure } from "@pulumi/pulumi/provider";
import { text, type JsonObject } from "./application";
import { azureadError } from "./failure";
import { EXPECTED, wasNotFound, type Graph } from "./graph";
import { describeServicePrincipal, servicePrincipalPath } from "./ids";
import type { Session } from "./session";
import { notEmpty, uuid } from "./validation";

export interface FunctionKind {
  token: string;
  /** The declaration of its result in the SDK, e.g. GetServicePrincipalResult. */
  resultType: string;
  /** ValidateFunc and ExactlyOneOf, on the plain arguments. */
  check(args: JsonObject): CheckFailure[];
  invoke(session: Session, args: JsonObject): Promise<JsonObject>;
}

export const getClientConfig: FunctionKind = {
  token: "azuread:index/getClientConfig:getClientConfig",
  resultType: "GetClientConfigResult",
  check: () => [],
  invoke: async ({ settings, objectId }) => ({
    id: `${settings.tenantId}-${settings.clientId}-${objectId}`,
    clientId: settings.clientId,
    tenantId: settings.tenantId,
    objectId,
  }),
};

const LOOKUPS = ["clientId", "displayName", "objectId"] as const;
const LOOKUP_VALIDATION = { clientId: uuid, displayName: notEmpty, objectId: uuid } as const;
const quoted = (value: string) => value.replace(/'/g, "''");

function checkLookup(args: JsonObject): CheckFailure[] {
  const given = LOOKUPS.filter((name) => args[name] !== undefined && args[name] !== "");
  const names = "`client_id,display_name,object_id`";
  if (given.length === 0) return [{ property: "objectId", reason: `"object_id": one of ${names} must be specified` }];
  if (given.length > 1) {
    const which = given.map((n) => n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)).join(",");
    return [{ property: given[1]!, reason: `"${which.split(",")[1]}": only one of ${names} can be specified, but \`${which}\` were specified.` }];
  }
  const name = given[0]!;
  const reason = LOOKUP_VALIDATION[name](args[name], name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  return reason ? [{ property: name, reason }] : [];
}

/** The principal the arguments name, as Graph answers it on v1.0. */
async function findPrincipal(graph: Graph, args: JsonObject): Promise<JsonObject> {
  if (typeof args.objectId === "string") {
    try {
      return ((await graph.call({ method: "GET", path: servicePrincipalPath(args.objectId), expect: EXPECTED.get })).body ?? {}) as JsonObject;
    } catch (err) {
      if (wasNotFound(err)) throw azureadError(`${describeServicePrincipal(args.objectId)} was not found`, undefined, "object_id");
      throw azureadError(`Retrieving ${describeServicePrincipal(args.objectId)}`, err, "object_id");
    }
  }
  const [field, wanted] = typeof args.displayName === "string" ? ["displayName", args.displayName] : ["appId", String(args.clientId)];
  const filter = `${field} eq '${quoted(wanted)}'`;
  let found: JsonObject[];
  try {
    found = (await graph.list("/servicePrincipals", { $filter: filter })) as JsonObject[];
  } catch (err) {
    throw azureadError(`Listing service principals for filter ${JSON.stringify(filter)}`, err);
  }
  if (field === "displayName" && found.length === 0) throw azureadError("Service principal not found", `no service principals found matching filter: ${JSON.stringify(filter)}`);
  if (field === "displayName" && found.length > 1) throw azureadError("Multiple service principals found", `found multiple service principals matching filter: ${JSON.stringify(filter)}`);
  const match = found.find((sp) => text(sp, field).toLowerCase() === wanted.toLowerCase());
  if (!match) throw azureadError("No service principal found", "no service principal found");
  return match;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const objects = (value: unknown): JsonObject[] => list(value).filter((v): v is JsonObject => typeof v === "object" && v !== null);

/** value → id of the entries that have both. */
const idsByValue = (entries: JsonObject[]): JsonObject => Object.fromEntries(entries.filter((e) => text(e, "value") && text(e, "id")).map((e) => [text(e, "value"), text(e, "id")]));

const appRoleOf = (role: JsonObject): JsonObject => ({
  allowedMemberTypes: list(role.allowedMemberTypes),
  description: text(role, "description"),
  displayName: text(role, "displayName"),
  enabled: role.isEnabled === true,
  id: text(role, "id"),
  value: text(role, "value"),
});

const scopeOf = (scope: JsonObject): JsonObject => ({
  adminConsentDescription: text(scope, "adminConsentDescription"),
  adminConsentDisplayName: text(scope, "adminConsentDisplayName"),
  enabled: scope.isEnabled === true,
  id: text(scope, "id"),
  type: text(scope, "type"),
  userConsentDescription: text(scope, "userConsentDescription"),
  userConsentDisplayName: text(scope, "userConsentDisplayName"),
  value: text(scope, "value"),
});

/** FlattenFeatures, both the current form and the deprecated one. */
function featuresOf(tags: unknown[]): { featureTags: JsonObject[]; features: JsonObject[] } {
  const has = (tag: string) => tags.some((t) => typeof t === "string" && t.toLowerCase() === tag.toLowerCase());
  const custom = has("WindowsAzureActiveDirectoryCustomSingleSignOnApplication");
  const enterprise = has("WindowsAzureActiveDirectoryIntegratedApp");
  const gallery = has("WindowsAzureActiveDirectoryGalleryApplicationNonPrimaryV1");
  const hide = has("HideApp");
  return {
    featureTags: [{ customSingleSignOn: custom, enterprise, gallery, hide }],
    features: [{ customSingleSignOnApp: custom, enterpriseApplication: enterprise, galleryApplication: gallery, visibleToUsers: !hide }],
  };
}

/** The data source's outputs from the v1.0 principal and the beta read's samlMetadataUrl. */
export function servicePrincipalOutputs(sp: JsonObject, beta: JsonObject): JsonObject {
  const appId = text(sp, "appId");
  const saml = sp.samlSingleSignOnSettings;
  return {
    id: servicePrincipalPath(text(sp, "id")),
    accountEnabled: sp.accountEnabled === true,
    alternativeNames: list(sp.alternativeNames),
    appRoleAssignmentRequired: sp.appRoleAssignmentRequired === true,
    appRoleIds: idsByValue(objects(sp.appRoles)),
    appRoles: objects(sp.appRoles).map(appRoleOf),
    applicationTenantId: text(sp, "appOwnerOrganizationId"),
    clientId: appId,
    description: text(sp, "description"),
    displayName: text(sp, "displayName"),
    ...featuresOf(list(sp.tags)),
    homepageUrl: text(sp, "homepage"),
    logoutUrl: text(sp, "logoutUrl"),
    loginUrl: text(sp, "loginUrl"),
    notes: text(sp, "notes"),
    notificationEmailAddresses: list(sp.notificationEmailAddresses),
    oauth2PermissionScopeIds: idsByValue(objects(sp.oauth2PermissionScopes)),
    oauth2PermissionScopes: objects(sp.oauth2PermissionScopes).map(scopeOf),
    objectId: text(sp, "id"),
    preferredSingleSignOnMode: text(sp, "preferredSingleSignOnMode"),
    redirectUris: list(sp.replyUrls),
    samlMetadataUrl: text(beta, "samlMetadataUrl"),
    samlSingleSignOns: typeof saml === "object" && saml !== null ? [{ relayState: text(saml as JsonObject, "relayState") }] : [],
    servicePrincipalNames: list(sp.servicePrincipalNames).filter((n) => typeof n !== "string" || n.toLowerCase() !== appId.toLowerCase()),
    signInAudience: text(sp, "signInAudience"),
    tags: list(sp.tags),
    type: text(sp, "servicePrincipalType"),
  };
}

export const getServicePrincipal: FunctionKind = {
  token: "azuread:index/getServicePrincipal:getServicePrincipal",
  resultType: "GetServicePrincipalResult",
  check: checkLookup,
  invoke: async ({ graph }, args) => {
    const sp = await findPrincipal(graph, args);
    const id = text(sp, "id");
    if (!id) throw azureadError("Bad API Response", "API returned service principal with nil object ID");
    let beta: JsonObject;
    try {
      beta = ((await graph.call({ method: "GET", version: "beta", path: servicePrincipalPath(id), query: { $select: "samlMetadataUrl" }, expect: EXPECTED.get })).body ?? {}) as JsonObject;
    } catch (err) {
      throw azureadError(`Retrieving ${describeServicePrincipal(id)} (beta API)`, err);
    }
    return servicePrincipalOutputs(sp, beta);
  },
};

export const FUNCTIONS: readonly FunctionKind[] = [getClientConfig, getServicePrincipal];
