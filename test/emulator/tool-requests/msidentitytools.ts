/**
 * MSIdentityTools' Agent ID cmdlets (AzureAD/MSIdentityTools at
 * f5d0ca776c9ec00457e5a69b91a85c9a533227eb, src/agentid/), as
 * Invoke-MsIdAgentIdInteractive chains them, all on Graph beta. The agent
 * identity and its agent user are created as the blueprint
 * (ConnectAsAgentIdentityBlueprint); the replay gives the cmdlets the
 * blueprint's appId where the Graph property is an appId.
 */
import { POWERSHELL_JSON, type Sequence } from "./sequence";

const src = (cmdlet: string, lines: string) => `src/agentid/${cmdlet}.ps1@f5d0ca77:${lines}`;
const sponsor = "https://graph.microsoft.com/v1.0/users/{sponsorId}";

export const msIdentityTools: Sequence = {
  tool: "MSIdentityTools",
  name: "Invoke-MsIdAgentIdInteractive",
  scopes: [
    "AgentIdentityBlueprint.Create",
    "AgentIdentityBlueprintPrincipal.Create",
    "AppRoleAssignment.ReadWrite.All",
    "Application.ReadWrite.All",
    "User.ReadWrite.All",
    "AgentIdentityBlueprint.ReadWrite.All",
    "AgentIdentityBlueprint.AddRemoveCreds.All",
  ],
  scopesSource: "src/agentid/Connect-MsIdEntraAsUser.ps1@f5d0ca77:22",
  // AgentIdentity.CreateAsManager is a blueprint's own (the permission table's identity.create row); the tool grants
  // AgentIdUser.ReadWrite.IdentityParentedBy through an appRoleAssignments POST the emulator does not serve
  // (Add-MsIdPermissionToCreateAgentUsersToAgentIdentityBlueprintPrincipal.ps1:95-98), so the test's token carries it.
  blueprintRoles: ["AgentIdentity.CreateAsManager", "AgentIdUser.ReadWrite.IdentityParentedBy"],
  steps: [
    {
      does: "New-MsIdAgentIdentityBlueprint: the blueprint, the cast spelled graph.agentIdentityBlueprint",
      source: src("New-MsIdAgentIdentityBlueprint", "62-99"),
      method: "POST",
      path: "/beta/applications/graph.agentIdentityBlueprint",
      headers: POWERSHELL_JSON,
      body: { displayName: "MsId Blueprint", "sponsors@odata.bind": [sponsor], "owners@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint" }, has: ["id", "appId"], reference: "learn: agentidentityblueprint-post?view=graph-rest-beta (201 Created)" },
      keep: { blueprintId: "id", blueprintAppId: "appId" },
    },
    {
      does: "Add-MsIdClientSecretToAgentIdentityBlueprint: a 90-day secret",
      source: src("Add-MsIdClientSecretToAgentIdentityBlueprint", "43-64"),
      method: "POST",
      path: "/v1.0/applications/{blueprintId}/addPassword",
      headers: POWERSHELL_JSON,
      body: { passwordCredential: { displayName: "1st blueprint secret for dev/test. Not recommended for production use", endDateTime: "{nextYear}" } },
      expect: { status: 200, has: ["secretText"], reference: "learn: agentidentityblueprint-addpassword (200 OK)" },
    },
    {
      does: "Add-MsIdScopeToAgentIdentityBlueprint: identifier URI and scope on the base-type URL (the tool builds the URI from the id it was given)",
      source: src("Add-MsIdScopeToAgentIdentityBlueprint", "104-130"),
      method: "PATCH",
      path: "/beta/applications/{blueprintId}",
      headers: POWERSHELL_JSON,
      body: {
        identifierUris: ["api://{blueprintId}"],
        api: {
          oauth2PermissionScopes: [
            {
              adminConsentDescription: "Allow the agent to act on behalf of the signed-in user",
              adminConsentDisplayName: "Access agent on behalf of user",
              id: "{newGuid}",
              isEnabled: true,
              type: "User",
              value: "access_agent_as_user",
            },
          ],
        },
      },
      // The tool builds the URI from the object id it was given, which no format of Entra's identifier URI restrictions
      // takes (entra identity-platform/identifier-uri-restrictions: api://{appId}, api://{tenantId}/..., a verified domain):
      // the emulator's strict reading refuses it, and the blueprint keeps no URI and no scope.
      expect: { status: 400, reference: "learn: entra/identity-platform/identifier-uri-restrictions (the supported formats); application-update (400 for a refused value)" },
    },
    {
      does: "New-MsIdAgentIdentityBlueprintPrincipal: the principal, the collection in lower case",
      source: src("New-MsIdAgentIdentityBlueprintPrincipal", "53-66"),
      method: "POST",
      path: "/beta/serviceprincipals/graph.agentIdentityBlueprintPrincipal",
      headers: POWERSHELL_JSON,
      body: { appId: "{blueprintAppId}" },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprintPrincipal" }, has: ["id"], reference: "learn: agentidentityblueprintprincipal-post?view=graph-rest-beta (201 Created)" },
      keep: { principalId: "id" },
    },
    {
      does: "New-MsIdAgentIDForAgentIdentityBlueprint, as the blueprint: the agent identity, PascalCase cast and property",
      source: src("New-MsIdAgentIDForAgentIdentityBlueprint", "67-112"),
      method: "POST",
      path: "/beta/serviceprincipals/Microsoft.Graph.AgentIdentity",
      headers: POWERSHELL_JSON,
      as: "blueprint",
      body: { displayName: "MsId Agent", AgentIdentityBlueprintId: "{blueprintAppId}", "sponsors@odata.bind": [sponsor], "owners@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentity", agentIdentityBlueprintId: "{blueprintAppId}" }, has: ["id"], reference: "learn: agentidentity-post?view=graph-rest-beta (201 Created)" },
      keep: { identityId: "id" },
    },
    {
      does: "New-MsIdAgentIDUserForAgentId, as the blueprint: the agent user through the untyped users collection",
      source: src("New-MsIdAgentIDUserForAgentId", "63-87"),
      method: "POST",
      path: "/beta/users/",
      headers: POWERSHELL_JSON,
      as: "blueprint",
      body: {
        "@odata.type": "microsoft.graph.agentUser",
        displayName: "MsId Agent User",
        userPrincipalName: "msidagent@{domain}",
        identityParentId: "{identityId}",
        mailNickname: "msidagent",
        accountEnabled: true,
      },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentUser", identityParentId: "{identityId}" }, reference: "learn: agentuser-post?view=graph-rest-beta (201 Created)" },
    },
    {
      does: "Get-MsIdAgentIdentity, in the Graph session the cmdlets before it left connected (the blueprint's): the agent identity on its typed URL, the cast before the key",
      source: src("Get-MsIdAgentIdentity", "38-42"),
      method: "GET",
      as: "blueprint",
      path: "/beta/servicePrincipals/microsoft.graph.agentIdentity/{identityId}",
      expect: { status: 200, body: { id: "{identityId}", agentIdentityBlueprintId: "{blueprintAppId}" }, reference: "learn: agentidentity-get?view=graph-rest-beta (200 OK)" },
    },
  ],
};
