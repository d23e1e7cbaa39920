/**
 * Who made an object, as Graph records it: `createdByAppId`, read-only, is
 * the appId of the token that created a blueprint, a blueprint principal or
 * an agent identity, whatever the body says; `owners` are its creator's
 * principal and whoever `owners@odata.bind` names. The emulator's own record
 * of a CreateAsManager creator is never served.
 */
import { blueprintWithPrincipal, codeOf, DEFAULT_IDS, messageOf, sponsorBind, startDirectory, type Answer, type Directory } from "./directory-client";

const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
const PRINCIPALS = "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal";
const IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";
const blueprintPath = (id: string) => `/v1.0/applications/${id}/microsoft.graph.agentIdentityBlueprint`;
const principalPath = (id: string) => `/v1.0/servicePrincipals/${id}/microsoft.graph.agentIdentityBlueprintPrincipal`;
const identityPath = (id: string) => `/v1.0/servicePrincipals/${id}/microsoft.graph.agentIdentity`;

/** Another application of the tenant, holding only what a planter needs. */
const PLANTER = { appId: "7e57a11e-0000-4000-8000-0000000000aa", principalId: "7e57a11e-0000-4000-8000-0000000000ab" };

describe("emulated Graph: createdByAppId and owners", () => {
  let d: Directory;
  let planter: (roles: string[]) => string;
  beforeAll(async () => {
    d = await startDirectory();
    d.emulator.store.createApplication({
      id: "7e57a11e-0000-4000-8000-0000000000ac",
      appId: PLANTER.appId,
      kind: "application",
      displayName: "Another app",
      sponsors: [],
      owners: [],
      passwordCredentials: [],
      keyCredentials: [],
      federatedIdentityCredentials: [],
      createdAt: 0,
    });
    d.emulator.store.createServicePrincipal({
      id: PLANTER.principalId,
      appId: PLANTER.appId,
      kind: "servicePrincipal",
      displayName: "Another app",
      servicePrincipalType: "Application",
      servicePrincipalNames: [PLANTER.appId],
      sponsors: [],
      graphAppRoles: [],
      createdAt: 0,
    });
    planter = (roles) => d.signed({ idtyp: "app", appid: PLANTER.appId, oid: PLANTER.principalId, roles });
  });
  afterAll(() => d.close());

  const created = (answer: Answer) => answer.body.createdByAppId;

  it("records the appId of the token that created a blueprint, its principal and an agent identity, on create, get and list", async () => {
    const made = await blueprintWithPrincipal(d, "Made by the provisioner");
    const identity = await d.call("POST", IDENTITIES, { body: { displayName: "Made by the provisioner", agentIdentityBlueprintId: made.appId, "sponsors@odata.bind": sponsorBind(d) } });
    expect(created(identity)).toBe(DEFAULT_IDS.provisionerAppId);
    for (const path of [blueprintPath(made.id), principalPath(made.principalId), identityPath(identity.body.id as string)]) {
      expect([path, created(await d.call("GET", `${path}?$select=id,createdByAppId`))]).toEqual([path, DEFAULT_IDS.provisionerAppId]);
    }
    const listed = await d.call("GET", `${BLUEPRINTS}?$filter=appId eq '${made.appId}'&$select=id,createdByAppId`);
    expect(listed.body.value).toEqual([{ id: made.id, createdByAppId: DEFAULT_IDS.provisionerAppId }]);

    const planted = await d.call("POST", BLUEPRINTS, { token: planter(["AgentIdentityBlueprint.Create"]), body: { displayName: "Planted", "sponsors@odata.bind": sponsorBind(d) } });
    expect(planted.status).toBe(201);
    expect(created(planted)).toBe(PLANTER.appId);
  });

  it("refuses a body that sets createdByAppId, as Graph refuses a read-only property, whatever its value, and creates nothing", async () => {
    const before = d.emulator.store.applications("agentIdentityBlueprint").length;
    for (const createdByAppId of [DEFAULT_IDS.provisionerAppId, PLANTER.appId]) {
      const answer = await d.call("POST", BLUEPRINTS, {
        token: planter(["AgentIdentityBlueprint.Create"]),
        body: { displayName: "Disguised", "sponsors@odata.bind": sponsorBind(d), createdByAppId },
      });
      expect([answer.status, codeOf(answer), messageOf(answer)]).toEqual([400, "Request_BadRequest", "Property 'createdByAppId' is read-only and cannot be set."]);
    }
    expect(d.emulator.store.applications("agentIdentityBlueprint")).toHaveLength(before);
    const made = await blueprintWithPrincipal(d, "Patched");
    const patch = await d.call("PATCH", blueprintPath(made.id), { body: { createdByAppId: PLANTER.appId } });
    expect([patch.status, messageOf(patch)]).toEqual([400, "Property 'createdByAppId' is read-only and cannot be set."]);
    const principal = await d.call("POST", PRINCIPALS, { body: { appId: made.appId, createdByAppId: PLANTER.appId } });
    expect(principal.status).toBe(400);
    expect(created(await d.call("GET", blueprintPath(made.id)))).toBe(DEFAULT_IDS.provisionerAppId);
  });

  it("lists owners as directoryObjects: the creator's principal and the users owners@odata.bind names, on a blueprint, its principal and an agent identity", async () => {
    const blueprint = await d.call("POST", BLUEPRINTS, {
      token: planter(["AgentIdentityBlueprint.Create"]),
      body: { displayName: "Owned", "sponsors@odata.bind": sponsorBind(d), "owners@odata.bind": [`${d.emulator.httpUrl}/v1.0/users/${DEFAULT_IDS.sponsorId}`] },
    });
    const owners = await d.call("GET", `${blueprintPath(blueprint.body.id as string)}/owners`);
    expect(owners.status).toBe(200);
    expect(owners.body.value).toEqual([
      { "@odata.type": "#microsoft.graph.servicePrincipal", id: PLANTER.principalId, displayName: "Another app", appId: PLANTER.appId },
      { "@odata.type": "#microsoft.graph.user", id: DEFAULT_IDS.sponsorId, displayName: "Ada Sponsor", userPrincipalName: `ada@${DEFAULT_IDS.domain}` },
    ]);
    const mine = await blueprintWithPrincipal(d, "Owned by the provisioner");
    const identity = await d.call("POST", IDENTITIES, { body: { displayName: "Owned", agentIdentityBlueprintId: mine.appId, "sponsors@odata.bind": sponsorBind(d) } });
    for (const path of [principalPath(mine.principalId), identityPath(identity.body.id as string)]) {
      const answer = await d.call("GET", `${path}/owners`);
      expect([path, answer.body.value]).toEqual([path, [expect.objectContaining({ id: DEFAULT_IDS.provisionerPrincipalId, appId: DEFAULT_IDS.provisionerAppId })]]);
    }
    expect((await d.call("GET", `${blueprintPath("00000000-0000-4000-8000-000000000000")}/owners`)).status).toBe(404);
  });

  it("never serves its own record of a CreateAsManager creator: no answer names managerAppId", async () => {
    const manager = planter(["AgentIdentityBlueprint.CreateAsManager"]);
    const made = await d.call("POST", BLUEPRINTS, { token: manager, body: { displayName: "Managed", "sponsors@odata.bind": sponsorBind(d) } });
    const principal = await d.call("POST", PRINCIPALS, { token: manager, body: { appId: made.body.appId } });
    expect([made.status, principal.status]).toEqual([201, 201]);
    expect(d.emulator.store.application(made.body.id as string)?.managerAppId).toBe(PLANTER.appId);
    const answers = [
      made,
      principal,
      await d.call("GET", blueprintPath(made.body.id as string), { token: manager }),
      await d.call("GET", principalPath(principal.body.id as string), { token: manager }),
      await d.call("GET", `${BLUEPRINTS}?$filter=appId eq '${made.body.appId as string}'`),
      await d.call("GET", `${PRINCIPALS}?$filter=appId eq '${made.body.appId as string}'`),
      await d.call("GET", `${blueprintPath(made.body.id as string)}/owners`),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 201, 200, 200, 200, 200, 200]);
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toMatch(/managerAppId|manager/i);
    const select = await d.call("GET", `${blueprintPath(made.body.id as string)}?$select=managerAppId`, { token: manager });
    expect([select.status, codeOf(select)]).toEqual([400, "Request_BadRequest"]);
  });
});
