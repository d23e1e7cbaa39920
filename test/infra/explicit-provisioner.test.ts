/**
 * An explicit azuread provider given to AgentUserKit reaches the kit's own
 * Graph resources: each carries the provider's settings as its `provisioner`
 * input, a Pulumi secret. Without one, their inputs are as they were. How the
 * resources use the settings is test/infra/http/explicit-provisioner's.
 */
import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { AgentIdentityBlueprint, AgentUserKit, dynamic } from "../../infra";
import { DYNAMIC, installMocks, valueOf, type Registration } from "./program-harness";

const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const SETTINGS = { tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47", clientId: "0c000000-0000-0000-0000-00000000000c", clientSecret: "explicit-provider-secret" };
/** How the mocks see a Pulumi secret among a resource's inputs. */
const secret = (value: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });

/** Runs a kit under mocks with `opts`; the registrations of its Graph resources. */
async function graphResources(opts: (provider: azuread.Provider) => pulumi.ComponentResourceOptions | undefined): Promise<Registration[]> {
  const { registrations } = await installMocks();
  const provider = new azuread.Provider("ad", SETTINGS);
  const kit = new AgentUserKit(
    "agents",
    { blueprintName: "Research agents", sponsors: [SPONSOR], userDomain: "contoso.onmicrosoft.com", agents: [{ name: "research", userName: "research-agent" }] },
    opts(provider),
  );
  await valueOf(kit.outputs.agents);
  return registrations.filter((r) => Object.values(DYNAMIC).includes(r.type));
}

describe("AgentUserKit with an explicit azuread provider", () => {
  it.each([
    ["providers: [ad]", (ad: azuread.Provider) => ({ providers: [ad] })],
    ["providers: { azuread: ad }", (ad: azuread.Provider) => ({ providers: { azuread: ad } })],
    ["provider: ad", (ad: azuread.Provider) => ({ provider: ad })],
  ])("given as %s, hands its settings, as a secret, to every Graph resource", async (_form, opts) => {
    const resources = await graphResources(opts);
    expect(resources.map((r) => r.type).sort()).toEqual(Object.values(DYNAMIC).sort());
    for (const registration of resources) expect(registration.inputs.provisioner).toEqual(secret(SETTINGS));
  });

  it("without one, no Graph resource has a provisioner input", async () => {
    const resources = await graphResources(() => undefined);
    expect(resources).toHaveLength(4);
    for (const registration of resources) expect(registration.inputs).not.toHaveProperty("provisioner");
  });
});

describe("the provisioner input elsewhere", () => {
  const settings = { graphUrl: "https://graph.microsoft.com", authorityUrl: "https://login.microsoftonline.com", consistencyWindowMs: 0, providerVersion: "0.0.0" };

  it("AgentIdentityBlueprint on its own, given provider: ad, hands the settings to its blueprint and principal", async () => {
    const { registrations } = await installMocks();
    const ad = new azuread.Provider("ad", SETTINGS);
    const blueprint = new AgentIdentityBlueprint(
      "agents-blueprint",
      { displayName: "Research agents", sponsors: [SPONSOR], credential: { mode: "secret" }, tenantId: SETTINGS.tenantId, settings },
      { provider: ad },
    );
    await valueOf(blueprint.principalId);
    const graph = registrations.filter((r) => Object.values(DYNAMIC).includes(r.type));
    expect(graph.map((r) => r.type).sort()).toEqual([DYNAMIC.blueprint, DYNAMIC.principal].sort());
    for (const registration of graph) expect(registration.inputs.provisioner).toEqual(secret(SETTINGS));
  });

  it("a Graph resource registers a provisioner given as a plain value as a secret", async () => {
    const { registrations } = await installMocks();
    const made = new dynamic.Blueprint("bp", { ...settings, displayName: "Research agents", sponsors: [SPONSOR], adoptionTag: "t", provisioner: SETTINGS });
    await valueOf(made.objectId);
    expect(registrations.find((r) => r.type === DYNAMIC.blueprint)!.inputs.provisioner).toEqual(secret(SETTINGS));
  });
});
