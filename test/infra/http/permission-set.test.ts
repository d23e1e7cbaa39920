/**
 * The provisioner's permission set against the emulated Graph, which
 * authorizes from Microsoft's permission tables: `pulumi up`, a sponsor and
 * name change, `refresh` and `destroy` (the dynamic providers, and the calls
 * the azuread resources make, done here by hand) all pass holding exactly the
 * set; with any one permission of it taken away, the first call that needs it
 * fails with 403 Authorization_RequestDenied, and the error names that permission.
 */
import { randomUUID } from "node:crypto";
import { agentIdentityProvider, type AgentIdentityOutputs } from "../../../infra/providers/agent-identity";
import { agentUserProvider, type AgentUserOutputs } from "../../../infra/providers/agent-user";
import { blueprintProvider, type BlueprintOutputs } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider, type BlueprintPrincipalOutputs } from "../../../infra/providers/blueprint-principal";
import { selfSignedCertificate } from "../../../emulator/certificate";
import { MICROSOFT_GRAPH_APP_ID } from "../../../lib/entra-rules";
import { GraphError } from "../../../lib/graph-client";
import { GRAPH_OPERATIONS, operationOf, PROVISIONER_PERMISSIONS, PROVISIONING_OPERATIONS } from "../../../lib/graph-permissions";
import { blueprintInputs, identityInputs, otherApp, principalInputs, SECOND_SPONSOR, setProvisionerRoles, startTenant, userInputs, type Tenant } from "./tenant";

const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
const PRINCIPALS = "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal";
const IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";

/** Every provisioning call the kit and azuread make for one agent, from create to delete. */
async function lifecycle(t: Tenant): Promise<void> {
  const created = <T>(p: Promise<{ outs?: unknown }>) => p.then((r) => r.outs as T);
  const blueprint = await created<BlueprintOutputs>(blueprintProvider.create!(await blueprintInputs(t, { displayName: `Blueprint ${randomUUID()}` })));
  const principal = await created<BlueprintPrincipalOutputs>(blueprintPrincipalProvider.create!(await principalInputs(t, blueprint)));
  const identity = await created<AgentIdentityOutputs>(agentIdentityProvider.create!(await identityInputs(t, blueprint, principal, { displayName: `Agent ${randomUUID()}` })));
  const user = await created<AgentUserOutputs>(agentUserProvider.create!(await userInputs(t, identity)));

  await refusedAdoptions(t, blueprint, principal);

  // What azuread does: the blueprint's secret, certificate and federated credential, Graph's service principal, the grant.
  const app = `/v1.0/applications/${blueprint.objectId}`;
  const { keyId } = (await t.graph.call<{ keyId: string }>("POST", `${app}/addPassword`, { body: { passwordCredential: { displayName: "kit" } } })).body;
  await t.graph.call("GET", app);
  const certificate = { type: "AsymmetricX509Cert", usage: "Verify", key: Buffer.from(selfSignedCertificate({ commonName: "kit" }).certificatePem).toString("base64") };
  await t.graph.call("PATCH", app, { body: { "@odata.type": "#microsoft.graph.application", keyCredentials: [certificate] } });
  const fic = { name: "kit", issuer: "https://login.microsoftonline.com/t/v2.0", subject: randomUUID(), audiences: ["api://AzureADTokenExchange"] };
  await t.graph.call("POST", `${app}/federatedIdentityCredentials`, { body: fic });
  await t.graph.list(`${app}/federatedIdentityCredentials`);
  await t.graph.call("GET", `${app}/federatedIdentityCredentials/kit`);
  const [graphSp] = await t.graph.list<{ id: string }>(`/v1.0/servicePrincipals?$filter=appId eq '${MICROSOFT_GRAPH_APP_ID}'&$select=id`);
  await t.graph.call("GET", `/v1.0/servicePrincipals/${graphSp!.id}`);
  await t.graph.call("GET", `/beta/servicePrincipals/${graphSp!.id}?$select=samlMetadataUrl`);
  const grantBody = { clientId: identity.identityId, consentType: "Principal", principalId: user.userId, resourceId: graphSp!.id, scope: "User.Read" };
  const grant = (await t.graph.call<{ id: string }>("POST", "/v1.0/oauth2PermissionGrants", { body: grantBody })).body;
  await t.graph.call("GET", `/v1.0/oauth2PermissionGrants/${grant.id}`);

  // A change of names and sponsors, then refresh.
  const sponsors = [SECOND_SPONSOR];
  const blueprint2 = (await blueprintProvider.update!(blueprint.objectId, blueprint, { ...blueprint, displayName: `${blueprint.displayName} 2`, sponsors })).outs as BlueprintOutputs;
  const identity2 = (await agentIdentityProvider.update!(identity.identityId, identity, { ...identity, displayName: `${identity.displayName} 2`, sponsors })).outs as AgentIdentityOutputs;
  const user2 = (await agentUserProvider.update!(user.userId, user, { ...user, displayName: "Renamed agent" })).outs as AgentUserOutputs;
  await t.graph.call("PATCH", `/v1.0/oauth2PermissionGrants/${grant.id}`, { body: { scope: "User.Read Chat.Read" } });
  await blueprintProvider.read!(blueprint.objectId, blueprint2);
  await blueprintPrincipalProvider.read!(principal.principalId, principal);
  await agentIdentityProvider.read!(identity.identityId, identity2);
  await agentUserProvider.read!(user.userId, user2);

  // destroy, in reverse dependency order.
  await t.graph.call("DELETE", `/v1.0/oauth2PermissionGrants/${grant.id}`);
  await t.graph.call("DELETE", `${app}/federatedIdentityCredentials/kit`);
  await t.graph.call("POST", `${app}/removePassword`, { body: { keyId } });
  await agentUserProvider.delete!(user.userId, user2);
  await agentIdentityProvider.delete!(identity.identityId, identity2);
  await blueprintPrincipalProvider.delete!(principal.principalId, principal);
  await blueprintProvider.delete!(blueprint.objectId, blueprint2);
}

/**
 * Creates that meet objects another application planted, which they refuse
 * naming the objects' owners: the owners reads are provisioning calls too.
 * The planted objects then go, through the store, so destroy leaves nothing.
 */
async function refusedAdoptions(t: Tenant, blueprint: BlueprintOutputs, principal: BlueprintPrincipalOutputs): Promise<void> {
  const planter = otherApp(t, ["AgentIdentityBlueprint.Create", "AgentIdentityBlueprintPrincipal.Create", "AgentIdentity.Create.All"]);
  const plant = async (path: string, body: Record<string, unknown>) => (await planter.graph.call<{ id: string; appId: string }>("POST", path, { agentId: true, body })).body;
  const sponsors = [`${t.emulator.httpUrl}/v1.0/users/${SECOND_SPONSOR}`];
  const refused = (create: Promise<unknown>) => expect(create).rejects.toThrow(`was created by application ${planter.appId}`);
  // Carrying the stack's whole tag, its nonce included, as if it had leaked: the one blueprint a create refuses.
  const inputs = await blueprintInputs(t);
  const planted = await plant(BLUEPRINTS, { displayName: "Planted", tags: [inputs.adoptionTag], "sponsors@odata.bind": sponsors });
  await refused(blueprintProvider.create!(inputs));
  await plant(PRINCIPALS, { appId: planted.appId });
  await refused(blueprintPrincipalProvider.create!(await principalInputs(t, { ...blueprint, appId: planted.appId, objectId: planted.id })));
  const name = `Planted ${randomUUID()}`;
  await plant(IDENTITIES, { displayName: name, agentIdentityBlueprintId: blueprint.appId, "sponsors@odata.bind": sponsors });
  await refused(agentIdentityProvider.create!(await identityInputs(t, blueprint, principal, { displayName: name })));
  t.emulator.store.deleteApplication(planted.id);
}

/** The Graph refusal behind a provider's error or a direct call's. */
function refusal(err: unknown): { status?: number; code?: string; text: string } {
  const graph = err instanceof GraphError ? err : err instanceof Error && err.cause instanceof GraphError ? err.cause : undefined;
  return { status: graph?.status, code: graph?.code, text: `${String((err as Error).message)} ${graph?.hint ?? ""}` };
}

describe("the provisioner's permission set", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());

  it("is enough for every call of up, an update, refresh and destroy, which between them make every served provisioning operation", async () => {
    setProvisionerRoles(t, [...PROVISIONER_PERMISSIONS]);
    const from = t.emulator.requests.length;
    await lifecycle(t);
    const requests = t.emulator.requests.slice(from);
    const made = new Set(requests.map((r) => operationOf(r.method, r.path.split("?")[0]!)));
    // Every call was allowed, the owners reads of the refusals included (a refusal names owners it could not read, and still stands).
    expect(requests.filter((r) => r.status === 403)).toEqual([]);
    expect(PROVISIONING_OPERATIONS.filter((id) => !made.has(id))).toEqual([]);
    expect(t.emulator.store.applications("agentIdentityBlueprint")).toEqual([]);
    expect(t.emulator.store.users("agentUser")).toEqual([]);
  });

  it.each(PROVISIONER_PERMISSIONS)("without %s, the first call that needs it is refused with 403 Authorization_RequestDenied naming it", async (missing) => {
    setProvisionerRoles(t, PROVISIONER_PERMISSIONS.filter((p) => p !== missing));
    const from = t.emulator.requests.length;
    const failure = await lifecycle(t).then(
      () => undefined,
      (err: unknown) => err,
    );
    const { status, code, text } = refusal(failure);
    expect({ status, code, names: text.includes(missing) }).toEqual({ status: 403, code: "Authorization_RequestDenied", names: true });
    // The refused call is one whose row lists the missing permission.
    const refused = t.emulator.requests.slice(from).find((r) => r.status === 403)!;
    const op = operationOf(refused.method, refused.path.split("?")[0]!)!;
    expect([op, GRAPH_OPERATIONS[op].application.includes(missing)]).toEqual([op, true]);
  });

});
