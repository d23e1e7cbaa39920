/**
 * Every Microsoft Graph operation the kit makes (the dynamic providers, the
 * azuread resources of the stack, doctor, preflight and comments), with the
 * permissions Microsoft's API reference lists for it. One table, read by the
 * emulator (which authorizes from it and nothing else), by the provisioner's
 * permission set (derived from it), by preflight and by the Graph client's
 * 403 hint. Nothing here has been checked against a real tenant.
 *
 * Sources: `docs:` is a path in microsoftgraph/microsoft-graph-docs-contrib,
 * `learn:` a page under learn.microsoft.com/graph/api, `matrix:` Microsoft's
 * Agent ID permission matrix (microsoft/Agent365-devTools,
 * docs/plans/agent-id-permissions-reference.md). Where the reference is
 * unclear or its pages disagree, the row takes the stricter reading and its
 * `note` says so. docs/protocol.md, "The permission table", summarizes it.
 */

/** Whom a permission reaches, when the reference limits it to some objects. */
export type PermissionReach =
  /** Objects whose owners include the caller (Application.ReadWrite.OwnedBy). */
  | "owner"
  /** Blueprints and blueprint principals this same application created while holding AgentIdentityBlueprint.CreateAsManager (matrix, footnotes * and **). */
  | "createdAsManager"
  /** Objects that descend from the calling blueprint: AgentIdentity.CreateAsManager and AgentIdUser.ReadWrite.IdentityParentedBy are held by blueprints. */
  | "ownBlueprint"
  /** The signed-in user alone: User.Read and User.ReadWrite read "the signed-in user only" (user-get). */
  | "self";

export interface GraphOperation {
  /** What a person calls it, e.g. "list agent identity blueprints". */
  summary: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path as sent, with `{name}` for each variable segment. */
  path: string;
  /** Application permissions the reference lists, least privileged first. */
  application: readonly string[];
  /** Delegated permissions the reference lists, least privileged first. */
  delegated: readonly string[];
  /** Permissions of `application` or `delegated` that reach only some objects. */
  reach?: Readonly<Record<string, PermissionReach>>;
  /**
   * An Agent ID create, update or delete: Entra ignores the caller's Agent ID
   * permissions when it also holds Directory.ReadWrite.All or
   * Directory.AccessAsUser.All, which "can cause" a 403 (learn: entra/agent-id
   * known issues). The emulator refuses such a caller.
   */
  agentIdWrite?: boolean;
  /** Where the row comes from. */
  source: string;
  /** What the reference leaves unclear, and what the row chose. */
  note?: string;
}

/** Who makes the call. */
export type Caller = "provider" | "azuread" | "doctor" | "preflight" | "comments" | "agent";

/** A row of the table, with who makes it and when. */
export interface KitOperation extends GraphOperation {
  callers: readonly Caller[];
}

/** Holding either one makes Entra ignore the Agent ID permissions of a create, update or delete. */
export const AGENT_ID_WRITE_BLOCKERS: readonly string[] = ["Directory.ReadWrite.All", "Directory.AccessAsUser.All"];

const BP = "/v1.0/applications/{id}/microsoft.graph.agentIdentityBlueprint";
const BPP = "/v1.0/servicePrincipals/{id}/microsoft.graph.agentIdentityBlueprintPrincipal";
const AI = "/v1.0/servicePrincipals/{id}/microsoft.graph.agentIdentity";
const AU = "/v1.0/users/microsoft.graph.agentUser/{id}";
const V1 = "api-reference/v1.0/includes/permissions";
const BETA = "api-reference/beta/includes/permissions";
const MATRIX = "matrix: Agent ID permission matrix";
const FILES = ["Files.Read.All", "Files.ReadWrite.All", "Sites.Read.All", "Sites.ReadWrite.All"];

const blueprintManager = { "AgentIdentityBlueprint.CreateAsManager": "createdAsManager" } as const;
const identityManager = { "AgentIdentity.CreateAsManager": "ownBlueprint" } as const;
const parentedBy = { "AgentIdUser.ReadWrite.IdentityParentedBy": "ownBlueprint" } as const;
/** An agent user's sponsors: agentuser-post-sponsors and agentuser-delete-sponsors list these, for both permission types. */
const AGENT_USER_SPONSORS = ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All"];
const ownedBy = { "Application.ReadWrite.OwnedBy": "owner" } as const;
const signedInUser = { "User.Read": "self", "User.ReadWrite": "self" } as const;
/** user-get's delegated permissions, least privileged first: for `/users/{id}` and `/me` alike. */
const USER_GET_DELEGATED = ["User.Read", "User.ReadWrite", "User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"];

/**
 * The table. Each key names one operation; the emulator's routes name the key
 * they serve.
 */
export const GRAPH_OPERATIONS = {
  // --- Agent identity blueprints.
  "blueprint.create": {
    summary: "create an agent identity blueprint",
    method: "POST",
    path: "/v1.0/applications/microsoft.graph.agentIdentityBlueprint",
    application: ["AgentIdentityBlueprint.Create", "AgentIdentityBlueprint.CreateAsManager", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.Create", "AgentIdentityBlueprint.ReadWrite.All"],
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentityblueprint-post-permissions.md; ${MATRIX} (CreateAsManager)`,
    note: "the API page does not list AgentIdentityBlueprint.CreateAsManager; the matrix does, so the row accepts it",
    callers: ["provider"],
  },
  "blueprint.list": {
    summary: "list agent identity blueprints",
    method: "GET",
    path: "/v1.0/applications/microsoft.graph.agentIdentityBlueprint",
    application: ["AgentIdentityBlueprint.Read.All", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.Read.All", "AgentIdentityBlueprint.ReadWrite.All"],
    source: `docs: ${V1}/agentidentityblueprint-list-permissions.md`,
    note: "the beta page and the matrix also list Application.Read.All; the v1.0 page, which the kit calls, does not, so the row leaves it out",
    callers: ["provider", "doctor", "preflight"],
  },
  "blueprint.get": {
    summary: "read an agent identity blueprint",
    method: "GET",
    path: BP,
    application: ["AgentIdentityBlueprint.Read.All", "Application.Read.All", "Directory.Read.All", "AgentIdentityBlueprint.CreateAsManager"],
    delegated: ["AgentIdentityBlueprint.Read.All", "Application.Read.All", "Directory.Read.All"],
    reach: blueprintManager,
    source: `docs: ${BETA}/agentidentityblueprint-get-permissions.md; ${MATRIX} (CreateAsManager)`,
    note: "no v1.0 permission include was found; the row follows the beta one",
    callers: ["provider", "doctor"],
  },
  "blueprint.update": {
    summary: "rename an agent identity blueprint (displayName, tags)",
    method: "PATCH",
    path: BP,
    application: ["AgentIdentityBlueprint.UpdateBranding.All", "AgentIdentityBlueprint.ReadWrite.All", "AgentIdentityBlueprint.CreateAsManager"],
    delegated: ["AgentIdentityBlueprint.UpdateBranding.All", "AgentIdentityBlueprint.ReadWrite.All"],
    reach: blueprintManager,
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentityblueprint-update-permissions.md; ${MATRIX} (property categories)`,
    note: "the page lists AddRemoveCreds.All and UpdateBranding.All alike; the matrix puts displayName and tags under UpdateBranding.All only, and the row follows it",
    callers: ["provider"],
  },
  "blueprint.delete": {
    summary: "delete an agent identity blueprint",
    method: "DELETE",
    path: BP,
    application: ["AgentIdentityBlueprint.DeleteRestore.All", "AgentIdentityBlueprint.ReadWrite.All", "AgentIdentityBlueprint.CreateAsManager"],
    delegated: ["AgentIdentityBlueprint.DeleteRestore.All", "AgentIdentityBlueprint.ReadWrite.All"],
    reach: blueprintManager,
    agentIdWrite: true,
    source: `docs: ${BETA}/agentidentityblueprint-delete-permissions.md; ${MATRIX} (CreateAsManager)`,
    callers: ["provider"],
  },
  "blueprint.sponsors.list": {
    summary: "list a blueprint's sponsors",
    method: "GET",
    path: `${BP}/sponsors`,
    application: ["Application.Read.All"],
    delegated: ["Application.Read.All"],
    source: `docs: ${V1}/agentidentityblueprint-list-sponsors-permissions.md`,
    note: "the beta page says no permission is available yet; the row follows v1.0",
    callers: ["provider"],
  },
  "blueprint.sponsors.add": {
    summary: "add a sponsor to a blueprint",
    method: "POST",
    path: `${BP}/sponsors/$ref`,
    application: ["Application.ReadWrite.All"],
    delegated: ["Application.ReadWrite.All"],
    agentIdWrite: true,
    source: "learn: agentidentityblueprint-post-sponsors?view=graph-rest-1.0",
    callers: ["provider"],
  },
  "blueprint.sponsors.remove": {
    summary: "remove a sponsor from a blueprint",
    method: "DELETE",
    path: `${BP}/sponsors/{sponsorId}/$ref`,
    application: ["Application.ReadWrite.All"],
    delegated: ["Application.ReadWrite.All"],
    agentIdWrite: true,
    source: "learn: agentidentityblueprint-delete-sponsors?view=graph-rest-1.0 (as agentidentityblueprint-post-sponsors)",
    note: "no v1.0 table of this page was readable and the beta one says 'not yet available'; the row takes the add page's permission",
    callers: ["provider"],
  },

  // --- A blueprint's credentials, as the azuread resources write them (untyped application URLs).
  "blueprint.password.add": {
    summary: "add a client secret to a blueprint (azuread.ApplicationPassword)",
    method: "POST",
    path: "/v1.0/applications/{id}/addPassword",
    application: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    agentIdWrite: true,
    source: `docs: ${BETA}/agentidentityblueprint-removepassword-permissions.md (addPassword's include was not found); ${MATRIX} (AddRemoveCreds.All covers passwordCredentials)`,
    note: "Directory.ReadWrite.All, listed as higher, is left out: it is one of the permissions that make Entra ignore the Agent ID ones",
    callers: ["azuread"],
  },
  "blueprint.password.remove": {
    summary: "remove a blueprint's client secret (azuread.ApplicationPassword)",
    method: "POST",
    path: "/v1.0/applications/{id}/removePassword",
    application: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    agentIdWrite: true,
    source: `docs: ${BETA}/agentidentityblueprint-removepassword-permissions.md`,
    callers: ["azuread"],
  },
  "blueprint.certificate.update": {
    summary: "add or remove a blueprint's certificate (azuread.ApplicationCertificate writes keyCredentials)",
    method: "PATCH",
    path: "/v1.0/applications/{id}",
    application: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentityblueprint-addkey-permissions.md; ${MATRIX} (AddRemoveCreds.All covers keyCredentials)`,
    callers: ["azuread"],
  },
  "blueprint.read": {
    summary: "read a blueprint through the untyped application URL (azuread reads of its credentials)",
    method: "GET",
    path: "/v1.0/applications/{id}",
    application: ["Application.Read.All", "Application.ReadWrite.OwnedBy", "Application.ReadWrite.All"],
    delegated: ["Application.Read.All", "Application.ReadWrite.All", "Directory.Read.All"],
    reach: ownedBy,
    source: `docs: ${V1}/application-get-permissions.md`,
    callers: ["azuread"],
  },
  "blueprint.federated.list": {
    summary: "list a blueprint's federated credentials",
    method: "GET",
    path: "/v1.0/applications/{id}/federatedIdentityCredentials",
    application: ["Application.Read.All", "Application.ReadWrite.OwnedBy", "Application.ReadWrite.All"],
    delegated: ["Application.Read.All", "Application.ReadWrite.All"],
    reach: ownedBy,
    source: `docs: ${V1}/application-list-federatedidentitycredentials-permissions.md`,
    callers: ["azuread", "doctor"],
  },
  "blueprint.federated.get": {
    summary: "read a blueprint's federated credential (azuread.ApplicationFederatedIdentityCredential)",
    method: "GET",
    path: "/v1.0/applications/{id}/federatedIdentityCredentials/{credentialId}",
    application: ["Application.Read.All", "Application.ReadWrite.OwnedBy", "Application.ReadWrite.All"],
    delegated: ["Application.Read.All", "Application.ReadWrite.All"],
    reach: ownedBy,
    source: `docs: ${V1}/application-list-federatedidentitycredentials-permissions.md`,
    note: "the get page's table was not found; the row takes the list page's",
    callers: ["azuread"],
  },
  "blueprint.federated.add": {
    summary: "add a federated credential to a blueprint (azuread.ApplicationFederatedIdentityCredential)",
    method: "POST",
    path: "/v1.0/applications/{id}/federatedIdentityCredentials",
    application: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.ReadWrite.All"],
    agentIdWrite: true,
    source: `${MATRIX} (AddRemoveCreds.All covers federatedIdentityCredentials); docs: ${BETA}/agentidentityblueprint-post-federatedidentitycredentials-permissions.md`,
    note: "the page's table lists only generic Application.* permissions and internal names (_E.AA, MS-Application.Update.All); the row follows the matrix",
    callers: ["azuread"],
  },
  "blueprint.federated.remove": {
    summary: "remove a blueprint's federated credential (azuread.ApplicationFederatedIdentityCredential)",
    method: "DELETE",
    path: "/v1.0/applications/{id}/federatedIdentityCredentials/{credentialId}",
    application: ["AgentIdentityBlueprint.DeleteRestore.All", "AgentIdentityBlueprint.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprint.DeleteRestore.All", "AgentIdentityBlueprint.ReadWrite.All"],
    agentIdWrite: true,
    source: `docs: ${BETA}/agentidentityblueprint-federatedidentitycredential-delete-permissions.md`,
    note: "the page lists DeleteRestore.All where the matrix puts federated credentials under AddRemoveCreds.All; the row follows the API page",
    callers: ["azuread"],
  },

  // --- Blueprint principals.
  "principal.create": {
    summary: "create a blueprint principal",
    method: "POST",
    path: "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal",
    application: ["AgentIdentityBlueprintPrincipal.Create", "AgentIdentityBlueprintPrincipal.ReadWrite.All", "AgentIdentityBlueprint.CreateAsManager"],
    delegated: ["AgentIdentityBlueprintPrincipal.Create", "AgentIdentityBlueprintPrincipal.ReadWrite.All"],
    reach: blueprintManager,
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentityblueprintprincipal-post-permissions.md; ${MATRIX} (CreateAsManager, for a blueprint the same app created with it)`,
    callers: ["provider"],
  },
  "principal.list": {
    summary: "list blueprint principals",
    method: "GET",
    path: "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal",
    application: ["AgentIdentityBlueprintPrincipal.Read.All", "AgentIdentityBlueprintPrincipal.ReadWrite.All"],
    delegated: ["AgentIdentityBlueprintPrincipal.Read.All", "AgentIdentityBlueprintPrincipal.ReadWrite.All"],
    source: `docs: ${V1}/agentidentityblueprintprincipal-list-permissions.md`,
    callers: ["provider", "doctor"],
  },
  "principal.get": {
    summary: "read a blueprint principal",
    method: "GET",
    path: BPP,
    application: ["AgentIdentityBlueprintPrincipal.Read.All", "Application.Read.All", "AgentIdentityBlueprint.CreateAsManager"],
    delegated: ["AgentIdentityBlueprintPrincipal.Read.All", "Application.Read.All"],
    reach: blueprintManager,
    source: `docs: ${BETA}/agentidentityblueprintprincipal-get-permissions.md; ${MATRIX} (CreateAsManager)`,
    callers: ["provider", "doctor"],
  },
  "principal.delete": {
    summary: "delete a blueprint principal",
    method: "DELETE",
    path: BPP,
    application: ["AgentIdentityBlueprintPrincipal.DeleteRestore.All", "AgentIdentityBlueprintPrincipal.ReadWrite.All", "AgentIdentityBlueprint.CreateAsManager"],
    delegated: ["AgentIdentityBlueprintPrincipal.DeleteRestore.All", "AgentIdentityBlueprintPrincipal.ReadWrite.All"],
    reach: blueprintManager,
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentityblueprintprincipal-delete-permissions.md; ${MATRIX} (CreateAsManager)`,
    callers: ["provider"],
  },

  // --- Agent identities.
  "identity.create": {
    summary: "create an agent identity",
    method: "POST",
    path: "/v1.0/servicePrincipals/microsoft.graph.agentIdentity",
    application: ["AgentIdentity.Create.All", "AgentIdentity.CreateAsManager", "AgentIdentity.ReadWrite.All"],
    delegated: ["AgentIdentity.Create.All", "AgentIdentity.ReadWrite.All"],
    reach: identityManager,
    agentIdWrite: true,
    source: `learn: agentidentity-post?view=graph-rest-1.0; docs: ${V1}/agentidentity-post-permissions.md`,
    note: "an older include lists no higher permission; the learn page lists AgentIdentity.ReadWrite.All, and the row takes it",
    callers: ["provider"],
  },
  "identity.list": {
    summary: "list agent identities",
    method: "GET",
    path: "/v1.0/servicePrincipals/microsoft.graph.agentIdentity",
    application: ["AgentIdentity.Read.All", "AgentIdentity.ReadWrite.All"],
    delegated: ["AgentIdentity.Read.All", "AgentIdentity.ReadWrite.All"],
    source: `docs: ${V1}/agentidentity-list-permissions.md`,
    callers: ["provider"],
  },
  "identity.get": {
    summary: "read an agent identity",
    method: "GET",
    path: AI,
    application: ["AgentIdentity.Read.All", "AgentIdentity.CreateAsManager", "Application.Read.All"],
    delegated: ["AgentIdentity.Read.All", "Application.Read.All"],
    reach: identityManager,
    source: `docs: ${V1}/agentidentity-get-permissions.md`,
    note: "AgentIdentity.ReadWrite.All is not listed for a get (it is for a list); the row keeps to the page",
    callers: ["provider", "doctor", "preflight"],
  },
  "identity.update": {
    summary: "rename an agent identity",
    method: "PATCH",
    path: AI,
    application: ["AgentIdentity.EnableDisable.All", "AgentIdentity.CreateAsManager", "AgentIdentity.ReadWrite.All"],
    delegated: ["AgentIdentity.EnableDisable.All", "AgentIdentity.ReadWrite.All"],
    reach: identityManager,
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentity-update-permissions.md`,
    callers: ["provider"],
  },
  "identity.delete": {
    summary: "delete an agent identity",
    method: "DELETE",
    path: AI,
    application: ["AgentIdentity.DeleteRestore.All", "AgentIdentity.CreateAsManager"],
    delegated: ["AgentIdentity.DeleteRestore.All"],
    reach: identityManager,
    agentIdWrite: true,
    source: `docs: ${BETA}/agentidentity-delete-permissions.md; ${MATRIX}`,
    callers: ["provider"],
  },
  "identity.sponsors.list": {
    summary: "list an agent identity's sponsors",
    method: "GET",
    path: `${AI}/sponsors`,
    application: ["AgentIdentity.ReadWrite.All"],
    delegated: [],
    source: `docs: ${BETA}/agentidentity-list-sponsors-permissions.md`,
    note: "only AgentIdentity.ReadWrite.All is listed, even for this read; the row keeps to the page",
    callers: ["provider", "doctor"],
  },
  "identity.sponsors.add": {
    summary: "add a sponsor to an agent identity",
    method: "POST",
    path: `${AI}/sponsors/$ref`,
    application: ["AgentIdentity.ReadWrite.All"],
    delegated: [],
    agentIdWrite: true,
    source: `docs: ${V1}/agentidentity-post-sponsors-permissions.md`,
    note: "an older beta include lists AgentIdentity.UpdateSponsors.All and CreateAsManager instead; the row follows v1.0",
    callers: ["provider"],
  },
  "identity.sponsors.remove": {
    summary: "remove a sponsor from an agent identity",
    method: "DELETE",
    path: `${AI}/sponsors/{sponsorId}/$ref`,
    application: ["AgentIdentity.ReadWrite.All"],
    delegated: [],
    agentIdWrite: true,
    source: `docs: ${BETA}/agentidentity-delete-sponsors-permissions.md`,
    callers: ["provider"],
  },

  // --- Agent users.
  "agentUser.create": {
    summary: "create an agent user",
    method: "POST",
    path: "/v1.0/users/microsoft.graph.agentUser",
    application: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All"],
    delegated: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All"],
    reach: parentedBy,
    agentIdWrite: true,
    source: `${MATRIX} (agent ID users); learn: agentuser-post?view=graph-rest-1.0`,
    note: "the page's include was not found; the row follows the matrix, without User.ReadWrite.All",
    callers: ["provider"],
  },
  "agentUser.list": {
    summary: "list agent users",
    method: "GET",
    path: "/v1.0/users/microsoft.graph.agentUser",
    application: ["User.ReadBasic.All", "User.Read.All", "AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
    delegated: ["User.ReadBasic.All", "User.Read.All", "AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
    source: `docs: ${V1}/agentuser-list-permissions.md (the device management permissions it also lists are left out)`,
    callers: ["provider", "doctor"],
  },
  "agentUser.get": {
    summary: "read an agent user",
    method: "GET",
    path: AU,
    application: ["User.ReadBasic.All", "User.Read.All", "AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All"],
    delegated: ["User.ReadBasic.All", "User.Read.All", "AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All"],
    reach: parentedBy,
    source: `docs: ${V1}/agentuser-get-permissions.md`,
    callers: ["provider", "doctor", "preflight"],
  },
  "agentUser.update": {
    summary: "update an agent user",
    method: "PATCH",
    path: AU,
    application: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All"],
    delegated: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All"],
    reach: parentedBy,
    agentIdWrite: true,
    source: `${MATRIX} (agent ID users); learn: agentuser-update?view=graph-rest-1.0`,
    note: "the page's include was not found; the row follows the matrix, without User.ReadWrite.All",
    callers: ["provider"],
  },
  "agentUser.delete": {
    summary: "delete an agent user",
    method: "DELETE",
    path: AU,
    application: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.DeleteRestore.All", "User.ReadWrite.All"],
    delegated: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.DeleteRestore.All", "User.ReadWrite.All"],
    reach: parentedBy,
    agentIdWrite: true,
    source: `docs: ${V1}/agentuser-delete-permissions.md`,
    callers: ["provider"],
  },
  "agentUser.sponsors.list": {
    summary: "list an agent user's sponsors",
    method: "GET",
    path: "/v1.0/users/{id}/sponsors",
    application: AGENT_USER_SPONSORS,
    delegated: AGENT_USER_SPONSORS,
    reach: parentedBy,
    source: "learn: agentuser-list-sponsors?view=graph-rest-1.0; docs: api-reference/v1.0/api/agentuser-post-sponsors.md",
    note: "the list page's include was not found; the row takes the add and remove pages' permissions",
    callers: [],
  },
  "agentUser.sponsors.add": {
    summary: "add a sponsor to an agent user",
    method: "POST",
    path: "/v1.0/users/{id}/sponsors/$ref",
    application: AGENT_USER_SPONSORS,
    delegated: AGENT_USER_SPONSORS,
    reach: parentedBy,
    agentIdWrite: true,
    source: "docs: api-reference/v1.0/api/agentuser-post-sponsors.md",
    callers: [],
  },
  "agentUser.sponsors.remove": {
    summary: "remove a sponsor from an agent user",
    method: "DELETE",
    path: "/v1.0/users/{id}/sponsors/{sponsorId}/$ref",
    application: AGENT_USER_SPONSORS,
    delegated: AGENT_USER_SPONSORS,
    reach: parentedBy,
    agentIdWrite: true,
    source: "docs: api-reference/v1.0/api/agentuser-delete-sponsors.md",
    callers: [],
  },
  "user.get": {
    summary: "read a user (a sponsor, or whoever holds a UPN)",
    method: "GET",
    path: "/v1.0/users/{id}",
    application: ["User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
    delegated: USER_GET_DELEGATED,
    reach: signedInUser,
    source: `docs: ${BETA}/user-get-permissions.md`,
    callers: ["preflight"],
  },
  "me.get": {
    summary: "read the signed-in user's own profile",
    method: "GET",
    path: "/v1.0/me",
    // "Calling the /me endpoint requires a signed-in user and therefore a delegated permission" (user-get).
    application: [],
    delegated: USER_GET_DELEGATED,
    source: `docs: ${V1}/user-get-permissions.md; api-reference/v1.0/api/user-get.md`,
    callers: ["agent"],
  },

  // --- Service principals, grants and domains.
  "servicePrincipal.list": {
    summary: "find a service principal by appId (Microsoft Graph's, the resource API's)",
    method: "GET",
    path: "/v1.0/servicePrincipals",
    application: ["Application.Read.All", "Application.ReadWrite.OwnedBy", "Application.ReadWrite.All", "Directory.Read.All"],
    delegated: ["Application.Read.All", "Application.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"],
    source: `docs: ${V1}/serviceprincipal-list-permissions.md`,
    callers: ["azuread", "doctor", "preflight"],
  },
  "grant.create": {
    summary: "create the delegated permission grant (azuread.ServicePrincipalDelegatedPermissionGrant)",
    method: "POST",
    path: "/v1.0/oauth2PermissionGrants",
    application: ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    delegated: ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    source: `docs: ${BETA}/oauth2permissiongrant-post-permissions.md`,
    callers: ["azuread"],
  },
  "grant.list": {
    summary: "list an agent identity's delegated permission grants",
    method: "GET",
    path: "/v1.0/oauth2PermissionGrants",
    application: ["Directory.Read.All", "DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    delegated: ["Directory.Read.All", "DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    source: `docs: ${V1}/oauth2permissiongrant-list-permissions.md`,
    note: "DelegatedPermissionGrant.Read.All is listed for a get, not for a list; the row keeps to the list page",
    callers: ["doctor"],
  },
  "grant.get": {
    summary: "read the delegated permission grant (azuread refresh)",
    method: "GET",
    path: "/v1.0/oauth2PermissionGrants/{id}",
    application: ["DelegatedPermissionGrant.Read.All", "Directory.Read.All", "DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    delegated: ["DelegatedPermissionGrant.Read.All", "Directory.Read.All", "DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    source: `docs: ${BETA}/oauth2permissiongrant-get-permissions.md`,
    callers: ["azuread"],
  },
  "grant.update": {
    summary: "change the grant's scopes (azuread)",
    method: "PATCH",
    path: "/v1.0/oauth2PermissionGrants/{id}",
    application: ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    delegated: ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    source: `docs: ${BETA}/oauth2permissiongrant-update-permissions.md`,
    callers: ["azuread"],
  },
  "grant.delete": {
    summary: "delete the grant (azuread)",
    method: "DELETE",
    path: "/v1.0/oauth2PermissionGrants/{id}",
    application: ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    delegated: ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"],
    source: "docs: api-reference/v1.0/api/oauth2permissiongrant-delete.md; the post and update includes",
    note: "the stored delete page is old and lists only Directory.ReadWrite.All for applications; the row takes the post and update pages' DelegatedPermissionGrant.ReadWrite.All",
    callers: ["azuread"],
  },
  "domain.get": {
    summary: "read a domain of the tenant",
    method: "GET",
    path: "/v1.0/domains/{id}",
    application: ["Domain.Read.All", "Domain.ReadWrite.All", "Directory.Read.All"],
    delegated: ["Domain.Read.All", "Domain.ReadWrite.All", "Directory.Read.All"],
    source: `docs: ${V1}/domain-get-permissions.md`,
    callers: ["preflight"],
  },

  // --- Files, for `agent-user comments` (the agent user's delegated token only).
  "share.driveItem": {
    summary: "resolve a sharing link",
    method: "GET",
    path: "/v1.0/shares/{shareId}/driveItem",
    application: [],
    delegated: FILES,
    source: "learn: shares-get?view=graph-rest-1.0",
    note: "the emulator serves it to a user token only: the comment probe runs as the agent user",
    callers: ["comments"],
  },
  "comments.list": {
    summary: "list a file's comments",
    method: "GET",
    path: "/beta/drives/{driveId}/items/{itemId}/comments",
    application: [],
    delegated: FILES,
    source: "learn: the beta comments pages (as shares-get)",
    note: "no reference page with a permission table was found; the row takes shares-get's delegated permissions",
    callers: ["comments"],
  },
  "comments.replies": {
    summary: "list a comment's replies",
    method: "GET",
    path: "/beta/drives/{driveId}/items/{itemId}/comments/{commentId}/replies",
    application: [],
    delegated: FILES,
    source: "learn: the beta comments pages (as shares-get)",
    note: "no reference page with a permission table was found; the row takes shares-get's delegated permissions",
    callers: ["comments"],
  },
} as const satisfies Record<string, KitOperation>;

export type OperationId = keyof typeof GRAPH_OPERATIONS;

export const OPERATION_IDS = Object.keys(GRAPH_OPERATIONS) as OperationId[];

export function operation(id: OperationId): KitOperation {
  return GRAPH_OPERATIONS[id];
}

/** The path template as a pattern: `{name}` is one segment; a segment that is a type cast is never an id. */
function templatePattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\\$ref/g, "\\$ref");
  return new RegExp(`^${escaped.replace(/\{\w+\}/g, "(?!microsoft\\.graph\\.)[^/]+")}$`);
}

/** The operation a request is, by method and path (no query); undefined for a call the table does not hold. */
export function operationOf(method: string, pathname: string): OperationId | undefined {
  return OPERATION_IDS.find((id) => GRAPH_OPERATIONS[id].method === method && templatePattern(GRAPH_OPERATIONS[id].path).test(pathname));
}

/** Whether a holder of `held` (application permissions) may make the call on every object it reaches tenant-wide. */
export function coversTenantWide(op: GraphOperation, held: readonly string[]): boolean {
  return op.application.some((p) => !op.reach?.[p] && held.includes(p));
}

/** The operations `pulumi up`, `refresh` and `destroy` make, as the provisioner. */
export const PROVISIONING_OPERATIONS: readonly OperationId[] = OPERATION_IDS.filter((id) =>
  (GRAPH_OPERATIONS[id].callers as readonly Caller[]).some((c) => c === "provider" || c === "azuread"),
);

/** The reads `agent-user doctor` and `preflight` make, as the provisioner. */
export const CHECK_OPERATIONS: readonly OperationId[] = OPERATION_IDS.filter((id) =>
  (GRAPH_OPERATIONS[id].callers as readonly Caller[]).some((c) => c === "doctor" || c === "preflight"),
);

/**
 * The least privileged application permissions covering `operations`, on
 * top of `base`: first what an operation allows only one way, then each
 * uncovered operation's least privileged permission, then any permission the
 * others already cover is dropped. Scoped permissions (owners,
 * CreateAsManager) are never chosen: the kit adopts objects an earlier run,
 * or another tool, made.
 */
export function leastPermissions(operations: readonly OperationId[], base: readonly string[] = []): string[] {
  const ops = operations.map((id) => GRAPH_OPERATIONS[id] as GraphOperation).filter((op) => op.application.length > 0);
  const chosen: string[] = [];
  const held = () => [...base, ...chosen];
  const tenantWide = (op: GraphOperation) => op.application.filter((p) => !op.reach?.[p] && !AGENT_ID_WRITE_BLOCKERS.includes(p));
  for (const op of ops) {
    const only = tenantWide(op);
    if (only.length === 1 && !held().includes(only[0]!)) chosen.push(only[0]!);
  }
  for (const op of ops) {
    if (!coversTenantWide(op, held())) chosen.push(tenantWide(op)[0]!);
  }
  for (const p of [...chosen].reverse()) {
    const without = held().filter((q) => q !== p);
    if (ops.every((op) => coversTenantWide(op, without))) chosen.splice(chosen.indexOf(p), 1);
  }
  return chosen;
}

/** The provisioner's application permissions: every call of `pulumi up`, `refresh` and `destroy`. */
export const PROVISIONER_PERMISSIONS: readonly string[] = leastPermissions(PROVISIONING_OPERATIONS);

/** The read-only permissions doctor and preflight need beyond the provisioner's. */
export const CHECK_PERMISSIONS: readonly string[] = leastPermissions(CHECK_OPERATIONS, PROVISIONER_PERMISSIONS);

/** The operations of `operations` that a holder of `held` cannot make tenant-wide, each with what would allow it. */
export function uncovered(operations: readonly OperationId[], held: readonly string[]): Array<{ id: OperationId; op: KitOperation }> {
  return operations.filter((id) => GRAPH_OPERATIONS[id].application.length > 0 && !coversTenantWide(GRAPH_OPERATIONS[id], held)).map((id) => ({ id, op: GRAPH_OPERATIONS[id] }));
}

/**
 * What a 403 on this call most likely lacks, for an error message: the
 * operation, the permission of the provisioner's set that allows it, and the
 * others the reference lists. Undefined for a call the table does not hold.
 */
export function permissionHint(method: string, pathname: string): string | undefined {
  const id = operationOf(method, pathname);
  if (!id) return undefined;
  const op: GraphOperation = GRAPH_OPERATIONS[id];
  if (op.application.length === 0) return `to ${op.summary} the agent user's delegated token needs one of ${op.delegated.join(", ")}`;
  const kit = op.application.find((p) => PROVISIONER_PERMISSIONS.includes(p) || CHECK_PERMISSIONS.includes(p));
  const others = op.application.filter((p) => p !== kit && !op.reach?.[p]);
  const blockers = op.agentIdWrite ? `; and the application must not hold ${AGENT_ID_WRITE_BLOCKERS[0]}, with which Entra ignores the Agent ID permissions` : "";
  return `to ${op.summary} the provisioner needs the application permission ${kit ?? others[0]}${others.length > 0 && kit ? ` (or one of ${others.join(", ")})` : ""}, granted with admin consent${blockers}`;
}
