import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
import { createBlueprint, createPrincipal, graphCalls, principalInputs, startTenant, type Tenant } from "./tenant";

describe("blueprint principal provider over HTTP", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());

  it("creates the blueprint's principal, which Entra does not make on its own", async () => {
    const blueprint = await createBlueprint(t);
    expect(t.emulator.store.servicePrincipalByAppId(blueprint.appId)).toBeUndefined();
    const { id, outs } = await blueprintPrincipalProvider.create!(await principalInputs(t, blueprint));
    expect(outs!.principalId).toBe(id);
    expect(t.emulator.store.servicePrincipal(id)).toMatchObject({ kind: "agentIdentityBlueprintPrincipal", appId: blueprint.appId });
  });

  it("reads the principal, and reads it as gone once deleted behind Pulumi's back", async () => {
    const outs = await createPrincipal(t, await createBlueprint(t));
    await expect(blueprintPrincipalProvider.read!(outs.principalId, outs)).resolves.toEqual({ id: outs.principalId, props: outs });
    t.emulator.store.deleteServicePrincipal(outs.principalId);
    await expect(blueprintPrincipalProvider.read!(outs.principalId, outs)).resolves.toEqual({});
  });

  it("is replaced for another blueprint, and updated in place (without a Graph call) for a new provider version", async () => {
    const olds = await createPrincipal(t, await createBlueprint(t));
    const other = await createBlueprint(t);
    const replaced = await blueprintPrincipalProvider.diff!(olds.principalId, olds, await principalInputs(t, other));
    expect(replaced).toEqual({ changes: true, replaces: ["appId", "blueprintObjectId"], deleteBeforeReplace: false });

    const news = { ...olds, providerVersion: "9.9.9" };
    expect(await blueprintPrincipalProvider.diff!(olds.principalId, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const from = t.emulator.requests.length;
    await expect(blueprintPrincipalProvider.update!(olds.principalId, olds, news)).resolves.toEqual({ outs: { ...news, principalId: olds.principalId } });
    expect(graphCalls(t, from)).toEqual([]);
  });

  it("deletes the principal, and counts one already gone as deleted", async () => {
    const outs = await createPrincipal(t, await createBlueprint(t));
    await blueprintPrincipalProvider.delete!(outs.principalId, outs);
    expect(t.emulator.store.servicePrincipal(outs.principalId)).toBeUndefined();
    await expect(blueprintPrincipalProvider.delete!(outs.principalId, outs)).resolves.toBeUndefined();
  });
});
