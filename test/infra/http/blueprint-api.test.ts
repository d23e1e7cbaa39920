/**
 * The blueprint's exposed API (the on-behalf-of flow's audience) against the
 * emulator over HTTP: created, changed, read, refused without its permission,
 * and removed, keeping whatever else the blueprint exposes.
 */
import * as pulumi from "@pulumi/pulumi";
import type { RequestRecord } from "../../../emulator/pipeline/respond";
import { blueprintApiProvider, type BlueprintApiInputs, type BlueprintApiOutputs } from "../../../infra/providers/blueprint-api";
import type { BlueprintOutputs } from "../../../infra/providers/blueprint";
import { createBlueprint, graphCalls, provisionerRoles, revoke, setProvisionerRoles, startTenant, type Tenant } from "./tenant";

const FRONT_END = "f1000000-0000-0000-0000-0000000000f1";
const THEIR_CLIENT = "f2000000-0000-0000-0000-0000000000f2";
const UPDATE_AUTH = "AgentIdentityBlueprint.UpdateAuthProperties.All";

async function apiInputs(t: Tenant, blueprint: BlueprintOutputs, patch: Partial<BlueprintApiInputs> = {}): Promise<BlueprintApiInputs> {
  const { inputs, failures } = await blueprintApiProvider.check!({} as BlueprintApiInputs, {
    ...t.common, blueprintAppId: blueprint.appId, blueprintObjectId: blueprint.objectId, scope: "access_agent", preAuthorizedClients: [FRONT_END], ...patch });
  expect(failures).toEqual([]);
  return inputs as BlueprintApiInputs;
}

async function expose(t: Tenant, blueprint: BlueprintOutputs, patch: Partial<BlueprintApiInputs> = {}): Promise<{ id: string; outs: BlueprintApiOutputs }> {
  const created = (await blueprintApiProvider.create!(await apiInputs(t, blueprint, patch))) as pulumi.dynamic.CreateResult<BlueprintApiOutputs>;
  return { id: created.id, outs: created.outs! };
}

/**
 * Runs `change` as the emulator takes in the next request of `method`, before
 * it serves it: another owner's write landing between the provider's read
 * and its request.
 */
function beforeNext(t: Tenant, method: string, change: () => void): void {
  const requests = t.emulator.requests;
  const push = requests.push.bind(requests);
  requests.push = (...records: RequestRecord[]) => {
    if (records.some((r) => r.method === method)) {
      requests.push = push;
      change();
    }
    return push(...records);
  };
}

/** A scope of the kit's own texts, as a create whose answer was lost would have left it. */
const kitScope = (id: string, value = "access_agent") => ({
  id,
  value,
  type: "User" as const,
  isEnabled: true,
  adminConsentDisplayName: `Access the agent (${value})`,
  adminConsentDescription: "Allow the application to access the agent on behalf of the signed-in user.",
  userConsentDisplayName: `Access the agent (${value})`,
  userConsentDescription: "Allow the application to access the agent on your behalf.",
});

describe("blueprint API provider over HTTP", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
    setProvisionerRoles(t, [...provisionerRoles(t), UPDATE_AUTH]);
  });
  afterAll(() => t.close());

  it("exposes api://{appId} and the scope, pre-authorized for the front end, by appId", async () => {
    const blueprint = await createBlueprint(t);
    const from = t.emulator.requests.length;
    const { id, outs } = await expose(t, blueprint);
    expect(outs).toMatchObject({ identifierUri: `api://${blueprint.appId}`, scope: "access_agent", identifierUriAdded: true });
    expect(id).toBe(`${blueprint.appId}/${outs.scopeId}`);
    const app = t.emulator.store.application(blueprint.objectId)!;
    expect(app.identifierUris).toEqual([`api://${blueprint.appId}`]);
    expect(app.api!.oauth2PermissionScopes).toEqual([expect.objectContaining({ id: outs.scopeId, value: "access_agent", type: "User", isEnabled: true })]);
    expect(app.api!.preAuthorizedApplications).toEqual([{ appId: FRONT_END, delegatedPermissionIds: [outs.scopeId] }]);
    expect(graphCalls(t, from).filter((call) => call.startsWith("PATCH"))).toEqual([`PATCH /v1.0/applications(appId='${blueprint.appId}') 204`]);
  });

  it("renames the scope in place (disabling the old value first, as Graph requires) and keeps a scope it did not make", async () => {
    const blueprint = await createBlueprint(t);
    const { id, outs } = await expose(t, blueprint);
    const app = t.emulator.store.application(blueprint.objectId)!;
    const theirs = { id: "0c000000-0000-0000-0000-00000000000c", value: "theirs", type: "User" as const, isEnabled: true, adminConsentDisplayName: "Theirs", adminConsentDescription: "Theirs", userConsentDisplayName: null, userConsentDescription: null };
    t.emulator.store.updateApplication(app.id, { api: { ...app.api!, oauth2PermissionScopes: [...app.api!.oauth2PermissionScopes, theirs] } });
    const news = await apiInputs(t, blueprint, { scope: "act_for_user", preAuthorizedClients: [] });
    expect(await blueprintApiProvider.diff!(id, outs, news)).toMatchObject({ changes: true, replaces: [] });
    const from = t.emulator.requests.length;
    await expect(blueprintApiProvider.update!(id, outs, news)).resolves.toEqual({ outs: { ...news, identifierUri: outs.identifierUri, scopeId: outs.scopeId, identifierUriAdded: true } });
    expect(graphCalls(t, from).filter((call) => call.startsWith("PATCH")).length).toBe(2);
    const scopes = t.emulator.store.application(blueprint.objectId)!.api!.oauth2PermissionScopes;
    expect(scopes.map((s) => [s.value, s.isEnabled])).toEqual([["theirs", true], ["act_for_user", true]]);
    expect(t.emulator.store.application(blueprint.objectId)!.api!.preAuthorizedApplications).toEqual([]);
  });

  it("reads drift as a changed scope: one disabled or an identifier URI taken away reads as no scope, which the next up exposes again", async () => {
    const blueprint = await createBlueprint(t);
    const { id, outs } = await expose(t, blueprint);
    await expect(blueprintApiProvider.read!(id, outs)).resolves.toEqual({ id, props: { ...outs, preAuthorizedClients: [FRONT_END] } });
    t.emulator.store.updateApplication(blueprint.objectId, { identifierUris: [] });
    await expect(blueprintApiProvider.read!(id, outs)).resolves.toMatchObject({ props: { scope: "" } });
  });

  it("removes only its own identifier URI, scope and pre-authorization, and counts a blueprint already gone as done", async () => {
    const blueprint = await createBlueprint(t);
    const { id, outs } = await expose(t, blueprint);
    await blueprintApiProvider.delete!(id, outs);
    const app = t.emulator.store.application(blueprint.objectId)!;
    expect([app.identifierUris, app.api!.oauth2PermissionScopes, app.api!.preAuthorizedApplications]).toEqual([[], [], []]);
    t.emulator.store.deleteApplication(blueprint.objectId);
    await expect(blueprintApiProvider.delete!(id, outs)).resolves.toBeUndefined();
  });

  it("keeps, on delete, an identifier URI the blueprint answered to before the stack", async () => {
    const blueprint = await createBlueprint(t);
    t.emulator.store.updateApplication(blueprint.objectId, { identifierUris: [`api://${blueprint.appId}`] });
    const { id, outs } = await expose(t, blueprint);
    expect(outs.identifierUriAdded).toBe(false);
    await blueprintApiProvider.delete!(id, outs);
    const app = t.emulator.store.application(blueprint.objectId)!;
    expect([app.identifierUris, app.api!.oauth2PermissionScopes]).toEqual([[`api://${blueprint.appId}`], []]);
  });

  it("adopts its own scope after a lost create answer, with its id; refuses one of the same value someone else made, changing nothing", async () => {
    const blueprint = await createBlueprint(t);
    const first = await expose(t, blueprint);
    // The same create again, as after an answer lost once Graph had stored it.
    const again = await expose(t, blueprint);
    expect([again.outs.scopeId, t.emulator.store.application(blueprint.objectId)!.api!.oauth2PermissionScopes.length]).toEqual([first.outs.scopeId, 1]);

    const other = await createBlueprint(t);
    const theirs = { id: "0d000000-0000-0000-0000-00000000000d", value: "access_agent", type: "Admin" as const, isEnabled: true, adminConsentDisplayName: "Theirs", adminConsentDescription: "Theirs", userConsentDisplayName: null, userConsentDescription: null };
    t.emulator.store.updateApplication(other.objectId, { api: { oauth2PermissionScopes: [theirs], preAuthorizedApplications: [] } });
    const from = t.emulator.requests.length;
    await expect(blueprintApiProvider.create!(await apiInputs(t, other))).rejects.toThrow(/already exposes a scope "access_agent" \(id 0d000000-0000-0000-0000-00000000000d\) that this stack did not make/);
    expect(graphCalls(t, from).filter((call) => call.startsWith("PATCH"))).toEqual([]);
    expect(t.emulator.store.application(other.objectId)!.api!.oauth2PermissionScopes).toEqual([theirs]);
  });

  it("keeps an identifier URI another owner adds between its read and its PATCH, on an update of the clients, a rename, and a delete", async () => {
    const blueprint = await createBlueprint(t);
    const { id, outs } = await expose(t, blueprint);
    expect(outs.identifierUriAdded).toBe(true);
    const uris = () => t.emulator.store.application(blueprint.objectId)!.identifierUris;
    const addTheirs = (uri: string) => () => t.emulator.store.updateApplication(blueprint.objectId, { identifierUris: [...uris()!, uri] });
    const theirs = [`api://${blueprint.appId}/theirs`, `api://${blueprint.appId}/reports`, `api://${blueprint.appId}/later`];

    // The clients alone: the URI list is not the resource's to send.
    const clientsOnly = await apiInputs(t, blueprint, { preAuthorizedClients: [] });
    beforeNext(t, "PATCH", addTheirs(theirs[0]!));
    await blueprintApiProvider.update!(id, outs, clientsOnly);
    // A rename: the scope is disabled by one PATCH and renamed by another, each from a read just before it.
    const renamed = await apiInputs(t, blueprint, { scope: "act_for_user", preAuthorizedClients: [] });
    beforeNext(t, "PATCH", addTheirs(theirs[1]!));
    await blueprintApiProvider.update!(id, { ...outs, ...clientsOnly }, renamed);
    expect(uris()).toEqual([`api://${blueprint.appId}`, theirs[0], theirs[1]]);

    // The delete takes its own URI off the list as it stands at its last PATCH.
    beforeNext(t, "PATCH", addTheirs(theirs[2]!));
    await blueprintApiProvider.delete!(id, { ...outs, ...renamed });
    expect(uris()).toEqual(theirs);
  });

  it("says which of another owner's URIs and scopes went away while it changed the blueprint, naming the call", async () => {
    const blueprint = await createBlueprint(t);
    const their = `api://${blueprint.appId}/theirs`;
    t.emulator.store.updateApplication(blueprint.objectId, { identifierUris: [their] });
    const warn = jest.spyOn(pulumi.log, "warn").mockResolvedValue();
    try {
      // Their URI goes between the provider's PATCH and its read after it.
      beforeNext(t, "PATCH", () => beforeNext(t, "GET", () => t.emulator.store.updateApplication(blueprint.objectId, { identifierUris: [`api://${blueprint.appId}`] })));
      await expose(t, blueprint);
      expect(warn.mock.calls.map(([message]) => message)).toEqual([
        expect.stringMatching(new RegExp(`^blueprint API create: after PATCH /v1\\.0/applications\\(appId='${blueprint.appId}'\\), the blueprint no longer holds identifier URI "${their.replace(/[/.]/g, "\\$&")}", which another owner had`)),
      ]);
      // Nothing went: nothing said.
      warn.mockClear();
      await expose(t, blueprint);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("adopting its own scope on a blueprint that answered to api://{appId} before: keeps the URI on delete, and the scope's other pre-authorized clients", async () => {
    const blueprint = await createBlueprint(t);
    const scopeId = "0e000000-0000-0000-0000-00000000000e";
    t.emulator.store.updateApplication(blueprint.objectId, {
      identifierUris: [`api://${blueprint.appId}`],
      api: { oauth2PermissionScopes: [kitScope(scopeId)], preAuthorizedApplications: [{ appId: THEIR_CLIENT, delegatedPermissionIds: [scopeId] }] },
    });
    const { id, outs } = await expose(t, blueprint);
    expect([outs.scopeId, outs.identifierUriAdded]).toEqual([scopeId, false]);
    const app = () => t.emulator.store.application(blueprint.objectId)!;
    expect(app().api!.preAuthorizedApplications).toEqual([
      { appId: THEIR_CLIENT, delegatedPermissionIds: [scopeId] },
      { appId: FRONT_END, delegatedPermissionIds: [scopeId] },
    ]);
    // Only the stack's own client counts for drift; the other stays through an update that drops the stack's.
    await expect(blueprintApiProvider.read!(id, outs)).resolves.toMatchObject({ props: { preAuthorizedClients: [FRONT_END] } });
    await blueprintApiProvider.update!(id, outs, await apiInputs(t, blueprint, { preAuthorizedClients: [] }));
    expect(app().api!.preAuthorizedApplications).toEqual([{ appId: THEIR_CLIENT, delegatedPermissionIds: [scopeId] }]);
    await blueprintApiProvider.delete!(id, { ...outs, preAuthorizedClients: [] });
    expect([app().identifierUris, app().api!.oauth2PermissionScopes, app().api!.preAuthorizedApplications]).toEqual([[`api://${blueprint.appId}`], [], []]);
  });

  it("does not add its URI again in another case: Entra compares identifier URIs without case", async () => {
    const blueprint = await createBlueprint(t);
    t.emulator.store.updateApplication(blueprint.objectId, { identifierUris: [`API://${blueprint.appId.toUpperCase()}`] });
    const { outs } = await expose(t, blueprint);
    expect(outs.identifierUriAdded).toBe(false);
    expect(t.emulator.store.application(blueprint.objectId)!.identifierUris).toEqual([`API://${blueprint.appId.toUpperCase()}`]);
  });

  it("names the permission it lacks when the provisioner may not change the blueprint's auth properties", async () => {
    const blueprint = await createBlueprint(t);
    const held = provisionerRoles(t);
    revoke(t, UPDATE_AUTH);
    revoke(t, "AgentIdentityBlueprint.ReadWrite.All");
    try {
      await expect(blueprintApiProvider.create!(await apiInputs(t, blueprint))).rejects.toThrow(/AgentIdentityBlueprint\.UpdateAuthProperties\.All/);
    } finally {
      setProvisionerRoles(t, held);
    }
  });

  it.each([["acc\x1b]52;c;eA==\x07ess"], ["x\x1b[2J"], ["access\"agent"]])("refuses a scope value outside Entra's character set at check: %j", async (scope) => {
    const { failures } = await blueprintApiProvider.check!({} as BlueprintApiInputs, { ...t.common, blueprintAppId: FRONT_END, blueprintObjectId: FRONT_END, scope, preAuthorizedClients: [] });
    expect(failures).toEqual([{ property: "scope", reason: expect.stringContaining("may hold only letters, digits and") }]);
  });

  it("refuses a scope with a space and a client that is not an appId at check", async () => {
    const { failures } = await blueprintApiProvider.check!({} as BlueprintApiInputs, { ...t.common, blueprintAppId: FRONT_END, blueprintObjectId: FRONT_END, scope: "access agent", preAuthorizedClients: ["web"] });
    expect((failures ?? []).map((f) => f.property).sort()).toEqual(["preAuthorizedClients", "scope"]);
  });
});
