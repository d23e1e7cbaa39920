/**
 * Typed Agent ID objects through their base types' URLs, as azuread 6.9.1
 * reaches them (its requests as `pulumi up` sent them to the emulator):
 * `/applications/{id}` read and PATCHed for a blueprint's certificate,
 * `/servicePrincipals/{id}` read on v1.0 and beta, and bodies that name their
 * own type, as HashiCorp's Graph client writes every body.
 */
import { selfSignedCertificate } from "../../emulator/certificate";
import { blueprintWithPrincipal, codeOf, DEFAULT_IDS, messageOf, startDirectory, type Directory } from "./directory-client";

describe("a blueprint through /applications/{id}", () => {
  let d: Directory;
  let blueprint: { id: string; appId: string; principalId: string };
  beforeAll(async () => {
    d = await startDirectory();
    blueprint = await blueprintWithPrincipal(d);
  });
  afterAll(() => d.close());
  const keys = () => d.emulator.store.application(blueprint.id)!.keyCredentials;
  const patch = (body: unknown) => d.call("PATCH", `/v1.0/applications/${blueprint.id}`, { body });
  /** A keyCredential as azuread's ApplicationCertificate writes it: the PEM text, base64. */
  const upload = (pem: string, keyId: string) => ({ keyId, type: "AsymmetricX509Cert", usage: "Verify", key: Buffer.from(pem).toString("base64") });

  it("reads as the derived type it is, credentials without their values", async () => {
    const read = await d.call("GET", `/v1.0/applications/${blueprint.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ "@odata.type": "#microsoft.graph.agentIdentityBlueprint", id: blueprint.id, appId: blueprint.appId, keyCredentials: [], passwordCredentials: [] });
    expect(String(read.body["@odata.context"])).toMatch(/\$metadata#applications\/\$entity$/);
  });

  it("does not serve a plain application there, nor an id that names nothing", async () => {
    expect((await d.call("GET", `/v1.0/applications/${DEFAULT_IDS.provisionerObjectId}`)).status).toBe(404);
    expect(codeOf(await d.call("GET", "/v1.0/applications/00000000-0000-0000-0000-0000000000aa"))).toBe("Request_ResourceNotFound");
  });

  it("takes a certificate in a keyCredentials PATCH (PEM or DER), keeps one sent back with a null key, and drops one left out", async () => {
    const first = selfSignedCertificate({ commonName: "first", validDays: 10 });
    const second = selfSignedCertificate({ commonName: "second" });
    const firstId = "11111111-1111-4111-8111-111111111111";
    const secondId = "22222222-2222-4222-8222-222222222222";
    // HashiCorp's client names the URL's declared type, and repeats the id.
    expect((await patch({ "@odata.type": "#microsoft.graph.application", id: blueprint.id, keyCredentials: [upload(first.certificatePem, firstId)] })).status).toBe(204);
    expect(keys()).toEqual([expect.objectContaining({ keyId: firstId, key: first.certificate.raw.toString("base64"), endDateTime: new Date(first.certificate.validTo).toISOString() })]);
    const read = await d.call("GET", `/v1.0/applications/${blueprint.id}`);
    expect(read.body.keyCredentials).toEqual([expect.objectContaining({ keyId: firstId, key: null })]);

    const der = { ...upload("", secondId), key: second.certificate.raw.toString("base64"), endDateTime: "2031-01-01T00:00:00Z" };
    const kept = { ...(read.body.keyCredentials as object[])[0], "@odata.type": "#microsoft.graph.keyCredential" };
    expect((await patch({ "@odata.type": "#microsoft.graph.agentIdentityBlueprint", keyCredentials: [kept, der] })).status).toBe(204);
    expect(keys().map((k) => [k.keyId, k.key, k.endDateTime])).toEqual([
      [firstId, first.certificate.raw.toString("base64"), new Date(first.certificate.validTo).toISOString()],
      [secondId, second.certificate.raw.toString("base64"), "2031-01-01T00:00:00.000Z"],
    ]);

    expect((await patch({ keyCredentials: [der] })).status).toBe(204);
    expect(keys().map((k) => k.keyId)).toEqual([secondId]);
  });

  it.each([
    ["a key that is no certificate", { keyCredentials: [{ keyId: "33333333-3333-4333-8333-333333333333", type: "AsymmetricX509Cert", usage: "Verify", key: "bm90IGEgY2VydA==" }] }, "key"],
    ["a new keyId with a null key", { keyCredentials: [{ keyId: "44444444-4444-4444-8444-444444444444", type: "AsymmetricX509Cert", usage: "Verify", key: null }] }, "key"],
    ["a kind the kit never uploads", { keyCredentials: [{ type: "Symmetric", usage: "Sign", key: "AAAA" }] }, "type"],
  ])("refuses %s with Graph's 400, changing nothing", async (_case, body, property) => {
    const before = structuredClone(keys());
    const answer = await patch(body);
    expect([answer.status, codeOf(answer), messageOf(answer)]).toEqual([400, "Request_BadRequest", `Invalid value specified for property '${property}' of resource 'Application'.`]);
    expect(keys()).toEqual(before);
  });

  it("refuses another object's id as the read-only property it is, changing nothing", async () => {
    const before = structuredClone(keys());
    const answer = await patch({ id: DEFAULT_IDS.provisionerObjectId, keyCredentials: [] });
    expect([answer.status, codeOf(answer), messageOf(answer)]).toEqual([400, "Request_BadRequest", "Property 'id' is read-only and cannot be set."]);
    expect(keys()).toEqual(before);
  });

  it("refuses a body typed as another type, and takes the blueprint's other properties under their category's permission", async () => {
    expect(codeOf(await patch({ "@odata.type": "#microsoft.graph.servicePrincipal", keyCredentials: [] }))).toBe("Request_BadRequest");
    const renamed = await patch({ displayName: "renamed" });
    expect(renamed.status).toBe(204);
    const uris = await patch({ identifierUris: ["api://renamed"] });
    expect([uris.status, messageOf(uris)]).toEqual([403, expect.stringContaining("changing identifierUris of an agent identity blueprint needs AgentIdentityBlueprint.UpdateAuthProperties.All")]);
  });

  it("is refused in a tenant that refuses certificates on blueprints, for a new certificate only", async () => {
    const held = keys();
    d.emulator.store.blueprintSecretsRefused = true;
    try {
      const next = selfSignedCertificate({ commonName: "refused" });
      const refused = await patch({ keyCredentials: [...held.map(({ keyId }) => ({ keyId, key: null })), upload(next.certificatePem, "55555555-5555-4555-8555-555555555555")] });
      expect([refused.status, messageOf(refused)]).toEqual([400, expect.stringContaining("does not allow password or certificate credentials")]);
      expect((await patch({ keyCredentials: held.map(({ keyId }) => ({ keyId, key: null })) })).status).toBe(204);
    } finally {
      d.emulator.store.blueprintSecretsRefused = false;
    }
  });

  it("takes a federated credential body that names its own type, and refuses another type", async () => {
    const path = `/v1.0/applications/${blueprint.id}/federatedIdentityCredentials`;
    const fic = { name: "typed", issuer: "https://login.microsoftonline.com/t/v2.0", subject: "s", audiences: ["api://AzureADTokenExchange"], description: "" };
    expect((await d.call("POST", path, { body: { "@odata.type": "#microsoft.graph.federatedIdentityCredential", ...fic } })).status).toBe(201);
    expect(codeOf(await d.call("POST", path, { body: { "@odata.type": "#microsoft.graph.application", ...fic, name: "other" } }))).toBe("Request_BadRequest");
  });
});

describe("any service principal through /servicePrincipals/{id}", () => {
  let d: Directory;
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(() => d.close());

  it("reads on v1.0, and on beta with azuread's $select=samlMetadataUrl", async () => {
    const v1 = await d.call("GET", `/v1.0/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}`);
    expect(v1.body).toMatchObject({ id: DEFAULT_IDS.graphPrincipalId, appId: "00000003-0000-0000-c000-000000000000", displayName: "Microsoft Graph" });
    const beta = await d.call("GET", `/beta/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}?$select=samlMetadataUrl`);
    expect([beta.status, beta.body.samlMetadataUrl, Object.keys(beta.body).sort()]).toEqual([200, null, ["@odata.context", "samlMetadataUrl"]]);
  });

  it("reads a managed identity's principal, whose appId is the identity's client id", async () => {
    const mi = await d.call("GET", `/v1.0/servicePrincipals/${DEFAULT_IDS.managedIdentityPrincipalId}`);
    expect(mi.body).toMatchObject({ appId: DEFAULT_IDS.managedIdentityClientId, servicePrincipalType: "ManagedIdentity" });
  });

  it("reads a typed principal as the derived type it is", async () => {
    const blueprint = await blueprintWithPrincipal(d);
    const read = await d.call("GET", `/v1.0/servicePrincipals/${blueprint.principalId}`);
    expect(read.body).toMatchObject({ "@odata.type": "#microsoft.graph.agentIdentityBlueprintPrincipal", appId: blueprint.appId });
  });

  it("answers 404 for an id that names nothing", async () => {
    expect(codeOf(await d.call("GET", "/v1.0/servicePrincipals/00000000-0000-0000-0000-0000000000aa"))).toBe("Request_ResourceNotFound");
  });
});
