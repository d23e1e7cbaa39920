import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import {
  createBlueprint,
  createIdentity,
  createIdentityChain,
  createPrincipal,
  DEFAULT_IDS,
  identityInputs,
  SECOND_SPONSOR,
  startTenant,
  type Tenant,
} from "./tenant";

describe("agent identity provider over HTTP", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());

  const stored = (id: string) => t.emulator.store.servicePrincipal(id);

  it("creates an agent identity of the blueprint, with its sponsors", async () => {
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const { id, outs } = await agentIdentityProvider.create!(await identityInputs(t, blueprint, principal));
    expect(outs!.identityId).toBe(id);
    expect(stored(id)).toMatchObject({
      kind: "agentIdentity",
      appId: id,
      servicePrincipalType: "ServiceIdentity",
      agentIdentityBlueprintId: blueprint.appId,
      sponsors: [DEFAULT_IDS.sponsorId],
    });
  });

  it("reads drift in name and sponsors, and a deleted identity as gone", async () => {
    const { identity } = await createIdentityChain(t);
    await expect(agentIdentityProvider.read!(identity.identityId, identity)).resolves.toEqual({ id: identity.identityId, props: identity });
    stored(identity.identityId)!.displayName = "Renamed in the portal";
    stored(identity.identityId)!.sponsors = [SECOND_SPONSOR];
    const drifted = await agentIdentityProvider.read!(identity.identityId, identity);
    expect(drifted.props).toMatchObject({ displayName: "Renamed in the portal", sponsors: [SECOND_SPONSOR] });
    t.emulator.store.deleteServicePrincipal(identity.identityId);
    await expect(agentIdentityProvider.read!(identity.identityId, identity)).resolves.toEqual({});
  });

  it("renames and changes sponsors in place", async () => {
    const { blueprint, principal, identity: olds } = await createIdentityChain(t);
    const news = await identityInputs(t, blueprint, principal, { displayName: "Renamed", sponsors: [DEFAULT_IDS.sponsorId, SECOND_SPONSOR] });
    expect(await agentIdentityProvider.diff!(olds.identityId, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs } = await agentIdentityProvider.update!(olds.identityId, olds, news);
    expect(outs).toMatchObject({ identityId: olds.identityId, displayName: "Renamed" });
    expect(stored(olds.identityId)).toMatchObject({ displayName: "Renamed", sponsors: [DEFAULT_IDS.sponsorId, SECOND_SPONSOR] });
  });

  it("is replaced, deleting first, when it moves to another blueprint; the new identity is a new object", async () => {
    const { identity: olds } = await createIdentityChain(t);
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const news = await identityInputs(t, blueprint, principal, { displayName: olds.displayName });
    expect(await agentIdentityProvider.diff!(olds.identityId, olds, news)).toEqual({
      changes: true,
      replaces: ["blueprintAppId", "blueprintPrincipalId"],
      deleteBeforeReplace: true,
    });
    await agentIdentityProvider.delete!(olds.identityId, olds);
    const { id } = await agentIdentityProvider.create!(news);
    expect(id).not.toBe(olds.identityId);
    expect(stored(olds.identityId)).toBeUndefined();
    expect(stored(id)).toMatchObject({ agentIdentityBlueprintId: blueprint.appId });
  });

  it("deletes the identity, and counts one already gone as deleted", async () => {
    const blueprint = await createBlueprint(t);
    const identity = await createIdentity(t, blueprint, await createPrincipal(t, blueprint));
    await agentIdentityProvider.delete!(identity.identityId, identity);
    expect(stored(identity.identityId)).toBeUndefined();
    await expect(agentIdentityProvider.delete!(identity.identityId, identity)).resolves.toBeUndefined();
  });
});
