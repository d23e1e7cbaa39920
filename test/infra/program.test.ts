import * as pulumi from "@pulumi/pulumi";
import { selfSignedCertificate } from "../../emulator/certificate";
import { AGENT_USER_KIT_TYPE, AgentUserKit, type StackOutputs } from "../../infra/components/agent-user-kit";
import { OPT_IN_OUTPUT_KEYS, STACK_OUTPUT_KEYS } from "../../lib/stack-outputs";
import { BLUEPRINT_TYPE } from "../../infra/components/blueprint";
import { GRANT_TYPE } from "../../infra/components/grant";
import type { RawConfig } from "../../infra/config";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { PACKAGE_VERSION as PROVIDER_VERSION } from "../../lib/version";
import { AZURE, DYNAMIC, IDS, installMocks, only, valueOf, type Lookup, type Registration } from "./program-harness";

const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const BASE: RawConfig = {
  userDomain: "contoso.onmicrosoft.com",
  blueprintName: "Kit Blueprint",
  agentIdentityName: "Kit Agent",
  agentUserName: "kit-agent",
  sponsors: [SPONSOR],
};

// The names `agent-user token --outputs` reads: the program must export exactly these.
const ALL_OUTPUTS: ReadonlyArray<keyof StackOutputs> = [...STACK_OUTPUT_KEYS.filter((key) => !(OPT_IN_OUTPUT_KEYS as readonly string[]).includes(key)), "agents"];

interface Run {
  kit: AgentUserKit;
  registrations: Registration[];
  lookups: Lookup[];
  outputs: Record<string, unknown>;
}

/** Runs the top-level component under mocks until every output has resolved. */
async function run(raw: RawConfig): Promise<Run> {
  const { registrations, lookups } = await installMocks();
  const kit = new AgentUserKit("kit", { stackConfig: { ...BASE, ...raw } });
  const outputs: Record<string, unknown> = {};
  for (const [key, output] of Object.entries(kit.outputs)) outputs[key] = await valueOf(output as pulumi.Output<unknown>);
  return { kit, registrations, lookups, outputs };
}

describe("the program in secret mode", () => {
  let result: Run;
  beforeAll(async () => {
    result = await run({});
  });

  it("registers the blueprint's and the grant's components, each a child of the top-level component", () => {
    const top = only(result.registrations, AGENT_USER_KIT_TYPE);
    for (const type of [BLUEPRINT_TYPE, GRANT_TYPE]) {
      expect(only(result.registrations, type).parent).toBe(top.urn);
    }
  });

  it("makes every Graph object with its own dynamic resource, parented by its component (the kit's own for identity and user) and named after it", () => {
    const parentOf = (type: string) => only(result.registrations, type).urn;
    expect(only(result.registrations, DYNAMIC.blueprint)).toMatchObject({ parent: parentOf(BLUEPRINT_TYPE), name: "kit-blueprint" });
    expect(only(result.registrations, DYNAMIC.principal)).toMatchObject({ parent: parentOf(BLUEPRINT_TYPE), name: "kit-blueprint-principal" });
    expect(only(result.registrations, AZURE.password)).toMatchObject({ parent: parentOf(BLUEPRINT_TYPE), name: "kit-blueprint-secret" });
    expect(only(result.registrations, DYNAMIC.identity)).toMatchObject({ parent: parentOf(AGENT_USER_KIT_TYPE), name: "kit-identity" });
    expect(only(result.registrations, DYNAMIC.user)).toMatchObject({ parent: parentOf(AGENT_USER_KIT_TYPE), name: "kit-user" });
    expect(only(result.registrations, AZURE.grant)).toMatchObject({ parent: parentOf(GRANT_TYPE), name: "kit-grant" });
    for (const r of result.registrations) expect(r.name.startsWith("kit")).toBe(true);
  });

  it("gives each dynamic resource the Graph endpoint, replication window and package version", () => {
    for (const type of Object.values(DYNAMIC)) {
      expect(only(result.registrations, type).inputs).toMatchObject({
        graphUrl: "https://graph.microsoft.com",
        authorityUrl: "https://login.microsoftonline.com",
        consistencyWindowMs: 120_000,
        providerVersion: PROVIDER_VERSION,
      });
      expect(typeof only(result.registrations, type).inputs.__provider).toBe("string");
    }
  });

  it("passes each Graph object what the next one needs", () => {
    expect(only(result.registrations, DYNAMIC.blueprint).inputs).toMatchObject({
      displayName: "Kit Blueprint",
      sponsors: [SPONSOR],
      adoptionTag: "agent-user-kit:agent-user-kit/test/kit-blueprint",
    });
    expect(only(result.registrations, DYNAMIC.principal).inputs).toMatchObject({ appId: IDS.blueprintAppId, blueprintObjectId: IDS.blueprintObjectId });
    expect(only(result.registrations, DYNAMIC.identity).inputs).toMatchObject({
      displayName: "Kit Agent",
      blueprintAppId: IDS.blueprintAppId,
      blueprintPrincipalId: IDS.blueprintPrincipalId,
      sponsors: [SPONSOR],
    });
    expect(only(result.registrations, DYNAMIC.user).inputs).toMatchObject({
      displayName: "kit-agent",
      mailNickname: "kit-agent",
      userPrincipalName: "kit-agent@contoso.onmicrosoft.com",
      identityParentId: IDS.agentIdentityId,
    });
  });

  it("adds a client secret to the blueprint (and no other credential)", () => {
    expect(only(result.registrations, AZURE.password).inputs).toMatchObject({ applicationId: `/applications/${IDS.blueprintObjectId}` });
    for (const type of [AZURE.federated, AZURE.certificate, AZURE.userAssignedIdentity]) {
      expect(result.registrations.some((r) => r.type === type)).toBe(false);
    }
  });

  it("grants the agent identity the scopes on behalf of the agent user, on the looked-up resource principal", () => {
    expect(only(result.registrations, AZURE.grant).inputs).toEqual({
      servicePrincipalObjectId: IDS.agentIdentityId,
      userObjectId: IDS.agentUserId,
      resourceServicePrincipalObjectId: IDS.graphServicePrincipalId,
      claimValues: ["Chat.Create", "Chat.ReadWrite", "ChatMessage.Send", "User.Read"],
    });
    expect(result.lookups).toContainEqual({ token: "azuread:index/getServicePrincipal:getServicePrincipal", inputs: { clientId: MICROSOFT_GRAPH_APP_ID } });
    expect(result.registrations.some((r) => r.type === "azuread:index/servicePrincipal:ServicePrincipal")).toBe(false);
    expect(result.outputs.grantScopes).toBe("Chat.Create Chat.ReadWrite ChatMessage.Send User.Read");
  });

  it("orders principal → identity → user → grant through recorded dependencies", () => {
    const principal = only(result.registrations, DYNAMIC.principal);
    const identity = only(result.registrations, DYNAMIC.identity);
    const user = only(result.registrations, DYNAMIC.user);
    const grant = only(result.registrations, AZURE.grant);
    expect(identity.dependencies).toContain(principal.urn);
    expect(user.dependencies).toContain(identity.urn);
    expect(grant.dependencies).toEqual(expect.arrayContaining([identity.urn, user.urn]));
    const order = [principal, identity, user, grant].map((r) => result.registrations.indexOf(r));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("exports every output of secret mode, the secret as a Pulumi secret", async () => {
    expect(Object.keys(result.outputs).sort()).toEqual(ALL_OUTPUTS.filter((k) => k !== "managedIdentityClientId").sort());
    expect(result.outputs).toMatchObject({
      tenantId: IDS.tenantId,
      authorityUrl: "https://login.microsoftonline.com",
      graphUrl: "https://graph.microsoft.com",
      resourceUrl: "https://graph.microsoft.com",
      blueprintAppId: IDS.blueprintAppId,
      blueprintObjectId: IDS.blueprintObjectId,
      blueprintPrincipalId: IDS.blueprintPrincipalId,
      blueprintClientSecret: IDS.generatedSecret,
      agentIdentityId: IDS.agentIdentityId,
      agentUserId: IDS.agentUserId,
      agentUserPrincipalName: "kit-agent@contoso.onmicrosoft.com",
      grantId: "grant-id",
    });
    expect(await pulumi.isSecret(result.kit.outputs.blueprintClientSecret!)).toBe(true);
    expect(await pulumi.isSecret(result.kit.outputs.agentUserId)).toBe(false);
  });
});

describe("the program in managedIdentity mode", () => {
  it("creates a user-assigned identity and a federated credential trusting it when none is given", async () => {
    const { registrations, outputs } = await run({ credential: "managedIdentity", resourceGroupName: "rg-agents", location: "westeurope" });
    const identity = only(registrations, AZURE.userAssignedIdentity);
    expect(identity.inputs).toMatchObject({ resourceGroupName: "rg-agents", location: "westeurope" });
    expect(only(registrations, AZURE.federated).inputs).toEqual({
      applicationId: `/applications/${IDS.blueprintObjectId}`,
      displayName: "kit-blueprint-managed-identity",
      issuer: `https://login.microsoftonline.com/${IDS.tenantId}/v2.0`,
      subject: IDS.newIdentityPrincipalId,
      audiences: ["api://AzureADTokenExchange"],
    });
    expect(only(registrations, AZURE.federated).dependencies).toContain(identity.urn);
    expect(registrations.some((r) => r.type === AZURE.password)).toBe(false);
    expect(Object.keys(outputs).sort()).toEqual(ALL_OUTPUTS.filter((k) => k !== "blueprintClientSecret").sort());
    expect(outputs.managedIdentityClientId).toBe(IDS.newIdentityClientId);
  });

  it.each([
    ["https://login.microsoftonline.us", "api://AzureADTokenExchangeUSGov"],
    ["https://login.partner.microsoftonline.cn", "api://AzureADTokenExchangeChina"],
  ])("with the authority %s, gives the federated credential the audience %s", async (authorityUrl, audience) => {
    const { registrations, outputs } = await run({ credential: "managedIdentity", managedIdentityPrincipalId: "e1000000-0000-0000-0000-000000000001", authorityUrl });
    expect(only(registrations, AZURE.federated).inputs.audiences).toEqual([audience]);
    expect(outputs.tokenExchangeAudience).toBe(audience);
  });

  it("gives the federated credential, and the tokenExchangeAudience output hop 1 reads, the configured audience over the authority's cloud's", async () => {
    const { registrations, outputs } = await run({
      credential: "managedIdentity",
      managedIdentityPrincipalId: "e1000000-0000-0000-0000-000000000001",
      authorityUrl: "https://login.microsoftonline.us",
      tokenExchangeAudience: "api://AzureADTokenExchange",
    });
    expect(only(registrations, AZURE.federated).inputs.audiences).toEqual(["api://AzureADTokenExchange"]);
    expect(outputs.tokenExchangeAudience).toBe("api://AzureADTokenExchange");
  });

  it("trusts an existing identity without creating one, and exports its client id from a lookup", async () => {
    const existing = "e1000000-0000-0000-0000-000000000001";
    const { registrations, outputs } = await run({ credential: "managedIdentity", managedIdentityPrincipalId: existing });
    expect(registrations.some((r) => r.type === AZURE.userAssignedIdentity)).toBe(false);
    expect(only(registrations, AZURE.federated).inputs).toMatchObject({ subject: existing });
    expect(outputs.managedIdentityClientId).toBe(IDS.existingIdentityClientId);
  });
});

describe("the program in certificate mode", () => {
  it("uploads the public certificate to the blueprint, valid until the certificate expires", async () => {
    const cert = selfSignedCertificate({ commonName: "kit test" });
    const { registrations, outputs } = await run({ credential: "certificate", certificatePem: cert.certificatePem });
    expect(only(registrations, AZURE.certificate).inputs).toEqual({
      applicationId: `/applications/${IDS.blueprintObjectId}`,
      type: "AsymmetricX509Cert",
      encoding: "pem",
      // azuread marks the certificate value secret; the mock sees it wrapped.
      value: expect.objectContaining({ value: cert.certificatePem.trim() }),
      endDate: new Date(cert.certificate.validTo).toISOString(),
    });
    expect(Object.keys(outputs)).not.toContain("blueprintClientSecret");
    expect(Object.keys(outputs)).not.toContain("managedIdentityClientId");
  });
});
