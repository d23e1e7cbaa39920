import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import { agentUserProvider } from "../../../infra/providers/agent-user";
import { blueprintProvider, type BlueprintOutputs } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
import {
  blueprintInputs,
  createBlueprint,
  createIdentityChain,
  createPrincipal,
  graphCalls,
  identityInputs,
  principalInputs,
  SECOND_SPONSOR,
  startTenant,
  userInputs,
  type Tenant,
} from "./tenant";

/**
 * A create whose answer is lost after Graph committed it (the emulator's
 * `lose` fault: processed, then the connection is destroyed) must be adopted
 * by the retry, never made twice. Each case counts the objects in the store.
 */
describe("lost create answers over HTTP", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());
  afterEach(() => t.emulator.faults.reset());

  const loseNextPost = () => t.emulator.faults.set({ lose: 1, target: "graph", method: "POST" });
  const posts = (from: number, path: string) => graphCalls(t, from).filter((c) => c.startsWith(`POST ${path} `));
  const store = () => t.emulator.store;

  it("blueprint: the retry finds the committed blueprint by its tag and adopts it", async () => {
    const inputs = await blueprintInputs(t);
    const from = t.emulator.requests.length;
    loseNextPost();
    const { id } = await blueprintProvider.create!(inputs);
    const mine = store().applications().filter((a) => a.tags?.includes(inputs.adoptionTag));
    expect(mine.map((a) => a.id)).toEqual([id]);
    expect(posts(from, "/v1.0/applications/microsoft.graph.agentIdentityBlueprint")).toEqual([
      "POST /v1.0/applications/microsoft.graph.agentIdentityBlueprint 201 lost",
    ]);
  });

  it("blueprint principal: adopted by appId", async () => {
    const blueprint = await createBlueprint(t);
    const from = t.emulator.requests.length;
    loseNextPost();
    const { id } = await blueprintPrincipalProvider.create!(await principalInputs(t, blueprint));
    expect(store().servicePrincipals().filter((sp) => sp.appId === blueprint.appId).map((sp) => sp.id)).toEqual([id]);
    expect(posts(from, "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal")).toHaveLength(1);
  });

  it("agent identity: adopted by name within its blueprint", async () => {
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const from = t.emulator.requests.length;
    loseNextPost();
    const { id } = await agentIdentityProvider.create!(await identityInputs(t, blueprint, principal));
    const identities = store().agentIdentitiesOf(blueprint.appId);
    expect(identities.map((sp) => sp.id)).toEqual([id]);
    expect(posts(from, "/v1.0/servicePrincipals/microsoft.graph.agentIdentity")).toHaveLength(1);
  });

  it("agent user: adopted by UPN", async () => {
    const { identity } = await createIdentityChain(t);
    const from = t.emulator.requests.length;
    loseNextPost();
    const { id } = await agentUserProvider.create!(await userInputs(t, identity));
    expect(store().users().filter((u) => u.identityParentId === identity.identityId).map((u) => u.id)).toEqual([id]);
    expect(posts(from, "/v1.0/users/microsoft.graph.agentUser")).toHaveLength(1);
  });

  it("a re-run after a crash adopts the earlier run's blueprint and brings its name and sponsors back to the inputs", async () => {
    const first: BlueprintOutputs = await createBlueprint(t);
    store().updateApplication(first.objectId, { displayName: "Edited meanwhile", sponsors: [SECOND_SPONSOR] });
    const { id } = await blueprintProvider.create!(await blueprintInputs(t, { adoptionTag: first.adoptionTag }));
    expect(id).toBe(first.objectId);
    expect(store().application(id)).toMatchObject({ displayName: first.displayName, sponsors: first.sponsors });
  });

  it("throttling on the way is waited out, and still only one object is made", async () => {
    const inputs = await blueprintInputs(t);
    const from = t.emulator.requests.length;
    t.emulator.faults.set({ throttle: 3, retryAfterS: 0, target: "graph" });
    const { id } = await blueprintProvider.create!(inputs);
    expect(graphCalls(t, from).filter((c) => c.endsWith(" 429"))).toHaveLength(3);
    expect(store().applications().filter((a) => a.tags?.includes(inputs.adoptionTag)).map((a) => a.id)).toEqual([id]);
  });
});
