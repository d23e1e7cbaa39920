/**
 * The REST examples of Microsoft's pages: the Entra Agent ID how-to's
 * (MicrosoftDocs/entra-docs, docs/agent-id/) and the Graph API reference's
 * (microsoftgraph/microsoft-graph-docs-contrib, api-reference/v1.0/api/).
 * The how-to's `<agent-blueprint-id>` in an `/applications/{id}` URL is
 * replayed as the object id: the page says to put the appId there, but
 * application-get keys `/applications/{id}` by object id.
 */
import { POWERSHELL_JSON, type Sequence } from "./sequence";

const HOWTO = "MicrosoftDocs/entra-docs docs/agent-id/create-blueprint.md@05016b20";
const IDENTITIES = "MicrosoftDocs/entra-docs docs/agent-id/create-delete-agent-identities.md@02decfd8";
const API = (page: string, commit: string) => `microsoftgraph/microsoft-graph-docs-contrib api-reference/v1.0/api/${page}.md@${commit}`;
const ODATA = { "OData-Version": "4.0", "Content-Type": "application/json" } as const;
const sponsor = "https://graph.microsoft.com/v1.0/users/{sponsorId}";

export const entraHowTo: Sequence = {
  tool: "Entra Agent ID how-to",
  name: "Create an agent identity blueprint, then agent identities",
  scopes: ["AgentIdentityBlueprint.Create", "AgentIdentityBlueprint.AddRemoveCreds.All", "AgentIdentityBlueprint.UpdateAuthProperties.All", "AgentIdentityBlueprintPrincipal.Create", "User.Read", "AgentIdentityBlueprint.DeleteRestore.All"],
  scopesSource: `${HOWTO} (Authorize a client to create agent identity blueprints; Delete an agent identity blueprint: "you need the permission AgentIdentityBlueprint.DeleteRestore.All")`,
  blueprintRoles: ["AgentIdentity.CreateAsManager"],
  steps: [
    {
      does: "create the blueprint: the untyped collection, OData-Version: 4.0 and the type in PascalCase",
      source: `${HOWTO} (Create programmatically, Microsoft Graph API tab)`,
      method: "POST",
      path: "/v1.0/applications/",
      headers: ODATA,
      body: { "@odata.type": "Microsoft.Graph.AgentIdentityBlueprint", displayName: "My Agent Identity Blueprint", "sponsors@odata.bind": [sponsor], "owners@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint", displayName: "My Agent Identity Blueprint" }, has: ["id", "appId"], reference: "learn: agentidentityblueprint-post (201 Created)" },
      keep: { blueprintId: "id", blueprintAppId: "appId" },
    },
    {
      does: "create a second blueprint as the PowerShell tab does: the typed URL, the type in PascalCase in the body, no OData-Version",
      source: `${HOWTO} (Create programmatically, Microsoft Graph PowerShell tab)`,
      method: "POST",
      path: "/v1.0/applications/microsoft.graph.agentIdentityBlueprint",
      headers: POWERSHELL_JSON,
      body: { "@odata.type": "Microsoft.Graph.AgentIdentityBlueprint", displayName: "My Agent Identity Blueprint (PowerShell)", "sponsors@odata.bind": [sponsor], "owners@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint" }, reference: "learn: agentidentityblueprint-post (201 Created; the page's request carries no OData-Version)" },
    },
    {
      does: "add a managed identity as a federated credential",
      source: `${HOWTO} (Configure credentials for the agent identity blueprint)`,
      method: "POST",
      path: "/v1.0/applications/{blueprintId}/federatedIdentityCredentials",
      headers: ODATA,
      body: { name: "my-managed-identity", issuer: "https://login.microsoftonline.com/{tenantId}/v2.0", subject: "{newGuid}", audiences: ["api://AzureADTokenExchange"] },
      expect: { status: 201, body: { name: "my-managed-identity" }, reference: "learn: federatedidentitycredential-post (201 Created)" },
    },
    {
      does: "add a client secret",
      source: `${HOWTO} (Other app credentials)`,
      method: "POST",
      path: "/v1.0/applications/{blueprintId}/addPassword",
      headers: { "Content-Type": "application/json" },
      body: { passwordCredential: { displayName: "My Secret", endDateTime: "{nextYear}" } },
      expect: { status: 200, body: { displayName: "My Secret" }, has: ["secretText"], reference: "learn: agentidentityblueprint-addpassword (200 OK)" },
    },
    {
      does: "configure the identifier URI and the scope",
      source: `${HOWTO} (Configure identifier URI and scope)`,
      method: "PATCH",
      path: "/v1.0/applications/{blueprintId}",
      headers: ODATA,
      body: {
        identifierUris: ["api://{blueprintAppId}"],
        api: {
          oauth2PermissionScopes: [
            {
              adminConsentDescription: "Allow the application to access the agent on behalf of the signed-in user.",
              adminConsentDisplayName: "Access agent",
              id: "{newGuid}",
              isEnabled: true,
              type: "User",
              value: "access_agent",
            },
          ],
        },
      },
      expect: { status: 204, reference: `${HOWTO} ("A successful call generates a 204 response.")` },
    },
    {
      does: "create the blueprint principal, the collection in lower case",
      source: `${HOWTO} (Create an agent blueprint principal)`,
      method: "POST",
      path: "/v1.0/serviceprincipals/microsoft.graph.agentIdentityBlueprintPrincipal",
      headers: ODATA,
      body: { appId: "{blueprintAppId}" },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprintPrincipal", appId: "{blueprintAppId}" }, has: ["id"], reference: "learn: agentidentityblueprintprincipal-post (201 Created)" },
      keep: { principalId: "id" },
    },
    {
      does: "as the blueprint, create an agent identity: beta, lower-case collection, PascalCase cast",
      source: `${IDENTITIES} (Create an agent identity)`,
      method: "POST",
      path: "/beta/serviceprincipals/Microsoft.Graph.AgentIdentity",
      headers: ODATA,
      as: "blueprint",
      body: { displayName: "My Agent Identity", agentIdentityBlueprintId: "{blueprintAppId}", "sponsors@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentity", agentIdentityBlueprintId: "{blueprintAppId}" }, has: ["id"], reference: "learn: agentidentity-post (201 Created)" },
      keep: { identityId: "id" },
    },
    {
      does: "as the blueprint, create one as the page's Microsoft.Identity.Web class names its type: '#Microsoft.Graph.AgentIdentity'",
      source: `${IDENTITIES} (Create an agent identity, Microsoft.Identity.Web tab: the AgentIdentity class)`,
      method: "POST",
      path: "/beta/serviceprincipals/Microsoft.Graph.AgentIdentity",
      headers: { "Content-Type": "application/json" },
      as: "blueprint",
      body: { "@odata.type": "#Microsoft.Graph.AgentIdentity", displayName: "My agent identity", agentIdentityBlueprintId: "{blueprintAppId}", "sponsors@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentity" }, reference: "learn: agentidentity-post (201 Created)" },
    },
    {
      does: "delete the blueprint the PowerShell tab's way, the cast before the key",
      source: `${HOWTO} (Delete an agent identity blueprint, Microsoft Graph PowerShell tab)`,
      method: "DELETE",
      path: "/v1.0/applications/microsoft.graph.agentIdentityBlueprint/{blueprintId}",
      expect: { status: 204, reference: "learn: agentidentityblueprint-delete (204 No Content)" },
    },
  ],
};

export const graphReference: Sequence = {
  tool: "Graph API reference",
  name: "the agentIdentityBlueprint, agentIdentityBlueprintPrincipal, agentIdentity and agentUser pages' examples",
  scopes: [
    "AgentIdentityBlueprint.ReadWrite.All",
    "AgentIdentityBlueprintPrincipal.ReadWrite.All",
    "AgentIdentity.ReadWrite.All",
    "AgentIdentity.Create.All",
    "AgentIdUser.ReadWrite.All",
    "Application.Read.All",
  ],
  scopesSource: "each page's permission table (emulator/graph/README.md lists them per call)",
  steps: [
    {
      does: "create a blueprint with the inherited description and signInAudience, and a property the page does not document (the type is open)",
      source: `${API("agentidentityblueprint-post", "1dabb958")}; api-reference/v1.0/resources/agentidentityblueprint.md@282406a4 (properties; open type)`,
      method: "POST",
      path: "/v1.0/applications/microsoft.graph.agentIdentityBlueprint",
      headers: { "Content-Type": "application/json" },
      body: { displayName: "Display name", description: "Books meetings", signInAudience: "AzureADMultipleOrgs", tags: ["sales"], contosoCostCenter: "4711", "sponsors@odata.bind": [sponsor] },
      expect: { status: 201, body: { displayName: "Display name", description: "Books meetings", signInAudience: "AzureADMultipleOrgs", contosoCostCenter: "4711" }, has: ["id", "appId"], reference: "learn: agentidentityblueprint-post (201 Created)" },
      keep: { blueprintId: "id", blueprintAppId: "appId" },
    },
    {
      does: "read it back on its typed URL",
      source: API("agentidentityblueprint-get", "6fb5de8b"),
      method: "GET",
      path: "/v1.0/applications/{blueprintId}/microsoft.graph.agentIdentityBlueprint",
      expect: { status: 200, body: { description: "Books meetings", signInAudience: "AzureADMultipleOrgs", tags: ["sales"], contosoCostCenter: "4711" }, reference: "learn: agentidentityblueprint-get (200 OK)" },
    },
    {
      does: "change its description",
      source: API("agentidentityblueprint-update", "0f04ee02"),
      method: "PATCH",
      path: "/v1.0/applications/{blueprintId}/microsoft.graph.agentIdentityBlueprint",
      headers: { "Content-Type": "application/json" },
      body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint", description: "Books and moves meetings" },
      expect: { status: 204, reference: "learn: agentidentityblueprint-update (204 No Content)" },
    },
    {
      does: "list blueprints on beta by appId",
      source: API("agentidentityblueprint-list", "698c7b78"),
      method: "GET",
      path: "/beta/applications/microsoft.graph.agentIdentityBlueprint?$filter=appId eq '{blueprintAppId}'",
      expect: { status: 200, count: 1, reference: "learn: agentidentityblueprint-list?view=graph-rest-beta (200 OK)" },
    },
    {
      does: "create the blueprint principal",
      source: API("agentidentityblueprintprincipal-post", "b5fa2723"),
      method: "POST",
      path: "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal",
      headers: { "Content-Type": "application/json" },
      body: { appId: "{blueprintAppId}" },
      expect: { status: 201, body: { appId: "{blueprintAppId}" }, reference: "learn: agentidentityblueprintprincipal-post (201 Created)" },
    },
    {
      does: "create an agent identity with a user and a group sponsor",
      source: API("agentidentity-post", "47c8d514"),
      method: "POST",
      path: "/v1.0/servicePrincipals/microsoft.graph.agentIdentity",
      headers: { "Content-Type": "application/json" },
      body: { displayName: "My Agent Identity", agentIdentityBlueprintId: "{blueprintAppId}", "sponsors@odata.bind": [sponsor, "https://graph.microsoft.com/v1.0/groups/{sponsorGroupId}"] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentity", servicePrincipalType: "ServiceIdentity", agentIdentityBlueprintId: "{blueprintAppId}" }, has: ["id"], reference: "learn: agentidentity-post (201 Created)" },
      keep: { identityId: "id" },
    },
    {
      does: "create its agent user on the typed URL",
      source: API("agentuser-post", "55f7cfe8"),
      method: "POST",
      path: "/v1.0/users/microsoft.graph.agentUser",
      headers: { "Content-Type": "application/json" },
      body: { accountEnabled: true, displayName: "Sales Agent", mailNickname: "SalesAgent", userPrincipalName: "salesagent@{domain}", identityParentId: "{identityId}" },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentUser", identityParentId: "{identityId}", userPrincipalName: "salesagent@{domain}" }, reference: "learn: agentuser-post (201 Created)" },
    },
  ],
};
