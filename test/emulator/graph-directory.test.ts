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

  it("takes a typed POST without OData-Version, as the reference pages and the how-to's PowerShell tab send it", async () => {
    const answer = await d.call("POST", BLUEPRINTS, { body: blueprintBody("No header"), odataVersion: false });
    expect([answer.status, answer.body["@odata.type"]]).toEqual([201, "#microsoft.graph.agentIdentityBlueprint"]);
  });

  it("creates no blueprint from an untyped collection POST that names its @odata.type without OData-Version: 400 naming the header", async () => {
    const before = blueprintCount();
    const body = { "@odata.type": "Microsoft.Graph.AgentIdentityBlueprint", ...blueprintBody("Untyped, no header") };
    const answer = await d.call("POST", "/v1.0/applications", { body, odataVersion: false });
    expect([answer.status, codeOf(answer)]).toEqual([400, "Request_BadRequest"]);
    expect(messageOf(answer)).toMatch(/^\[emulator rule\] POST \/v1\.0\/applications names "@odata\.type": "#microsoft\.graph\.agentIdentityBlueprint" without the header OData-Version: 4\.0/);
    expect(blueprintCount()).toBe(before);
    const withHeader = await d.call("POST", "/v1.0/applications", { body });
    expect([withHeader.status, withHeader.body["@odata.type"], blueprintCount()]).toEqual([201, "#microsoft.graph.agentIdentityBlueprint", before + 1]);
  });

  it("creates no plain application, service principal or user through the untyped collections: 400 naming the typed URL", async () => {
    const before = [blueprintCount(), d.emulator.store.servicePrincipals().length, d.emulator.store.users().length];
    const app = await d.call("POST", "/v1.0/applications", { body: blueprintBody("Plain") });
    const sp = await d.call("POST", "/v1.0/servicePrincipals", { body: { appId: DEFAULT_IDS.provisionerAppId } });
    const user = await d.call("POST", "/v1.0/users", { body: { displayName: "Plain", mailNickname: "plain", userPrincipalName: `plain@${DEFAULT_IDS.domain}`, accountEnabled: true } });
    expect([app, sp, user].map((a) => [a.status, /^\[emulator rule\] POST \/v1\.0\/\w+ creates a plain/.test(messageOf(a))])).toEqual([
      [400, true],
      [400, true],
      [400, true],
    ]);
    expect([blueprintCount(), d.emulator.store.servicePrincipals().length, d.emulator.store.users().length]).toEqual(before);
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

  it("takes groups as sponsors as the sponsor pages document: bound in a create body or by $ref, listed as #microsoft.graph.group", async () => {
    const group = (id: string) => `${d.emulator.httpUrl}/v1.0/groups/${id}`;
    const created = await d.call("POST", BLUEPRINTS, { body: { displayName: "Group sponsored", "sponsors@odata.bind": [...sponsorBind(d), group(DEFAULT_IDS.sponsorGroupId)] } });
    expect(created.status).toBe(201);
    const path = blueprintPath(created.body.id as string);
    expect((await d.call("GET", `${path}/sponsors?$select=id`)).body.value).toEqual([
      { "@odata.type": "#microsoft.graph.user", id: DEFAULT_IDS.sponsorId },
      { "@odata.type": "#microsoft.graph.group", id: DEFAULT_IDS.sponsorGroupId },
    ]);

    const { appId } = await blueprintWithPrincipal(d);
    const identity = await d.call("POST", IDENTITIES, { body: { displayName: "Group only", agentIdentityBlueprintId: appId, "sponsors@odata.bind": [group(DEFAULT_IDS.sponsorGroupId)] } });
    expect(identity.status).toBe(201);

    const dynamic = d.emulator.store.addGroup({ id: "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716", displayName: "Dynamic", groupTypes: ["DynamicMembership"], isAssignableToRole: false });
    const identityPath = `/v1.0/servicePrincipals/${identity.body.id as string}/microsoft.graph.agentIdentity`;
    const added = await d.call("POST", `${identityPath}/sponsors/$ref`, { body: { "@odata.id": `${d.emulator.httpUrl}/v1.0/directoryObjects/${dynamic.id}` } });
    expect(added.status).toBe(204);
    expect((await d.call("GET", `${identityPath}/sponsors`)).body.value).toEqual([
      { "@odata.type": "#microsoft.graph.group", id: DEFAULT_IDS.sponsorGroupId, displayName: "Agent sponsors", groupTypes: ["Unified"] },
      { "@odata.type": "#microsoft.graph.group", id: dynamic.id, displayName: "Dynamic", groupTypes: ["DynamicMembership"] },
    ]);
  });

  it("refuses sponsors the pages rule out, and answers a missing one 400 in a create body and 404 Request_ResourceNotFound on a $ref add", async () => {
    const before = blueprintCount();
    const bind = (...urls: string[]) => d.call("POST", BLUEPRINTS, { body: { displayName: "Refused", "sponsors@odata.bind": urls } });
    const url = (collection: string, id: string) => `${d.emulator.httpUrl}/v1.0/${collection}/${id}`;
    const answerOf = (a: Awaited<ReturnType<Directory["call"]>>) => [a.status, codeOf(a), messageOf(a)];
    const security = d.emulator.store.addGroup({ id: "6f5e4d3c-2b1a-4098-8e7d-6c5b4a392817", displayName: "Security", groupTypes: [], isAssignableToRole: false });
    const roles = d.emulator.store.addGroup({ id: "7a6f5e4d-3c2b-4a19-8f8e-7d6c5b4a3928", displayName: "Roles", groupTypes: ["Unified"], isAssignableToRole: true });
    const missing = "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e";

    expect(answerOf(await bind(url("groups", security.id)))).toEqual([400, "Request_BadRequest", `Group '${security.id}' cannot be a sponsor: only Microsoft 365 groups and groups with dynamic membership can.`]);
    expect(answerOf(await bind(url("groups", roles.id)))).toEqual([400, "Request_BadRequest", `Group '${roles.id}' is role-assignable; role-assignable groups cannot be sponsors.`]);
    expect(answerOf(await bind(url("servicePrincipals", DEFAULT_IDS.provisionerPrincipalId)))).toEqual([
      400,
      "Request_BadRequest",
      `Sponsor '${DEFAULT_IDS.provisionerPrincipalId}' is a service principal or an agent user; a sponsor is a user or a group.`,
    ]);
    // A typed URL names only its type: a group's id under /users/ is no user.
    expect(answerOf(await bind(url("users", DEFAULT_IDS.sponsorGroupId)))).toEqual([400, "Request_BadRequest", `Sponsor '${DEFAULT_IDS.sponsorGroupId}' does not exist in this tenant as the user or group the URL names.`]);
    expect(answerOf(await bind(url("users", missing)))).toEqual([400, "Request_BadRequest", `Sponsor '${missing}' does not exist in this tenant as the user or group the URL names.`]);
    const six = Array.from({ length: 6 }, (_, n) => d.emulator.store.addGroup({ id: `8b7a6f5e-4d3c-4b2a-9f0e-00000000000${n}`, displayName: `G${n}`, groupTypes: ["Unified"], isAssignableToRole: false }));
    expect(answerOf(await bind(...six.map((g) => url("groups", g.id))))).toEqual([400, "Request_BadRequest", "At most 5 of an object's sponsors may be groups."]);
    expect(blueprintCount()).toBe(before);

    const { id } = await blueprintWithPrincipal(d);
    const ref = (target: string) => d.call("POST", `${blueprintPath(id)}/sponsors/$ref`, { body: { "@odata.id": url("directoryObjects", target) } });
    const notThere = await ref(missing);
    expect([notThere.status, codeOf(notThere)]).toEqual([404, "Request_ResourceNotFound"]);
    expect(messageOf(notThere)).toContain(missing);
    for (const g of six.slice(0, 5)) expect((await ref(g.id)).status).toBe(204);
    expect(answerOf(await ref(six[5]!.id))).toEqual([400, "Request_BadRequest", "At most 5 of an object's sponsors may be groups."]);
    expect(d.emulator.store.application(id)?.sponsors).toHaveLength(6);
  });

  it("keeps an agent user's sponsors on its untyped URL, as agentuser-post-sponsors documents: users and groups, the last one removable, reached by its own blueprint", async () => {
    const mine = await blueprintWithPrincipal(d, "Agent user sponsors");
    const theirs = await blueprintWithPrincipal(d, "Other blueprint");
    const { userId, identityId } = await identityWithUser(d, mine.appId, "sponsored-user");
    const path = `/v1.0/users/${userId}/sponsors`;
    const ref = (id: string, token?: string) => d.call("POST", `${path}/$ref`, { token, body: { "@odata.id": `${d.emulator.httpUrl}/v1.0/directoryObjects/${id}` } });
    const answerOf = (a: Awaited<ReturnType<Directory["call"]>>) => [a.status, codeOf(a)];

    expect((await d.call("GET", path)).body.value).toEqual([]);
    expect((await ref(DEFAULT_IDS.sponsorId)).status).toBe(204);
    expect((await ref(DEFAULT_IDS.sponsorGroupId)).status).toBe(204);
    expect((await d.call("GET", `${path}?$select=id`)).body.value).toEqual([
      { "@odata.type": "#microsoft.graph.user", id: DEFAULT_IDS.sponsorId },
      { "@odata.type": "#microsoft.graph.group", id: DEFAULT_IDS.sponsorGroupId },
    ]);
    expect(answerOf(await ref(identityId))).toEqual([400, "Request_BadRequest"]);
    expect(answerOf(await ref("1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5f"))).toEqual([404, "Request_ResourceNotFound"]);
    // Only an agent user's: a person's sponsors are not served.
    expect(answerOf(await d.call("GET", `/v1.0/users/${DEFAULT_IDS.sponsorId}/sponsors`))).toEqual([404, "Request_ResourceNotFound"]);

    // AgentIdUser.ReadWrite.IdentityParentedBy reaches the agent users of the calling blueprint alone.
    const blueprint = (appId: string) => d.signed({ idtyp: "app", appid: appId, azp: appId, oid: appId, roles: ["AgentIdUser.ReadWrite.IdentityParentedBy"] });
    expect(answerOf(await d.call("DELETE", `${path}/${DEFAULT_IDS.sponsorGroupId}/$ref`, { token: blueprint(theirs.appId) }))).toEqual([403, "Authorization_RequestDenied"]);
    expect((await d.call("DELETE", `${path}/${DEFAULT_IDS.sponsorGroupId}/$ref`, { token: blueprint(mine.appId) })).status).toBe(204);
    expect((await d.call("DELETE", `${path}/${DEFAULT_IDS.sponsorId}/$ref`)).status).toBe(204);
    expect(d.emulator.store.user(userId)?.sponsors).toEqual([]);
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

  it("answers the Agent ID error codes page's codes: a principal of a plain application, an identity whose parent is not a blueprint", async () => {
    const principal = await d.call("POST", "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal", { body: { appId: DEFAULT_IDS.provisionerAppId } });
    expect([principal.status, codeOf(principal)]).toEqual([400, "AgentBlueprintPrincipal_RequireAgentBlueprint"]);

    const { id } = await blueprintWithPrincipal(d);
    const identity = (parent: string) => d.call("POST", IDENTITIES, { body: { displayName: "Wrong parent", agentIdentityBlueprintId: parent, "sponsors@odata.bind": sponsorBind(d) } });
    for (const parent of [id, DEFAULT_IDS.provisionerAppId]) {
      const answer = await identity(parent);
      expect([answer.status, codeOf(answer)]).toEqual([400, "AgentIdentity_IncompatibleParentType"]);
      expect(messageOf(answer)).toContain(`appId ${parent}`);
    }
    expect(d.emulator.store.servicePrincipals("agentIdentity").filter((p) => p.displayName === "Wrong parent")).toEqual([]);
  });

  it("answers the creation codes of the Agent ID error codes page to a caller that may not create this agent identity", async () => {
    const mine = await blueprintWithPrincipal(d, "Mine");
    const theirs = await blueprintWithPrincipal(d, "Theirs");
    const create = (token: string, parent: string) =>
      d.call("POST", IDENTITIES, { token, body: { displayName: "By another caller", agentIdentityBlueprintId: parent, "sponsors@odata.bind": sponsorBind(d) } });
    const app = (appId: string, roles: string[]) => d.signed({ idtyp: "app", appid: appId, azp: appId, oid: appId, roles });
    const answerOf = (a: Awaited<ReturnType<Directory["call"]>>) => [a.status, codeOf(a)];

    const blueprint = app(mine.appId, ["AgentIdentity.CreateAsManager"]);
    expect(answerOf(await create(blueprint, theirs.appId))).toEqual([403, "Error_AgentBlueprintCannotCreateAssociatedIdentity"]);
    expect(answerOf(await create(app(DEFAULT_IDS.provisionerAppId, ["AgentIdentity.CreateAsManager"]), theirs.appId))).toEqual([403, "Error_AgentIdentitySelfCreateRequired"]);
    const { identityId } = await identityWithUser(d, mine.appId, "creator-identity");
    expect(answerOf(await create(app(identityId, ["AgentIdentity.Create.All"]), mine.appId))).toEqual([403, "Error_AgentIdentitiesCreatingAgentIdentitiesNotAllowed"]);
    expect(d.emulator.store.servicePrincipals("agentIdentity").filter((p) => p.displayName === "By another caller")).toEqual([]);
    expect((await create(blueprint, mine.appId)).status).toBe(201);
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
