/**
 * A tenant whose policy refuses passwords and certificates on agent identity
 * blueprints (Entra's create-blueprint page: only some tenants accept them):
 * the emulator refuses the secret azuread would add, the Graph error's hint
 * names `credential: managedIdentity` as the fix, a managed identity's
 * federated credential still goes on, and doctor names the same fix for a
 * blueprint left without the secret or certificate its outputs use.
 */
import { GraphError } from "../../../lib/graph-client";
import { TOKEN_EXCHANGE_AUDIENCE } from "../../../lib/entra-rules";
import { checkCredentials } from "../../../probes/doctor/credentials";
import { createBlueprint, startTenant, type Tenant } from "./tenant";

describe("a tenant that refuses secrets and certificates on blueprints", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
    t.emulator.store.blueprintSecretsRefused = true;
  });
  afterAll(() => t.close());

  it("refuses the blueprint's secret with a 400 whose hint names credential: managedIdentity, and takes a federated credential", async () => {
    const blueprint = await createBlueprint(t);
    const app = `/v1.0/applications/${blueprint.objectId}`;
    const err = await t.graph.call("POST", `${app}/addPassword`, { body: { passwordCredential: { displayName: "kit" } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphError);
    expect({ status: (err as GraphError).status, code: (err as GraphError).code }).toEqual({ status: 400, code: "Request_BadRequest" });
    expect((err as GraphError).hint).toContain("`credential: managedIdentity`");
    expect(t.emulator.store.application(blueprint.objectId)!.passwordCredentials).toEqual([]);
    const fic = { name: "kit", issuer: `${t.common.authorityUrl}/${t.emulator.store.tenantId}/v2.0`, subject: "mi-principal", audiences: [TOKEN_EXCHANGE_AUDIENCE] };
    expect((await t.graph.call("POST", `${app}/federatedIdentityCredentials`, { body: fic })).status).toBe(201);
  });

  it.each([
    ["secret", { kind: "secret", secret: "emu~secret" }],
    ["certificate", { kind: "certificate" }],
  ] as const)("doctor names credential: managedIdentity when the blueprint has no %s at all", (_mode, inUse) => {
    const check = checkCredentials({ passwords: [], certificates: [], federated: [] }, inUse as never, 30, Date.now(), TOKEN_EXCHANGE_AUDIENCE);
    expect(check.status).toBe("failed");
    expect(check.fix).toContain("`credential: managedIdentity`");
  });
});
