/**
 * Microsoft Entra PowerShell's Agent ID, agent user and sponsor cmdlets
 * (microsoftgraph/entra-powershell at a36be7633ce26c8626d0dd78397f027102697de2),
 * in the Microsoft.Entra module (Graph v1.0) and the Microsoft.Entra.Beta one
 * (Graph beta). Each cmdlet is called with its parameters given, so none
 * prompts; the replay gives the blueprint's appId where the Graph property is
 * an appId (a principal's appId, an agent identity's agentIdentityBlueprintId).
 * Every call goes through Invoke-MgGraphRequest, which sends no OData-Version.
 */
import { POWERSHELL_JSON, type Sequence, type Step } from "./sequence";

const AT = "@a36be763";

/** A module's version, folder and cmdlet prefix. */
interface Module {
  version: "v1.0" | "beta";
  folder: string;
  prefix: string;
}

const MODULES: readonly Module[] = [
  { version: "v1.0", folder: "module/Entra/Microsoft.Entra", prefix: "Entra" },
  { version: "beta", folder: "module/EntraBeta/Microsoft.Entra.Beta", prefix: "EntraBeta" },
];

function steps(m: Module): Step[] {
  const v = m.version;
  const src = (area: string, cmdlet: string, lines: string) => `${m.folder}/${area}/${cmdlet.replace("Entra", m.prefix)}.ps1${AT}:${lines}`;
  const sponsor = "https://graph.microsoft.com/v1.0/users/{sponsorId}";
  return [
    {
      does: "New-EntraAgentIdentityBlueprint -SponsorUserIds -OwnerUserIds: check the sponsor user",
      source: src("Applications", "New-EntraAgentIdentityBlueprint", "145"),
      method: "GET",
      path: "/v1.0/users/{sponsorId}?$select=id,displayName,userPrincipalName",
      expect: { status: 200, body: { id: "{sponsorId}" }, has: ["displayName", "userPrincipalName"], reference: "learn: user-get (200 OK, the selected properties)" },
    },
    {
      does: "New-EntraAgentIdentityBlueprint: create the blueprint, the cast spelled graph.agentIdentityBlueprint",
      source: src("Applications", "New-EntraAgentIdentityBlueprint", "37, 219-256"),
      method: "POST",
      path: `/${v}/applications/graph.agentIdentityBlueprint`,
      headers: POWERSHELL_JSON,
      body: { displayName: `${m.prefix} Blueprint`, "sponsors@odata.bind": [sponsor], "owners@odata.bind": [sponsor] },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint", displayName: `${m.prefix} Blueprint` }, has: ["id", "appId"], reference: "learn: agentidentityblueprint-post (201 Created)" },
      keep: { blueprintId: "id", blueprintAppId: "appId" },
    },
    {
      does: "Add-EntraClientSecretToAgentIdentityBlueprint -AgentBlueprintId: add a 90-day secret",
      source: src("Applications", "Add-EntraClientSecretToAgentIdentityBlueprint", "38-74"),
      method: "POST",
      path: `/${v}/applications/{blueprintId}/addPassword`,
      headers: POWERSHELL_JSON,
      body: { passwordCredential: { displayName: "1st blueprint secret for dev/test. Not recommended for production use", endDateTime: "{nextYear}" } },
      expect: { status: 200, has: ["secretText", "keyId"], reference: "learn: agentidentityblueprint-addpassword (200 OK, a passwordCredential)" },
    },
    {
      does: "Add-EntraScopeToAgentIdentityBlueprint: read the blueprint's scopes",
      source: src("Applications", "Add-EntraScopeToAgentIdentityBlueprint", "87-97"),
      method: "GET",
      path: `/${v}/applications/{blueprintId}`,
      expect: { status: 200, body: { id: "{blueprintId}", "@odata.type": "#microsoft.graph.agentIdentityBlueprint" }, reference: "learn: application-get (200 OK)" },
    },
    {
      does: "Add-EntraScopeToAgentIdentityBlueprint: set the identifier URI and the scope (the tool builds the URI from the id it was given)",
      source: src("Applications", "Add-EntraScopeToAgentIdentityBlueprint", "123-159"),
      method: "PATCH",
      path: `/${v}/applications/{blueprintId}`,
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
      does: "New-EntraAgentIdentityBlueprintPrincipal -AgentBlueprintId: the principal, the cast spelled graph.agentIdentityBlueprintPrincipal",
      source: src("Applications", "New-EntraAgentIdentityBlueprintPrincipal", "42-70"),
      method: "POST",
      path: `/${v}/servicePrincipals/graph.agentIdentityBlueprintPrincipal`,
      headers: POWERSHELL_JSON,
      body: { appId: "{blueprintAppId}" },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprintPrincipal", appId: "{blueprintAppId}" }, reference: "learn: agentidentityblueprintprincipal-post (201 Created)" },
    },
    {
      does: "New-EntraAgentIDForAgentIdentityBlueprint: the agent identity, the cast in PascalCase and AgentIdentityBlueprintId in PascalCase",
      source: src("Applications", "New-EntraAgentIDForAgentIdentityBlueprint", "61, 239-293"),
      method: "POST",
      path: `/${v}/servicePrincipals/Microsoft.Graph.AgentIdentity`,
      headers: POWERSHELL_JSON,
      body: { displayName: `${m.prefix} Agent`, AgentIdentityBlueprintId: "{blueprintAppId}", "sponsors@odata.bind": [sponsor], "owners@odata.bind": [sponsor] },
      expect: {
        status: 201,
        body: { "@odata.type": "#microsoft.graph.agentIdentity", agentIdentityBlueprintId: "{blueprintAppId}", servicePrincipalType: "ServiceIdentity" },
        has: ["id"],
        reference: "learn: agentidentity-post (201 Created); concepts/traverse-the-graph (property names are not case-sensitive)",
      },
      keep: { identityId: "id" },
    },
    {
      does: "New-EntraAgentUserForAgentId: the agent user through the untyped users collection, the type in the body",
      source: src("Users", "New-EntraAgentUserForAgentId", "46, 103-135"),
      method: "POST",
      path: `/${v}/users/`,
      headers: POWERSHELL_JSON,
      body: {
        "@odata.type": "microsoft.graph.agentUser",
        displayName: `${m.prefix} Agent User`,
        userPrincipalName: `${m.prefix.toLowerCase()}agent@{domain}`,
        identityParentId: "{identityId}",
        mailNickname: `${m.prefix.toLowerCase()}agent`,
        accountEnabled: true,
      },
      expect: { status: 201, body: { "@odata.type": "#microsoft.graph.agentUser", identityParentId: "{identityId}" }, has: ["id"], reference: "learn: agentuser-post (POST /users with the agentUser type; 201 Created)" },
      keep: { userId: "id" },
    },
    {
      does: "Get-EntraAgentUser -AgentId: the agent identity's agent user",
      source: src("Users", "Get-EntraAgentUser", "51-55"),
      method: "GET",
      path: `/${v}/users/microsoft.graph.agentUser?$filter=identityParentId eq '{identityId}'`,
      expect: { status: 200, count: 1, reference: "learn: agentuser-list (200 OK, a collection)" },
    },
    {
      does: "Set-EntraUserSponsor -Type User -SponsorIds: add the sponsor in a JSON batch",
      source: src("Users", "Set-EntraUserSponsor", v === "beta" ? "54-84" : "47-84"),
      method: "POST",
      path: `/${v}/$batch`,
      headers: POWERSHELL_JSON,
      body: {
        requests: [
          {
            id: "{sponsorId}",
            method: "POST",
            url: "/users/{userId}/sponsors/$ref",
            body: { "@odata.id": sponsor },
            headers: { "Content-Type": "application/json" },
          },
        ],
      },
      expect: { status: 200, body: { responses: [{ id: "{sponsorId}", status: 204 }] }, reference: "learn: concepts/json-batching (200 OK, one response per request); agentuser-post-sponsors (204 No Content)" },
    },
    {
      does: "Get-EntraUserSponsor: the agent user's sponsors, with $select=*",
      source: src("Users", "Get-EntraUserSponsor", "53-83"),
      method: "GET",
      path: `/${v}/users/{userId}/sponsors/?$select=*`,
      expect: { status: 200, count: 1, reference: "learn: agentuser-list-sponsors (200 OK, a directoryObject collection)" },
    },
    {
      does: "Remove-EntraUserSponsor: remove the sponsor",
      source: src("Users", "Remove-EntraUserSponsor", "39-46"),
      method: "DELETE",
      path: `/${v}/users/{userId}/sponsors/{sponsorId}/$ref`,
      expect: { status: 204, reference: "learn: agentuser-delete-sponsors (204 No Content)" },
    },
    {
      does: "Get-EntraAgentIdentityBlueprint -BlueprintId: the blueprint on its typed URL, the cast before the key; the refused URI and scope are not there",
      source: src("Applications", "Get-EntraAgentIdentityBlueprint", "42-48"),
      method: "GET",
      path: `/${v}/applications/microsoft.graph.agentIdentityBlueprint/{blueprintId}`,
      expect: { status: 200, body: { id: "{blueprintId}", identifierUris: [], api: null }, reference: "learn: agentidentityblueprint-get (200 OK)" },
    },
  ];
}

export const entraPowerShell: Sequence[] = MODULES.map((m) => ({
  tool: `Entra PowerShell (${m.folder.split("/").pop()})`,
  name: `New-${m.prefix}AgentIdentityBlueprint, New-${m.prefix}AgentIDForAgentIdentityBlueprint, agent user and sponsor cmdlets`,
  // The union of the cmdlets' Connect-Entra hints: the create cmdlets', the secret's, the reads' and the sponsors'.
  scopes: [
    "AgentIdentityBlueprint.Create",
    "AgentIdentityBlueprintPrincipal.Create",
    "AgentIdentity.Create.All",
    "AgentIdentityBlueprint.UpdateAuthProperties.All",
    "AgentIdUser.ReadWrite.All",
    "AgentIdentityBlueprint.AddRemoveCreds.All",
    "Application.Read.All",
    "User.Read.All",
    "User.ReadWrite.All",
  ],
  scopesSource: `${m.folder}/Applications/New-${m.prefix}AgentIdentityBlueprint.ps1${AT}:29 and each cmdlet's 'Connect-Entra -Scopes' hint`,
  steps: steps(m),
}));
