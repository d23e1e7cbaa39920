import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { blueprintWithPrincipal, codeOf, DEFAULT_IDS, identityWithUser, startDirectory, type Directory } from "./directory-client";

const GRANTS = "/v1.0/oauth2PermissionGrants";

describe("emulated Graph: oauth2PermissionGrants and the resource lookup", () => {
  let d: Directory;
  let clock: number;
  let agent: { identityId: string; userId: string };
  beforeAll(async () => {
    d = await startDirectory();
    const { appId } = await blueprintWithPrincipal(d);
    agent = await identityWithUser(d, appId, "granted");
  });
  afterAll(() => d.close());
  beforeEach(() => {
    // A minute on, so the agent made in beforeAll is older than any lag a test sets.
    clock = Date.now() + 60_000;
    d.emulator.store.now = () => clock;
  });
  afterEach(() => {
    d.emulator.store.replicationLagMs = 0;
  });

  it("finds Microsoft Graph's service principal by appId, with $select", async () => {
    const answer = await d.call("GET", `/v1.0/servicePrincipals?$filter=appId eq '${MICROSOFT_GRAPH_APP_ID}'&$select=id,appId`, { odataVersion: false });
    expect(answer.status).toBe(200);
    expect(answer.body.value).toEqual([{ id: DEFAULT_IDS.graphPrincipalId, appId: MICROSOFT_GRAPH_APP_ID }]);
  });

  it("creates, lists, reads, changes and deletes a Principal grant; tokens see each change only after the replication lag", async () => {
    const { store } = d.emulator;
    store.replicationLagMs = 30_000;
    const seen = () => store.effectiveGrantScopes(agent.identityId, agent.userId, DEFAULT_IDS.graphPrincipalId);
    const body = { clientId: agent.identityId, consentType: "Principal", principalId: agent.userId, resourceId: DEFAULT_IDS.graphPrincipalId, scope: "User.Read" };

    const created = await d.call("POST", GRANTS, { body, odataVersion: false });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject(body);
    expect(seen()).toBeUndefined();
    clock += 30_000;
    expect(seen()).toEqual(["User.Read"]);

    const duplicate = await d.call("POST", GRANTS, { body });
    expect([duplicate.status, codeOf(duplicate)]).toEqual([409, "Request_MultipleObjectsWithSameKeyValue"]);

    // Graph documents $filter (eq) on clientId and consentType only (oAuth2PermissionGrant resource type).
    const filter = `clientId eq '${agent.identityId}' and consentType eq 'Principal'`;
    const listed = await d.call("GET", `${GRANTS}?$filter=${encodeURIComponent(filter)}`);
    expect(listed.body.value).toEqual([{ id, ...body }]);
    expect((await d.call("GET", `${GRANTS}/${id}`)).body).toMatchObject({ id, scope: "User.Read" });

    expect((await d.call("PATCH", `${GRANTS}/${id}`, { body: { scope: "User.Read Chat.Create" } })).status).toBe(204);
    expect((await d.call("GET", `${GRANTS}/${id}`)).body).toMatchObject({ scope: "User.Read Chat.Create" });
    expect(seen()).toEqual(["User.Read"]);
    clock += 30_000;
    expect(seen()).toEqual(["User.Read", "Chat.Create"]);

    expect((await d.call("DELETE", `${GRANTS}/${id}`)).status).toBe(204);
    expect(seen()).toBeUndefined();
    const gone = await d.call("GET", `${GRANTS}/${id}`);
    expect([gone.status, codeOf(gone)]).toEqual([404, "Request_ResourceNotFound"]);
    expect((await d.call("DELETE", `${GRANTS}/${id}`)).status).toBe(404);
  });

  it("takes create and update bodies that name their own type, as HashiCorp's Graph client writes them, and refuses another type", async () => {
    const typed = { "@odata.type": "#microsoft.graph.oAuth2PermissionGrant" };
    const body = { clientId: agent.identityId, consentType: "Principal", principalId: agent.userId, resourceId: DEFAULT_IDS.graphPrincipalId, scope: "User.Read" };
    expect(codeOf(await d.call("POST", GRANTS, { body: { ...body, "@odata.type": "#microsoft.graph.servicePrincipal" } }))).toBe("Request_BadRequest");
    const created = await d.call("POST", GRANTS, { body: { ...typed, ...body } });
    expect(created.status).toBe(201);
    expect((await d.call("PATCH", `${GRANTS}/${String(created.body.id)}`, { body: { ...typed, scope: "User.Read Chat.Create" } })).status).toBe(204);
    expect((await d.call("DELETE", `${GRANTS}/${String(created.body.id)}`)).status).toBe(204);
  });

  it("refuses a grant for a user that does not exist and one without the permission", async () => {
    const nobody = "5e000000-0000-4000-8000-000000000404";
    const body = { clientId: agent.identityId, consentType: "Principal", principalId: nobody, resourceId: DEFAULT_IDS.graphPrincipalId, scope: "User.Read" };
    expect((await d.call("POST", GRANTS, { body })).status).toBe(400);
    const app = d.signed({ idtyp: "app", oid: DEFAULT_IDS.provisionerPrincipalId, roles: ["AgentIdentity.Create.All"] });
    const denied = await d.call("POST", GRANTS, { body: { ...body, principalId: agent.userId }, token: app });
    expect([denied.status, codeOf(denied)]).toEqual([403, "Authorization_RequestDenied"]);
  });
});
