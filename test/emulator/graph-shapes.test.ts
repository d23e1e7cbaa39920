/**
 * Shapes and permissions of the emulated Graph as Microsoft's reference
 * documents them, probed over HTTP: the old six permissions cannot list
 * blueprints or agent identities while the kit's set can; Directory.ReadWrite.All
 * is refused an Agent ID create; create bodies may name their own type; an
 * agentUser PATCH must name it and answers with the object; `/users/{id}`
 * without `$select` keeps to user-get's default property set.
 */
import { PROVISIONER_PERMISSIONS } from "../../lib/graph-permissions";
import { codeOf, DEFAULT_IDS, identityWithUser, blueprintWithPrincipal, messageOf, sponsorBind, startDirectory, type Directory } from "./directory-client";

const OLD_SIX = [
  "AgentIdentityBlueprint.Create",
  "AgentIdentityBlueprintPrincipal.Create",
  "AgentIdentity.Create.All",
  "AgentIdUser.ReadWrite.All",
  "DelegatedPermissionGrant.ReadWrite.All",
  "Application.ReadWrite.OwnedBy",
];
const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
const IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";

describe("the emulated Graph, as the reference documents it", () => {
  let d: Directory;
  const app = (roles: readonly string[]) => d.signed({ idtyp: "app", roles: [...roles], azp: DEFAULT_IDS.provisionerAppId, oid: DEFAULT_IDS.provisionerPrincipalId });
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(() => d.close());

  it("refuses the old six permissions a list of blueprints or agent identities; the kit's set may", async () => {
    for (const path of [BLUEPRINTS, IDENTITIES]) {
      const old = await d.call("GET", path, { token: app(OLD_SIX) });
      expect([path, old.status, codeOf(old)]).toEqual([path, 403, "Authorization_RequestDenied"]);
      expect([path, (await d.call("GET", path, { token: app(PROVISIONER_PERMISSIONS) })).status]).toEqual([path, 200]);
    }
  });

  it("refuses an Agent ID create to an application holding Directory.ReadWrite.All, whatever else it holds", async () => {
    const answer = await d.call("POST", BLUEPRINTS, {
      token: app([...PROVISIONER_PERMISSIONS, "Directory.ReadWrite.All"]),
      body: { displayName: "Blocked", "sponsors@odata.bind": sponsorBind(d) },
    });
    expect([answer.status, codeOf(answer)]).toEqual([403, "Authorization_RequestDenied"]);
    expect(messageOf(answer)).toContain("Directory.ReadWrite.All");
  });

  it("takes @odata.type in a create body when it names the URL's type, and refuses another type", async () => {
    const made = await d.call("POST", BLUEPRINTS, {
      body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprint", displayName: "Typed", "sponsors@odata.bind": sponsorBind(d) },
    });
    expect(made.status).toBe(201);
    const principal = await d.call("POST", "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal", {
      body: { "@odata.type": "#microsoft.graph.agentIdentityBlueprintPrincipal", appId: made.body.appId },
    });
    expect(principal.status).toBe(201);
    const identity = await d.call("POST", IDENTITIES, {
      body: { "@odata.type": "#microsoft.graph.agentIdentity", displayName: "Typed", agentIdentityBlueprintId: made.body.appId, "sponsors@odata.bind": sponsorBind(d) },
    });
    expect(identity.status).toBe(201);
    const wrong = await d.call("POST", IDENTITIES, {
      body: { "@odata.type": "#microsoft.graph.servicePrincipal", displayName: "Wrong", agentIdentityBlueprintId: made.body.appId, "sponsors@odata.bind": sponsorBind(d) },
    });
    expect([wrong.status, codeOf(wrong)]).toEqual([400, "Request_BadRequest"]);
  });

  it("an agentUser PATCH must carry @odata.type, and answers 200 with the updated object", async () => {
    const { appId } = await blueprintWithPrincipal(d, "Patch");
    const { userId } = await identityWithUser(d, appId, "patched");
    const path = `/v1.0/users/microsoft.graph.agentUser/${userId}`;
    const untyped = await d.call("PATCH", path, { body: { displayName: "No type" } });
    expect([untyped.status, codeOf(untyped)]).toEqual([400, "Request_BadRequest"]);
    const typed = await d.call("PATCH", path, { body: { "@odata.type": "#microsoft.graph.agentUser", displayName: "Renamed" } });
    expect(typed.status).toBe(200);
    expect(typed.body).toMatchObject({ id: userId, displayName: "Renamed" });
  });

  it("GET /users/{id} without $select has user-get's default set: no accountEnabled, createdDateTime or identityParentId", async () => {
    const { appId } = await blueprintWithPrincipal(d, "Defaults");
    const { userId } = await identityWithUser(d, appId, "defaults");
    for (const id of [userId, DEFAULT_IDS.sponsorId]) {
      const plain = await d.call("GET", `/v1.0/users/${id}`, { odataVersion: false });
      expect(plain.status).toBe(200);
      expect(Object.keys(plain.body).filter((k) => ["accountEnabled", "createdDateTime", "identityParentId"].includes(k))).toEqual([]);
      const selected = await d.call("GET", `/v1.0/users/${id}?$select=id,accountEnabled`, { odataVersion: false });
      expect(selected.body.accountEnabled).toBe(true);
    }
  });
});
