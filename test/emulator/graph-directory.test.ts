import { blueprintWithPrincipal, codeOf, DEFAULT_IDS, identityWithUser, messageOf, sponsorBind, startDirectory, type Directory } from "./directory-client";

const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
const IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";
const blueprintPath = (id: string) => `/v1.0/applications/${id}/microsoft.graph.agentIdentityBlueprint`;

describe("emulated Graph: the Agent ID directory rules", () => {
  let d: Directory;
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(() => d.close());
  afterEach(() => {
    d.emulator.store.replicationLagMs = 0;
  });

  const blueprintBody = (displayName: string) => ({ displayName, "sponsors@odata.bind": sponsorBind(d) });
  const blueprintCount = () => d.emulator.store.applications("agentIdentityBlueprint").length;

  it("refuses a typed POST without OData-Version: 4.0, naming the header, and creates nothing", async () => {
    const before = blueprintCount();
    const answer = await d.call("POST", BLUEPRINTS, { body: blueprintBody("No header"), odataVersion: false });
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toMatch(/^\[emulator rule\] POST \/v1\.0\/applications\/microsoft\.graph\.agentIdentityBlueprint needs the header OData-Version: 4\.0/);
    expect(blueprintCount()).toBe(before);
  });

  it("refuses any token carrying Directory.AccessAsUser.All on Agent ID writes, even with the right scope beside it", async () => {
    const user = (scp: string) => d.signed({ idtyp: "user", oid: DEFAULT_IDS.sponsorId, scp });
    const cli = await d.call("POST", BLUEPRINTS, { body: blueprintBody("From the CLI"), token: user("Directory.AccessAsUser.All AgentIdentityBlueprint.Create") });
    expect(cli.status).toBe(403);
    expect(codeOf(cli)).toBe("Authorization_RequestDenied");
    expect(messageOf(cli)).toContain("Directory.AccessAsUser.All");
    expect((await d.call("POST", BLUEPRINTS, { body: blueprintBody("Delegated"), token: user("AgentIdentityBlueprint.Create") })).status).toBe(201);
  });

  it("checks the bearer token before anything else: 401 InvalidAuthenticationToken for a forged or missing one", async () => {
    const forged = await d.call("GET", BLUEPRINTS, { token: `${d.token.slice(0, -4)}AAAA` });
    expect([forged.status, codeOf(forged)]).toEqual([401, "InvalidAuthenticationToken"]);
    expect((await d.call("GET", BLUEPRINTS, { token: "" })).status).toBe(401);
  });

  it("needs at least one sponsor on a blueprint and on an agent identity", async () => {
    const blueprint = await d.call("POST", BLUEPRINTS, { body: { displayName: "No sponsor" } });
    expect([blueprint.status, codeOf(blueprint)]).toEqual([400, "Request_BadRequest"]);
    expect(messageOf(blueprint)).toContain("at least one sponsor");
    const { appId } = await blueprintWithPrincipal(d);
    const identity = await d.call("POST", IDENTITIES, { body: { displayName: "No sponsor", agentIdentityBlueprintId: appId, "sponsors@odata.bind": [] } });
    expect([identity.status, codeOf(identity)]).toEqual([400, "Request_BadRequest"]);
  });

  it("keeps the last sponsor: removing it is a 400 until another is added; adding one already there is a 400", async () => {
    const { id } = await blueprintWithPrincipal(d);
    const ref = (sponsor: string) => ({ body: { "@odata.id": `${d.emulator.httpUrl}/v1.0/directoryObjects/${sponsor}` } });
    const remove = (sponsor: string) => d.call("DELETE", `${blueprintPath(id)}/sponsors/${sponsor}/$ref`);
    expect((await remove(DEFAULT_IDS.sponsorId)).status).toBe(400);
    const again = await d.call("POST", `${blueprintPath(id)}/sponsors/$ref`, ref(DEFAULT_IDS.sponsorId));
    expect([again.status, codeOf(again)]).toEqual([400, "Request_BadRequest"]);

    const other = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e";
    const grace = { displayName: "Grace", userPrincipalName: `grace@${DEFAULT_IDS.domain}`, mailNickname: "grace", accountEnabled: true, createdAt: 0 };
    d.emulator.store.createUser({ id: other, kind: "user", ...grace });
    expect((await d.call("POST", `${blueprintPath(id)}/sponsors/$ref`, ref(other))).status).toBe(204);
    expect((await remove(DEFAULT_IDS.sponsorId)).status).toBe(204);
    expect((await d.call("GET", `${blueprintPath(id)}/sponsors?$select=id`)).body.value).toEqual([{ "@odata.type": "#microsoft.graph.user", id: other }]);
  });

  it("hides a new object from reads by id for the replication lag, while lists already show it", async () => {
    d.emulator.store.replicationLagMs = 60_000;
    const created = await d.call("POST", BLUEPRINTS, { body: blueprintBody("Lagging") });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const read = await d.call("GET", blueprintPath(id));
    expect([read.status, codeOf(read)]).toEqual([404, "Request_ResourceNotFound"]);
    const principal = await d.call("POST", "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal", { body: { appId: created.body.appId } });
    expect([principal.status, codeOf(principal)]).toEqual([404, "Request_ResourceNotFound"]);
    const listed = await d.call("GET", `${BLUEPRINTS}?$filter=displayName eq 'Lagging'&$select=id`);
    expect(listed.body.value).toEqual([{ id }]);
    d.emulator.store.replicationLagMs = 0;
    expect((await d.call("GET", blueprintPath(id))).status).toBe(200);
  });

  it("answers 400 for an agent identity whose blueprint has no principal, and for a second agent user of one identity", async () => {
    const bare = await d.call("POST", BLUEPRINTS, { body: blueprintBody("No principal") });
    const identity = await d.call("POST", IDENTITIES, {
      body: { displayName: "Orphan", agentIdentityBlueprintId: bare.body.appId, "sponsors@odata.bind": sponsorBind(d) },
    });
    expect([identity.status, codeOf(identity)]).toEqual([400, "AgentIdentity_AgentBlueprintPrincipalDoesNotExist"]);

    const { appId } = await blueprintWithPrincipal(d);
    const { identityId } = await identityWithUser(d, appId, "first-user");
    const second = await d.call("POST", "/v1.0/users/microsoft.graph.agentUser", {
      body: { accountEnabled: true, displayName: "second", mailNickname: "second", userPrincipalName: `second@${DEFAULT_IDS.domain}`, identityParentId: identityId },
    });
    expect([second.status, codeOf(second)]).toEqual([400, "Request_BadRequest"]);
  });

  it("refuses an agent user that breaks Entra's username policy or limits with Graph's invalid-value 400, and creates nothing", async () => {
    const { appId } = await blueprintWithPrincipal(d);
    const identity = await d.call("POST", IDENTITIES, { body: { displayName: "Policy", agentIdentityBlueprintId: appId, "sponsors@odata.bind": sponsorBind(d) } });
    const good = { accountEnabled: true, displayName: "policy", mailNickname: "policy", userPrincipalName: `policy@${DEFAULT_IDS.domain}`, identityParentId: identity.body.id };
    for (const [property, value] of [
      ["userPrincipalName", `policy.@${DEFAULT_IDS.domain}`],
      ["userPrincipalName", `pol icy@${DEFAULT_IDS.domain}`],
      ["displayName", "d".repeat(257)],
      ["mailNickname", "m".repeat(65)],
    ] as const) {
      const answer = await d.call("POST", "/v1.0/users/microsoft.graph.agentUser", { body: { ...good, [property]: value } });
      expect([answer.status, codeOf(answer), messageOf(answer)]).toEqual([400, "Request_BadRequest", `Invalid value specified for property '${property}' of resource 'User'.`]);
    }
    const listed = await d.call("GET", `/v1.0/users/microsoft.graph.agentUser?$filter=identityParentId eq '${identity.body.id as string}'`);
    expect(listed.body.value).toEqual([]);
    expect((await d.call("POST", "/v1.0/users/microsoft.graph.agentUser", { body: good })).status).toBe(201);
  });

  it("refuses a displayName over 256 characters on agent identity create and PATCH, as on blueprints, with Graph's 400, and changes nothing", async () => {
    const { id, appId } = await blueprintWithPrincipal(d, "Named blueprint");
    const { identityId } = await identityWithUser(d, appId, "named-identity");
    const tooLong = "n".repeat(257);
    const refused = [400, "Request_BadRequest", "displayName is 257 characters; at most 256 are allowed."];
    const answerOf = (a: Awaited<ReturnType<Directory["call"]>>) => [a.status, codeOf(a), messageOf(a)];

    const patched = await d.call("PATCH", `/v1.0/servicePrincipals/${identityId}/microsoft.graph.agentIdentity`, { body: { displayName: tooLong } });
    expect(answerOf(patched)).toEqual(refused);
    expect(d.emulator.store.servicePrincipal(identityId)?.displayName).toBe("named-identity");

    const created = await d.call("POST", IDENTITIES, { body: { displayName: tooLong, agentIdentityBlueprintId: appId, "sponsors@odata.bind": sponsorBind(d) } });
    expect(answerOf(created)).toEqual(refused);
    expect(d.emulator.store.servicePrincipals("agentIdentity").filter((p) => p.displayName === tooLong)).toEqual([]);

    expect(answerOf(await d.call("PATCH", blueprintPath(id), { body: { displayName: tooLong } }))).toEqual(refused);
    expect(d.emulator.store.application(id)?.displayName).toBe("Named blueprint");
  });

  it("deleting a blueprint principal removes its agent identities and their grants, and leaves their agent users", async () => {
    const { appId, principalId } = await blueprintWithPrincipal(d);
    const { identityId, userId } = await identityWithUser(d, appId, "cascade");
    const grant = await d.call("POST", "/v1.0/oauth2PermissionGrants", {
      body: { clientId: identityId, consentType: "Principal", principalId: userId, resourceId: DEFAULT_IDS.graphPrincipalId, scope: "User.Read" },
    });
    expect(grant.status).toBe(201);
    expect((await d.call("DELETE", `/v1.0/servicePrincipals/${principalId}/microsoft.graph.agentIdentityBlueprintPrincipal`)).status).toBe(204);
    const { store } = d.emulator;
    expect(store.servicePrincipal(identityId)).toBeUndefined();
    expect(store.grant(grant.body.id as string)).toBeUndefined();
    expect(store.user(userId)).toMatchObject({ identityParentId: identityId });
  });

  it("deleting a blueprint deletes its principal too", async () => {
    const { id, principalId } = await blueprintWithPrincipal(d);
    expect((await d.call("DELETE", blueprintPath(id))).status).toBe(204);
    expect(d.emulator.store.servicePrincipal(principalId)).toBeUndefined();
  });

  it("pages lists with a nextLink that keeps the filter, and refuses query options it does not serve", async () => {
    for (const name of ["paged-1", "paged-2", "paged-3"]) await d.call("POST", BLUEPRINTS, { body: { ...blueprintBody("Paged"), tags: [name] } });
    const first = await d.call("GET", `${BLUEPRINTS}?$filter=displayName eq 'Paged'&$select=id,tags&$top=2`);
    expect(first.body.value).toHaveLength(2);
    const next = new URL(first.body["@odata.nextLink"] as string);
    expect(next.searchParams.get("$filter")).toBe("displayName eq 'Paged'");
    const second = await d.call("GET", `${next.pathname}${next.search}`);
    expect(second.body.value).toHaveLength(1);
    expect(second.body["@odata.nextLink"]).toBeUndefined();
    const tagged = await d.call("GET", `${BLUEPRINTS}?$filter=tags/any(t:t eq 'paged-2')&$select=tags`);
    expect(tagged.body.value).toEqual([{ tags: ["paged-2"] }]);

    expect(codeOf(await d.call("GET", `${BLUEPRINTS}?$orderby=displayName`))).toBe("Request_UnsupportedQuery");
    expect(codeOf(await d.call("GET", `${BLUEPRINTS}?$filter=startswith(displayName,'P')`))).toBe("BadRequest");
    expect(messageOf(await d.call("GET", `${BLUEPRINTS}?$select=secretText`))).toContain("Could not find a property named 'secretText'");
  });
});
