/**
 * `a365 setup blueprint` of the Agent 365 CLI (microsoft/Agent365-devTools at
 * f2a22b04e9884bbefa5afeeb0a2fac24c9974474): the blueprint, its identifier
 * URI, its principal, a client secret and a federated credential. Paths are
 * under src/Microsoft.Agents.A365.DevTools.Cli/.
 */
import type { Sequence } from "./sequence";

const AT = "@f2a22b04";
const BLUEPRINT = `Commands/SetupSubcommands/BlueprintSubcommand.cs${AT}`;
const FIC = `Services/FederatedCredentialService.cs${AT}`;

/** HttpClientFactory.CreateAuthenticatedClient's headers, plus the two the blueprint client adds (BlueprintSubcommand.cs:820-821). */
const BLUEPRINT_CLIENT = {
  Accept: "application/json",
  "User-Agent": "Agent365CLI/1.0.0",
  "x-ms-correlation-id": "{newGuid}",
  "client-request-id": "{newGuid}",
  ConsistencyLevel: "eventual",
  "OData-Version": "4.0",
} as const;

export const agent365Cli: Sequence = {
  tool: "Agent 365 CLI",
  name: "a365 setup blueprint",
  // The custom client app's required delegated permissions, and the principal create's own scope (see the principal step).
  scopes: [
    "Application.ReadWrite.All",
    "AgentIdentityBlueprint.ReadWrite.All",
    "AgentIdentityBlueprint.UpdateAuthProperties.All",
    "DelegatedPermissionGrant.ReadWrite.All",
    "Directory.Read.All",
    "AgentIdentityBlueprintPrincipal.Create",
  ],
  scopesSource: `Constants/AuthenticationConstants.cs${AT}:97-104 (RequiredClientAppPermissions)`,
  steps: [
    {
      does: "read the signed-in user, the blueprint's sponsor and owner (Graph SDK Me.GetAsync)",
      source: `${BLUEPRINT}:775`,
      method: "GET",
      path: "/v1.0/me",
      expect: { status: 200, body: { id: "{sponsorId}" }, reference: "learn: user-get (Signed-in user request, 200 OK)" },
      keep: { me: "id" },
    },
    {
      does: "create the blueprint through the untyped collection, the type in the body",
      source: `${BLUEPRINT}:789-836`,
      method: "POST",
      path: "/beta/applications",
      headers: { ...BLUEPRINT_CLIENT, "Content-Type": "application/json; charset=utf-8" },
      body: {
        "@odata.type": "Microsoft.Graph.AgentIdentityBlueprint",
        displayName: "A365 Blueprint",
        signInAudience: "AzureADMultipleOrgs",
        "sponsors@odata.bind": ["https://graph.microsoft.com/v1.0/users/{me}"],
        "owners@odata.bind": ["https://graph.microsoft.com/v1.0/users/{me}"],
      },
      expect: {
        status: 201,
        body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint", displayName: "A365 Blueprint", signInAudience: "AzureADMultipleOrgs" },
        has: ["id", "appId"],
        reference: "learn: entra/agent-id/create-blueprint (POST /applications/ with OData-Version: 4.0); agentidentityblueprint-post (201 Created, an agentIdentityBlueprint)",
      },
      keep: { blueprintId: "id", blueprintAppId: "appId" },
    },
    {
      does: "wait until the application is readable",
      source: `${BLUEPRINT}:885`,
      method: "GET",
      path: "/v1.0/applications/{blueprintId}",
      headers: BLUEPRINT_CLIENT,
      expect: { status: 200, body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint", id: "{blueprintId}", appId: "{blueprintAppId}" }, reference: "learn: application-get (200 OK; a derived type names itself)" },
    },
    {
      does: "set the identifier URI",
      source: `${BLUEPRINT}:902-912`,
      method: "PATCH",
      path: "/v1.0/applications/{blueprintId}",
      headers: { ...BLUEPRINT_CLIENT, "Content-Type": "application/json; charset=utf-8" },
      body: { identifierUris: ["api://{blueprintAppId}"] },
      expect: { status: 204, reference: "learn: application-update (204 No Content)" },
    },
    {
      does: "create the blueprint's service principal through the untyped collection, no type in the body",
      source: `${BLUEPRINT}:927-937`,
      method: "POST",
      path: "/v1.0/servicePrincipals",
      headers: { ...BLUEPRINT_CLIENT, "Content-Type": "application/json; charset=utf-8" },
      body: { appId: "{blueprintAppId}" },
      expect: {
        status: 201,
        body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprintPrincipal", appId: "{blueprintAppId}" },
        has: ["id"],
        reference: "no page documents this form's answer: emulator/graph/README.md, 'Untyped creates', says what the emulator chose",
      },
      keep: { principalId: "id" },
    },
    {
      does: "wait until the principal is listed",
      source: `${BLUEPRINT}:961`,
      method: "GET",
      path: "/v1.0/servicePrincipals?$filter=appId eq '{blueprintAppId}'",
      headers: BLUEPRINT_CLIENT,
      expect: { status: 200, count: 1, reference: "learn: serviceprincipal-list (200 OK, a collection)" },
    },
    {
      does: "run again, find the blueprint by its object id on beta (BlueprintLookupService): the identifier URI is set",
      source: `Services/BlueprintLookupService.cs${AT}:41-53`,
      method: "GET",
      path: "/beta/applications/{blueprintId}",
      expect: { status: 200, body: { identifierUris: ["api://{blueprintAppId}"], signInAudience: "AzureADMultipleOrgs" }, reference: "learn: application-get?view=graph-rest-beta (200 OK)" },
    },
    {
      does: "create the client secret",
      source: `${BLUEPRINT}:1457-1470`,
      method: "POST",
      path: "/v1.0/applications/{blueprintId}/addPassword",
      headers: { Accept: "application/json", "Content-Type": "application/json; charset=utf-8" },
      body: { passwordCredential: { displayName: "Agent 365 CLI Generated Secret", endDateTime: "{nextYear}" } },
      expect: { status: 200, body: { displayName: "Agent 365 CLI Generated Secret" }, has: ["secretText", "keyId", "hint"], reference: "learn: agentidentityblueprint-addpassword (200 OK, a passwordCredential)" },
    },
    {
      does: "look for the federated credential on the standard endpoint",
      source: `${FIC}:51-54`,
      method: "GET",
      path: "/beta/applications/{blueprintId}/federatedIdentityCredentials",
      expect: { status: 200, count: 0, reference: "learn: federatedidentitycredential-list (200 OK, a collection)" },
    },
    {
      does: "the standard endpoint listed none: look again on the blueprint's typed endpoint, the cast before the key",
      source: `${FIC}:63-68`,
      method: "GET",
      path: "/beta/applications/microsoft.graph.agentIdentityBlueprint/{blueprintId}/federatedIdentityCredentials",
      expect: { status: 200, count: 0, reference: "learn: federatedidentitycredential-list (200 OK, a collection)" },
    },
    {
      does: "create the managed identity's federated credential",
      source: `${FIC}:240-262`,
      method: "POST",
      path: "/beta/applications/{blueprintId}/federatedIdentityCredentials",
      headers: { "Content-Type": "application/json; charset=utf-8" },
      body: { name: "a365-msi", issuer: "https://login.microsoftonline.com/{tenantId}/v2.0", subject: "{newGuid}", audiences: ["api://AzureADTokenExchange"] },
      expect: { status: 201, body: { name: "a365-msi", audiences: ["api://AzureADTokenExchange"] }, has: ["id", "subject"], reference: "learn: federatedidentitycredential-post (201 Created)" },
    },
    {
      does: "find it again on the blueprint's typed endpoint",
      source: `${FIC}:63-68`,
      method: "GET",
      path: "/beta/applications/microsoft.graph.agentIdentityBlueprint/{blueprintId}/federatedIdentityCredentials",
      expect: { status: 200, count: 1, reference: "learn: federatedidentitycredential-list (200 OK, a collection)" },
    },
  ],
};
