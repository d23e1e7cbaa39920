/**
 * The Graph routes of the two opt-in features, over real HTTP: app role
 * assignments through the resource's appRoleAssignedTo (as azuread's
 * AppRoleAssignment sends them) with the permission pair the page names,
 * and a blueprint's exposed API on its appId key, with the rules of
 * apiApplication and permissionScope.
 */
import { defaultTenant, DEFAULT_IDS } from "../../emulator/seed";
import { stableId } from "../../emulator/seed-flows";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { FEATURE_PERMISSIONS } from "../../lib/graph-permissions";
import { codeOf, startDirectory, type Directory } from "./directory-client";

let d: Directory;
beforeAll(async () => {
  d = await startDirectory({ tenant: defaultTenant() });
});
afterAll(() => d.close());

const app = (roles: readonly string[]) => d.signed({ idtyp: "app", roles: [...roles], azp: DEFAULT_IDS.provisionerAppId, oid: DEFAULT_IDS.provisionerPrincipalId });
const graphId = () => d.emulator.store.servicePrincipalByAppId(MICROSOFT_GRAPH_APP_ID)!.id;
const MAIL_READ = stableId("graph-role", "Mail.Read");

describe("app role assignments on a resource API", () => {
  const assigner = () => app(["AppRoleAssignment.ReadWrite.All", "Application.Read.All"]);
  const assign = (body: Record<string, unknown>, token = assigner()) => d.call("POST", `/v1.0/servicePrincipals/${graphId()}/appRoleAssignedTo`, { body, token, odataVersion: false });

  it("the feature adds exactly AppRoleAssignment.ReadWrite.All to the provisioner's set", () => {
    expect(FEATURE_PERMISSIONS.appRoles).toEqual(["AppRoleAssignment.ReadWrite.All"]);
  });

  it("reads the resource with its app roles, assigns one to the agent identity, reads it, lists it on the identity, and removes it", async () => {
    const sp = await d.call("GET", `/v1.0/servicePrincipals/${graphId()}`, { token: app(["Application.Read.All"]) });
    expect((sp.body.appRoles as Array<{ value: string; id: string }>).find((r) => r.value === "Mail.Read")?.id).toBe(MAIL_READ);
    const made = await assign({ principalId: DEFAULT_IDS.agentIdentityId, resourceId: graphId(), appRoleId: MAIL_READ });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ principalId: DEFAULT_IDS.agentIdentityId, principalType: "ServicePrincipal", resourceId: graphId(), appRoleId: MAIL_READ, resourceDisplayName: "Microsoft Graph" });
    const id = made.body.id as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const path = `/v1.0/servicePrincipals/${graphId()}/appRoleAssignedTo/${id}`;
    expect((await d.call("GET", path, { token: app(["Application.Read.All"]) })).body.appRoleId).toBe(MAIL_READ);
    const held = await d.call("GET", `/v1.0/servicePrincipals/${DEFAULT_IDS.agentIdentityId}/appRoleAssignments`, { token: app(["Application.Read.All"]) });
    expect((held.body.value as Array<{ appRoleId: string }>).map((a) => a.appRoleId)).toEqual([stableId("graph-role", "User.Read.All"), MAIL_READ]);
    expect((await d.call("DELETE", path, { token: app(["AppRoleAssignment.ReadWrite.All"]) })).status).toBe(204);
    expect((await d.call("GET", path, { token: app(["Application.Read.All"]) })).status).toBe(404);
  });

  it("takes a body that names its own type, as azuread's AppRoleAssignment writes it, and refuses another type", async () => {
    const body = { principalId: DEFAULT_IDS.agentIdentityId, resourceId: graphId(), appRoleId: stableId("graph-role", "Group.Read.All") };
    expect(codeOf(await assign({ "@odata.type": "#microsoft.graph.servicePrincipal", ...body }))).toBe("Request_BadRequest");
    const made = await assign({ "@odata.type": "#microsoft.graph.appRoleAssignment", ...body });
    expect(made.status).toBe(201);
    expect((await d.call("DELETE", `/v1.0/servicePrincipals/${graphId()}/appRoleAssignedTo/${String(made.body.id)}`, { token: assigner() })).status).toBe(204);
  });

  it("refuses AppRoleAssignment.ReadWrite.All without Application.Read.All beside it, as the page's pair says", async () => {
    const alone = await assign({ principalId: DEFAULT_IDS.agentIdentityId, resourceId: graphId(), appRoleId: MAIL_READ }, app(["AppRoleAssignment.ReadWrite.All"]));
    expect([alone.status, codeOf(alone)]).toEqual([403, "Authorization_RequestDenied"]);
  });

  it("refuses an unknown role, a body naming another resource, and the same assignment twice, each with Graph's 400", async () => {
    const unknown = await assign({ principalId: DEFAULT_IDS.agentIdentityId, resourceId: graphId(), appRoleId: "00000000-0000-4000-8000-000000000001" });
    expect([unknown.status, codeOf(unknown)]).toEqual([400, "Request_BadRequest"]);
    const elsewhere = await assign({ principalId: DEFAULT_IDS.agentIdentityId, resourceId: DEFAULT_IDS.tokenExchangePrincipalId, appRoleId: MAIL_READ });
    expect([elsewhere.status, codeOf(elsewhere)]).toEqual([400, "Request_BadRequest"]);
    const again = await assign({ principalId: DEFAULT_IDS.agentIdentityId, resourceId: graphId(), appRoleId: stableId("graph-role", "User.Read.All") });
    expect([again.status, codeOf(again)]).toEqual([400, "Request_BadRequest"]);
  });
});

describe("a blueprint's exposed API", () => {
  const path = `/v1.0/applications(appId='${DEFAULT_IDS.blueprintAppId}')`;
  const editor = () => app(["AgentIdentityBlueprint.UpdateAuthProperties.All"]);
  const scope = (value: string, id: string, isEnabled = true) => ({ id, value, type: "User", isEnabled, adminConsentDisplayName: value, adminConsentDescription: `Access ${value}` });
  const NEW_SCOPE = "3f0e3a8c-7b2d-4c1e-9a6f-5d4c3b2a1f00";

  it("the feature adds exactly AgentIdentityBlueprint.UpdateAuthProperties.All to the provisioner's set", () => {
    expect(FEATURE_PERMISSIONS.onBehalfOf).toEqual(["AgentIdentityBlueprint.UpdateAuthProperties.All"]);
  });

  it("adds a scope beside the enabled one and reads it back; branding's permission is not enough", async () => {
    const current = (await d.call("GET", path, { token: app(["Application.Read.All"]) })).body as { identifierUris: string[]; api: { oauth2PermissionScopes: unknown[] } };
    expect(current.identifierUris).toEqual([`api://${DEFAULT_IDS.blueprintAppId}`]);
    const body = { api: { oauth2PermissionScopes: [...current.api.oauth2PermissionScopes, scope("reports_read", NEW_SCOPE)] } };
    const branding = await d.call("PATCH", path, { body, token: app(["AgentIdentityBlueprint.UpdateBranding.All"]) });
    expect([branding.status, codeOf(branding)]).toEqual([403, "Authorization_RequestDenied"]);
    expect((await d.call("PATCH", path, { body, token: editor() })).status).toBe(204);
    const after = (await d.call("GET", path, { token: app(["Application.Read.All"]) })).body as { api: { oauth2PermissionScopes: Array<{ value: string }> } };
    expect(after.api.oauth2PermissionScopes.map((s) => s.value)).toEqual(["access_agent", "reports_read"]);
  });

  it("removes an enabled scope only once a PATCH has disabled it (CannotDeleteOrUpdateEnabledEntitlement)", async () => {
    const base = (await d.call("GET", path, { token: app(["Application.Read.All"]) })).body as { api: { oauth2PermissionScopes: Array<{ value: string }> } };
    const keep = base.api.oauth2PermissionScopes.filter((s) => s.value !== "reports_read");
    const removed = await d.call("PATCH", path, { body: { api: { oauth2PermissionScopes: keep } }, token: editor() });
    expect([removed.status, codeOf(removed)]).toEqual([400, "CannotDeleteOrUpdateEnabledEntitlement"]);
    const disabled = base.api.oauth2PermissionScopes.map((s) => (s.value === "reports_read" ? { ...s, isEnabled: false } : s));
    expect((await d.call("PATCH", path, { body: { api: { oauth2PermissionScopes: disabled } }, token: editor() })).status).toBe(204);
    expect((await d.call("PATCH", path, { body: { api: { oauth2PermissionScopes: keep } }, token: editor() })).status).toBe(204);
  });

  it.each([["acc\x1b]52;c;eA==\x07ess"], ["x\x1b[2J"], ["access agent"], ["access\\agent"], ["a".repeat(121)]])(
    "refuses a scope value outside permissionScope's character set and length, with Graph's 400 for a PermissionScope property: %j",
    async (value) => {
      const current = (await d.call("GET", path, { token: app(["Application.Read.All"]) })).body as { api: { oauth2PermissionScopes: unknown[] } };
      const body = { api: { oauth2PermissionScopes: [...current.api.oauth2PermissionScopes, scope(value, NEW_SCOPE, false)] } };
      const answer = await d.call("PATCH", path, { body, token: editor() });
      expect([answer.status, answer.body.error]).toEqual([400, expect.objectContaining({ code: "Request_BadRequest", message: "Invalid value specified for property 'value' of resource 'PermissionScope'." })]);
    },
  );

  it.each([
    ["api://{appId}", `api://${DEFAULT_IDS.blueprintAppId}`],
    ["api://{appId}/{string}", `api://${DEFAULT_IDS.blueprintAppId}/agent`],
    ["api://{tenantId}/{string}", `api://${DEFAULT_IDS.tenantId}/agent`],
    ["api://{string}/{appId}", `api://agents/${DEFAULT_IDS.blueprintAppId}`],
    ["https://{verified domain}/{string}", `https://${DEFAULT_IDS.domain}/agent`],
    ["https://{string}.{verified domain}", `https://agent.${DEFAULT_IDS.domain}`],
    ["api://{verified domain}/{string}", `api://${DEFAULT_IDS.domain}/agent`],
  ])("takes an identifier URI of a supported format: %s", async (_format, uri) => {
    expect((await d.call("PATCH", path, { body: { identifierUris: [uri] }, token: editor() })).status).toBe(204);
  });

  it.each([
    ["a name alone", "api://someone-else"],
    ["another object's id", "api://00000000-0000-4000-8000-0000000000aa"],
    ["a domain the tenant has not verified", "https://example.com/agent"],
    ["api://{verified domain} with no path", `api://${DEFAULT_IDS.domain}`],
  ])("refuses an identifier URI of no supported format: %s", async (_case, uri) => {
    const answer = await d.call("PATCH", path, { body: { identifierUris: [uri] }, token: editor() });
    expect([answer.status, codeOf(answer)]).toEqual([400, "Request_BadRequest"]);
  });

  it("refuses an identifier URI twice in one list, in another case too, as another object's is (unique without case)", async () => {
    const ours = `api://${DEFAULT_IDS.blueprintAppId}`;
    for (const uris of [[ours, ours], [ours, ours.toUpperCase()], [`https://${DEFAULT_IDS.domain}/agent`, `HTTPS://${DEFAULT_IDS.domain.toUpperCase()}/agent`]]) {
      const answer = await d.call("PATCH", path, { body: { identifierUris: uris }, token: editor() });
      expect([answer.status, answer.body.error]).toEqual([400, expect.objectContaining({ code: "Request_BadRequest", message: `Another object with the same value for property identifierUris already exists: '${uris[1]}'.` })]);
    }
  });

  it("takes api://{appId} with a verified domain's URI, and refuses a caller holding Directory.ReadWrite.All", async () => {
    const verified = await d.call("PATCH", path, { body: { identifierUris: [`api://${DEFAULT_IDS.blueprintAppId}`, `https://${DEFAULT_IDS.domain}/agent`] }, token: editor() });
    expect(verified.status).toBe(204);
    const blocked = await d.call("PATCH", path, { body: { identifierUris: [] }, token: app(["AgentIdentityBlueprint.UpdateAuthProperties.All", "Directory.ReadWrite.All"]) });
    expect([blocked.status, codeOf(blocked)]).toEqual([403, "Authorization_RequestDenied"]);
  });
});
