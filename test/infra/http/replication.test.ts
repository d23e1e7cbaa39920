import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import { blueprintProvider } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
import {
  blueprintInputs,
  createBlueprint,
  createIdentity,
  createPrincipal,
  createUser,
  graphCalls,
  identityInputs,
  principalInputs,
  provisionerRoles,
  revoke,
  setProvisionerRoles,
  startTenant,
  type Tenant,
} from "./tenant";

/**
 * Entra's replication lag between dependent creates: a new object is not
 * found by id for a while (the emulator's store.replicationLagMs). A create
 * waits for its parent within the consistency window; a 400 or 403 is final.
 */
describe("replication lag between dependent creates", () => {
  const LAG_MS = 400;
  const WINDOW_MS = 5_000;
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
    t.common.consistencyWindowMs = WINDOW_MS;
  });
  afterAll(() => t.close());
  beforeEach(() => {
    t.emulator.store.replicationLagMs = LAG_MS;
  });
  afterEach(() => t.emulator.faults.reset());

  const notFound = (from: number) => graphCalls(t, from).filter((c) => / 404$/.test(c));

  it("creates blueprint, principal, identity and user back to back, each waiting out its parent's lag", async () => {
    const from = t.emulator.requests.length;
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const identity = await createIdentity(t, blueprint, principal);
    const user = await createUser(t, identity);
    expect(t.emulator.store.user(user.userId)).toMatchObject({ identityParentId: identity.identityId });
    // Each parent was read by id while it was still replicating, and the read was retried until it was found.
    expect(new Set(notFound(from))).toEqual(
      new Set([
        `GET /v1.0/applications/${blueprint.objectId}/microsoft.graph.agentIdentityBlueprint 404`,
        `GET /v1.0/servicePrincipals/${principal.principalId}/microsoft.graph.agentIdentityBlueprintPrincipal 404`,
        `GET /v1.0/servicePrincipals/${identity.identityId}/microsoft.graph.agentIdentity 404`,
      ]),
    );
  });

  it("adopts a blueprint whose create answer was lost, reading it while it is still replicating", async () => {
    // Longer than the provider's first backoff (at most 1 s), so the adoption's reads meet the lag.
    t.emulator.store.replicationLagMs = 2_000;
    const inputs = await blueprintInputs(t);
    const from = t.emulator.requests.length;
    t.emulator.faults.set({ lose: 1, target: "graph", method: "POST" });
    const { id } = await blueprintProvider.create!(inputs);
    expect(t.emulator.store.applications().filter((a) => a.tags?.includes(inputs.adoptionTag)).map((a) => a.id)).toEqual([id]);
    expect(notFound(from)).toContain(`GET /v1.0/applications/${id}/microsoft.graph.agentIdentityBlueprint/sponsors 404`);
  });

  it("with no window, a parent still replicating fails the create at once, naming the call and Graph's code", async () => {
    const blueprint = await createBlueprint(t);
    const inputs = await principalInputs(t, blueprint, { consistencyWindowMs: 0 });
    await expect(blueprintPrincipalProvider.create!(inputs)).rejects.toThrow(
      `agent identity blueprint principal create failed: Graph GET /v1.0/applications/${blueprint.objectId}/microsoft.graph.agentIdentityBlueprint: Request_ResourceNotFound (HTTP 404)`,
    );
  });

  it("does not retry a 400: an unknown sponsor fails after one POST", async () => {
    t.emulator.store.replicationLagMs = 0;
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const from = t.emulator.requests.length;
    const inputs = await identityInputs(t, blueprint, principal, { sponsors: ["5e000000-0000-4000-8000-000000000404"] });
    await expect(agentIdentityProvider.create!(inputs)).rejects.toThrow(/Request_BadRequest \(HTTP 400\)/);
    expect(graphCalls(t, from).filter((c) => c.startsWith("POST "))).toEqual(["POST /v1.0/servicePrincipals/microsoft.graph.agentIdentity 400"]);
  });

  it("does not retry a 403: a provisioner without the create permission fails after one POST", async () => {
    const saved = provisionerRoles(t);
    revoke(t, "AgentIdentityBlueprint.Create");
    try {
      const from = t.emulator.requests.length;
      await expect(blueprintProvider.create!(await blueprintInputs(t))).rejects.toThrow(/Authorization_RequestDenied \(HTTP 403\)/);
      expect(graphCalls(t, from).filter((c) => c.startsWith("POST "))).toEqual(["POST /v1.0/applications/microsoft.graph.agentIdentityBlueprint 403"]);
    } finally {
      setProvisionerRoles(t, saved);
    }
  });
});
