import { adoptionBase } from "../../../infra/providers/adoption";
import { blueprintProvider, type BlueprintInputs, type BlueprintOutputs } from "../../../infra/providers/blueprint";
import { blueprintInputs, createBlueprint, DEFAULT_IDS, graphCalls, SECOND_SPONSOR, startTenant, type Tenant } from "./tenant";

describe("blueprint provider over HTTP", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());

  const stored = (b: BlueprintOutputs) => t.emulator.store.application(b.objectId);

  it("creates a typed blueprint with its sponsor and adoption tag, owned by the provisioner", async () => {
    const inputs = await blueprintInputs(t, { sponsors: [DEFAULT_IDS.sponsorId.toUpperCase()] });
    const { id, outs } = await blueprintProvider.create!(inputs);
    expect(id).toBe(outs!.objectId);
    expect(stored(outs!)).toMatchObject({
      kind: "agentIdentityBlueprint",
      appId: outs!.appId,
      displayName: "Research agent blueprint",
      tags: [inputs.adoptionTag],
      sponsors: [DEFAULT_IDS.sponsorId],
      owners: [DEFAULT_IDS.provisionerPrincipalId],
    });
  });

  it("reads what Graph holds: drift in name and sponsors shows, a deleted blueprint reads as gone", async () => {
    const outs = await createBlueprint(t);
    await expect(blueprintProvider.read!(outs.objectId, outs)).resolves.toEqual({ id: outs.objectId, props: outs });

    stored(outs)!.displayName = "Renamed in the portal";
    stored(outs)!.sponsors.push(SECOND_SPONSOR);
    const drifted = await blueprintProvider.read!(outs.objectId, outs);
    expect(drifted.props).toMatchObject({ displayName: "Renamed in the portal", sponsors: [DEFAULT_IDS.sponsorId, SECOND_SPONSOR].sort() });

    t.emulator.store.deleteApplication(outs.objectId);
    await expect(blueprintProvider.read!(outs.objectId, outs)).resolves.toEqual({});
  });

  it("renames and swaps its only sponsor in place, never leaving it without one", async () => {
    const olds = await createBlueprint(t);
    // As the engine checks it: the program's base tag against the state, whose tag (and nonce) stays.
    const { inputs } = await blueprintProvider.check!(olds, { ...olds, adoptionTag: adoptionBase(olds.adoptionTag), displayName: "Renamed", sponsors: [SECOND_SPONSOR] });
    const news = inputs as BlueprintInputs;
    await expect(blueprintProvider.diff!(olds.objectId, olds, news)).resolves.toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });

    const { outs } = await blueprintProvider.update!(olds.objectId, olds, news);
    expect(outs).toMatchObject({ objectId: olds.objectId, appId: olds.appId, displayName: "Renamed", sponsors: [SECOND_SPONSOR] });
    expect(stored(olds)).toMatchObject({ displayName: "Renamed", sponsors: [SECOND_SPONSOR] });
  });

  it("is replaced, not updated, when its adoption tag changes", async () => {
    const olds = await createBlueprint(t);
    const news = await blueprintInputs(t, { displayName: olds.displayName });
    await expect(blueprintProvider.diff!(olds.objectId, olds, news)).resolves.toEqual({ changes: true, replaces: ["adoptionTag"], deleteBeforeReplace: false });
  });

  it("deletes the blueprint, and counts one already gone as deleted", async () => {
    const outs = await createBlueprint(t);
    const from = t.emulator.requests.length;
    await blueprintProvider.delete!(outs.objectId, outs);
    expect(stored(outs)).toBeUndefined();
    await expect(blueprintProvider.delete!(outs.objectId, outs)).resolves.toBeUndefined();
    const path = `/v1.0/applications/${outs.objectId}/microsoft.graph.agentIdentityBlueprint`;
    expect(graphCalls(t, from)).toEqual([`DELETE ${path} 204`, `DELETE ${path} 404`]);
  });
});
