import { randomUUID } from "node:crypto";
import { parseFaultSpec } from "../../../emulator/faults";
import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import { agentUserProvider } from "../../../infra/providers/agent-user";
import { adoptionBase } from "../../../infra/providers/adoption";
import { blueprintProvider, type BlueprintInputs, type BlueprintOutputs } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
import { createOrAdopt, graphSession } from "../../../infra/providers/graph-ops";
import { BLUEPRINTS } from "../../../lib/graph-paths";
import {
  blueprintInputs,
  blueprintSteps,
  createBlueprint,
  createPrincipal,
  DEFAULT_IDS,
  graphCalls,
  identityInputs,
  otherApp,
  principalInputs,
  SECOND_SPONSOR,
  startTenant,
  userInputs,
  waitDrivenClock,
  type OtherApp,
  type Tenant,
} from "./tenant";

/**
 * Objects another application of the tenant planted where a create looks
 * for its own: a blueprint carrying the stack's adoption tag (as if its
 * nonce had leaked),
 * the blueprint's principal, an agent identity of the stack's name under its
 * blueprint, an agent user of the stack's UPN under an identity that
 * application made. Each is refused before anything is sent to it, naming
 * the object, who created it and its owners; what the provisioner itself
 * created is still adopted, owners or not, lost answer or not.
 */
describe("objects another application planted are never adopted", () => {
  let t: Tenant;
  let planter: OtherApp;
  beforeAll(async () => {
    t = await startTenant();
    planter = otherApp(t, ["AgentIdentityBlueprint.Create", "AgentIdentityBlueprintPrincipal.Create", "AgentIdentity.Create.All", "AgentIdUser.ReadWrite.All"]);
  });
  afterAll(() => t.close());
  afterEach(() => {
    t.emulator.faults.reset();
    t.emulator.store.listLagMs = 0;
    t.emulator.store.now = Date.now;
  });

  const store = () => t.emulator.store;
  const userUrl = (id: string) => `${t.emulator.httpUrl}/v1.0/users/${id}`;
  /** Every Graph call since `from` other than a GET: what a refused create must not have sent. */
  const writes = (from: number) => graphCalls(t, from).filter((c) => !c.startsWith("GET "));
  /** The create's error, which must be the refusal of another application's object. */
  const refusal = (create: Promise<unknown>) =>
    create.then(
      () => {
        throw new Error("the create adopted another application's object");
      },
      (err: Error) => err.message,
    );

  async function plant<T>(path: string, body: Record<string, unknown>): Promise<T & { id: string }> {
    return (await planter.graph.call<T & { id: string }>("POST", path, { agentId: true, body })).body;
  }

  it("a blueprint carrying the stack's tag: refused naming it, its creator and its owners (people too), and left as it was", async () => {
    const inputs = await blueprintInputs(t);
    const planted = await plant<{ appId: string }>(BLUEPRINTS, {
      displayName: "Planted blueprint",
      tags: [inputs.adoptionTag],
      "sponsors@odata.bind": [userUrl(SECOND_SPONSOR)],
      "owners@odata.bind": [userUrl(SECOND_SPONSOR)],
    });
    const from = t.emulator.requests.length;
    const message = await refusal(blueprintProvider.create!(inputs));
    expect(message).toContain(`agent identity blueprint create failed: agent identity blueprint "Planted blueprint" (${planted.id}) was created by application ${planter.appId}, not by the provisioner ${DEFAULT_IDS.provisionerAppId}`);
    expect(message).toContain(`its owners: application "Another app" (appId ${planter.appId}, principal ${planter.principalId}), user "Grace Sponsor" <grace@${DEFAULT_IDS.domain}> (${SECOND_SPONSOR})`);
    expect(message).toContain(`found it by this stack's adoption tag ${inputs.adoptionTag}`);
    expect(message).toMatch(/Fix: .*ARM_CLIENT_ID=.*delete it in Entra, and run `pulumi up` again$/);
    expect(writes(from)).toEqual([]);
    expect(store().application(planted.id)).toMatchObject({ displayName: "Planted blueprint", sponsors: [SECOND_SPONSOR] });
    expect(store().applications().filter((a) => a.tags?.includes(inputs.adoptionTag)).map((a) => a.id)).toEqual([planted.id]);
  });

  it("a blueprint planted with the stack's base tag, which anyone can work out, neither blocks nor is adopted: the create makes its own", async () => {
    const inputs = await blueprintInputs(t);
    const base = adoptionBase(inputs.adoptionTag);
    expect(inputs.adoptionTag).toMatch(new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/[0-9a-f]{32}$`));
    const planted = await plant<{ appId: string }>(BLUEPRINTS, { displayName: "Planted blueprint", tags: [base], "sponsors@odata.bind": [userUrl(SECOND_SPONSOR)] });
    const { id } = await blueprintProvider.create!(inputs);
    expect(id).not.toBe(planted.id);
    expect(store().application(id)).toMatchObject({ displayName: inputs.displayName, tags: [inputs.adoptionTag], createdByAppId: DEFAULT_IDS.provisionerAppId });
    expect(store().application(planted.id)).toMatchObject({ displayName: "Planted blueprint", tags: [base], sponsors: [SECOND_SPONSOR] });
  });

  it("an existing stack's blueprint keeps the tag its state holds, base alone included (no replacement), and a base-tagged one the provisioner made is still adopted", async () => {
    const base = `agent-user-kit:test/dev/${randomUUID()}`;
    const news = { ...t.common, displayName: "Research agent blueprint", sponsors: [DEFAULT_IDS.sponsorId], adoptionTag: base };
    const check = async (olds: Partial<BlueprintInputs>) => ((await blueprintProvider.check!(olds as BlueprintInputs, news)).inputs as BlueprintInputs).adoptionTag;
    // The state's tag stays: the base alone, as stacks before nonces hold it, or the base and its nonce.
    expect(await check({ adoptionTag: base })).toBe(base);
    const first = await check({});
    expect(await check({ adoptionTag: first })).toBe(first);
    // A new blueprint's nonce is drawn afresh: no two stacks share one.
    expect([first, await check({})]).toEqual([expect.stringMatching(/\/[0-9a-f]{32}$/), expect.not.stringMatching(new RegExp(first.slice(-32)))]);
    const state = { ...news, objectId: "o", appId: "a" } as BlueprintOutputs;
    expect(await blueprintProvider.diff!("o", state, (await blueprintProvider.check!(state, news)).inputs as BlueprintInputs)).toMatchObject({ changes: false });

    // A create an earlier version started, whose run ended before Pulumi recorded it: its blueprint carries the base alone.
    const made = (await t.graph.call<{ id: string }>("POST", BLUEPRINTS, { agentId: true, body: { displayName: "Made before nonces", tags: [base], "sponsors@odata.bind": [userUrl(DEFAULT_IDS.sponsorId)] } })).body;
    const { id } = await blueprintProvider.create!(await blueprintInputs(t, { adoptionTag: base }));
    expect(id).toBe(made.id);
  });

  it("a blueprint the provisioner made is adopted whoever else owns it: owners do not decide, createdByAppId does", async () => {
    const inputs = await blueprintInputs(t);
    const made = (
      await t.graph.call<{ id: string }>("POST", BLUEPRINTS, {
        agentId: true,
        body: { displayName: "Made by the provisioner", tags: [inputs.adoptionTag], "sponsors@odata.bind": [userUrl(DEFAULT_IDS.sponsorId)], "owners@odata.bind": [userUrl(SECOND_SPONSOR)] },
      })
    ).body;
    const { id } = await blueprintProvider.create!(inputs);
    expect(id).toBe(made.id);
    expect(store().application(id)).toMatchObject({ displayName: inputs.displayName, createdByAppId: DEFAULT_IDS.provisionerAppId });
  });

  it("the blueprint's principal, made by another application: refused, and the blueprint's own create goes no further", async () => {
    const blueprint = await createBlueprint(t);
    const planted = await plant("/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal", { appId: blueprint.appId });
    const from = t.emulator.requests.length;
    const message = await refusal(blueprintPrincipalProvider.create!(await principalInputs(t, blueprint)));
    expect(message).toContain(`blueprint principal "${blueprint.displayName}" (${planted.id}) was created by application ${planter.appId}`);
    expect(message).toContain(`found it as the principal of blueprint ${blueprint.appId}`);
    expect(message).toContain(`its owners: application "Another app" (appId ${planter.appId}, principal ${planter.principalId})`);
    expect(writes(from)).toEqual([]);
  });

  it("an agent identity of the stack's name under its blueprint, made by another application: refused; its sponsors untouched", async () => {
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const inputs = await identityInputs(t, blueprint, principal, { displayName: `Agent ${randomUUID()}` });
    const planted = await plant("/v1.0/servicePrincipals/microsoft.graph.agentIdentity", {
      displayName: inputs.displayName,
      agentIdentityBlueprintId: blueprint.appId,
      "sponsors@odata.bind": [userUrl(SECOND_SPONSOR)],
    });
    const from = t.emulator.requests.length;
    const message = await refusal(agentIdentityProvider.create!(inputs));
    expect(message).toContain(`agent identity ${JSON.stringify(inputs.displayName)} (${planted.id}) was created by application ${planter.appId}`);
    expect(message).toContain(`found it by its name and blueprint`);
    expect(writes(from)).toEqual([]);
    expect(store().servicePrincipal(planted.id)?.sponsors).toEqual([SECOND_SPONSOR]);
  });

  it("an agent user of the stack's UPN under an agent identity another application made: refused, naming that identity", async () => {
    const blueprint = await createBlueprint(t);
    await createPrincipal(t, blueprint);
    const identity = await plant("/v1.0/servicePrincipals/microsoft.graph.agentIdentity", {
      displayName: "Planted identity",
      agentIdentityBlueprintId: blueprint.appId,
      "sponsors@odata.bind": [userUrl(SECOND_SPONSOR)],
    });
    const inputs = await userInputs(t, { identityId: identity.id } as Parameters<typeof userInputs>[1]);
    const user = await plant("/v1.0/users/microsoft.graph.agentUser", {
      accountEnabled: true,
      displayName: "Planted user",
      mailNickname: inputs.mailNickname,
      userPrincipalName: inputs.userPrincipalName,
      identityParentId: identity.id,
    });
    const from = t.emulator.requests.length;
    const message = await refusal(agentUserProvider.create!(inputs));
    expect(message).toContain(`agent user create failed: agent identity "Planted identity" (${identity.id}) was created by application ${planter.appId}`);
    expect(message).toContain(`found it as the parent of agent user ${user.id}, which holds the UPN ${inputs.userPrincipalName}`);
    expect(writes(from)).toEqual([]);
    expect(store().user(user.id)).toMatchObject({ displayName: "Planted user" });
  });

  it("a blueprint the provisioner created, whose create answer was lost while lists lagged, is adopted: one object, no duplicate", async () => {
    const inputs = await blueprintInputs(t, { consistencyWindowMs: 0 });
    store().listLagMs = parseFaultSpec("list-lag=60").listLagMs!;
    t.emulator.faults.set({ lose: 1, target: "graph", method: "POST" });
    const clock = waitDrivenClock(t);
    const from = t.emulator.requests.length;
    const { object, adopted } = await createOrAdopt(graphSession(inputs, clock), blueprintSteps(inputs));
    expect(adopted).toBe(true);
    const tagged = store().applications().filter((a) => a.tags?.includes(inputs.adoptionTag));
    expect(tagged.map((a) => [a.id, a.createdByAppId])).toEqual([[object.id, DEFAULT_IDS.provisionerAppId]]);
    expect(graphCalls(t, from).filter((c) => c.startsWith(`POST ${BLUEPRINTS} `))).toEqual([`POST ${BLUEPRINTS} 201 lost`]);
  });
});
