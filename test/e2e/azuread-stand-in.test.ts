/**
 * The test-only azuread stand-in (test/azuread-stand-in) driven as the engine
 * drives a provider (check, then create; read, update, delete; invoke), over
 * real HTTPS against the emulator, signing in from ARM_* as azuread's
 * default provider does. Each resource's round trip changes the emulator's
 * store as it should, with the requests terraform-provider-azuread makes;
 * refresh sees an object deleted out of band as gone; an input name azuread
 * does not have is refused; a refused addPassword fails with azuread's words;
 * the password comes back as a Pulumi secret.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { ConfigureRequest, type ConfigureResponse } from "@pulumi/pulumi/proto/provider_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { Agent } from "undici";
import { selfSignedCertificate } from "../../emulator/certificate";
import { DEFAULT_IDS } from "../../emulator/seed";
import { stableId } from "../../emulator/seed-flows";
import { startEmulator, type Emulator } from "../../emulator/server";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { configurationProblems } from "../azuread-stand-in/settings";
import { standInEntry, standInLauncher } from "../azuread-stand-in/launcher";
import { StandInProvider } from "../azuread-stand-in/provider";
import { terraformSetOrder } from "../azuread-stand-in/set-order";
import { isSecret, reveal, secret, type PropertyMap } from "../azuread-stand-in/values";
import { azureadVersion } from "../azuread-stand-in/schema-names";

const PASSWORD = "azuread:index/applicationPassword:ApplicationPassword";
const CERTIFICATE = "azuread:index/applicationCertificate:ApplicationCertificate";
const FEDERATED = "azuread:index/applicationFederatedIdentityCredential:ApplicationFederatedIdentityCredential";
const GRANT = "azuread:index/servicePrincipalDelegatedPermissionGrant:ServicePrincipalDelegatedPermissionGrant";
const ASSIGNMENT = "azuread:index/appRoleAssignment:AppRoleAssignment";
const BLUEPRINT = `/applications/${DEFAULT_IDS.blueprintObjectId}`;

let emulator: Emulator;
let dispatcher: Agent;
let provider: StandInProvider;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  emulator = await startEmulator({ features: ["appRoles"] });
  const p = emulator.provisioner()!;
  env = { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret, ARM_METADATA_HOSTNAME: new URL(emulator.httpsUrl).host };
  // NODE_EXTRA_CA_CERTS is read at start only: this process trusts the emulator through a dispatcher instead.
  dispatcher = new Agent({ connect: { ca: emulator.caPem } });
  provider = new StandInProvider({ env, http: { dispatcher: dispatcher as unknown as RequestInit["dispatcher"], sleep: async () => {} } });
});
afterAll(async () => {
  await dispatcher.close();
  await emulator.close();
});

const urn = (token: string, name: string) => `urn:pulumi:test::stand-in::agent-user-kit:index:AgentUserKit$${token}::${name}`;

/** check, then create, as the engine does; check's failures fail the test. */
async function made(token: string, name: string, inputs: PropertyMap): Promise<{ id: string; outs: PropertyMap }> {
  const checked = await provider.check(urn(token, name), {}, inputs);
  expect(checked.failures).toEqual([]);
  const { id, outs } = await provider.create(urn(token, name), checked.inputs as PropertyMap);
  return { id, outs: outs as PropertyMap };
}

/** The Graph requests (method and path, query left out) `work` makes. */
async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  const from = emulator.requests.length;
  await work();
  return emulator.requests.slice(from).filter((r) => r.surface === "graph").map((r) => `${r.method} ${r.path}`);
}

const blueprint = () => emulator.store.application(DEFAULT_IDS.blueprintObjectId)!;

describe("ApplicationPassword", () => {
  it("adds a password (read, addPassword, read back), answers its value as a secret, reads it, and removes it", async () => {
    let made_: { id: string; outs: PropertyMap } | undefined;
    const sent = await requestsOf(async () => (made_ = await made(PASSWORD, "secret", { applicationId: BLUEPRINT, displayName: "kit-secret", endDate: "2099-06-30T00:00:00Z" })));
    const { id, outs } = made_!;
    expect(sent).toEqual([`GET /v1.0${BLUEPRINT}`, `POST /v1.0${BLUEPRINT}/addPassword`, `GET /v1.0${BLUEPRINT}`]);
    const keyId = String(outs.keyId);
    expect(id).toBe(`${DEFAULT_IDS.blueprintObjectId}/password/${keyId}`);
    const stored = blueprint().passwordCredentials.find((c) => c.keyId === keyId)!;
    expect(stored).toMatchObject({ displayName: "kit-secret", endDateTime: "2099-06-30T00:00:00.000Z" });
    expect(isSecret(outs.value)).toBe(true);
    expect(reveal(outs.value)).toBe(stored.secretText);
    expect(outs).toMatchObject({ applicationId: BLUEPRINT, displayName: "kit-secret", keyId });

    const read = await provider.read(id, urn(PASSWORD, "secret"), outs);
    expect(read.id).toBe(id);
    expect(isSecret((read.props as PropertyMap).value)).toBe(true);
    expect(await provider.diff(id, urn(PASSWORD, "secret"), read.props as PropertyMap, { applicationId: BLUEPRINT, displayName: "kit-secret" })).toMatchObject({ changes: false });

    expect(await requestsOf(() => provider.delete(id, urn(PASSWORD, "secret"), outs))).toEqual([`POST /v1.0${BLUEPRINT}/removePassword`, `GET /v1.0${BLUEPRINT}`]);
    expect(blueprint().passwordCredentials.some((c) => c.keyId === keyId)).toBe(false);
    expect((await provider.read(id, urn(PASSWORD, "secret"), outs)).id).toBe("");
  });

  it("fails a refused addPassword with azuread's words and Graph's 400", async () => {
    emulator.store.blueprintSecretsRefused = true;
    try {
      await expect(provider.create(urn(PASSWORD, "refused"), { applicationId: BLUEPRINT, displayName: "refused" })).rejects.toThrow(
        /Adding password for Application \(Application: "[^"]+"\): unexpected status 400 \(400 Bad Request\) with error: Request_BadRequest: /,
      );
    } finally {
      emulator.store.blueprintSecretsRefused = false;
    }
  });

  it("plans a replace for a changed ForceNew input", async () => {
    const olds = { applicationId: BLUEPRINT, displayName: "a", keyId: "k" };
    expect(await provider.diff("x", urn(PASSWORD, "p"), olds, { applicationId: BLUEPRINT, displayName: "b" })).toEqual({ changes: true, replaces: ["displayName"], deleteBeforeReplace: false });
  });
});

describe("ApplicationCertificate", () => {
  it("PATCHes keyCredentials with the PEM text in base64, reads it, and PATCHes it away", async () => {
    const cert = selfSignedCertificate({ commonName: "stand-in certificate" });
    const inputs = { applicationId: BLUEPRINT, type: "AsymmetricX509Cert", encoding: "pem", value: secret(cert.certificatePem), endDate: new Date(cert.certificate.validTo).toISOString() };
    let result: { id: string; outs: PropertyMap } | undefined;
    const sent = await requestsOf(async () => (result = await made(CERTIFICATE, "cert", inputs)));
    expect(sent).toEqual([`GET /v1.0${BLUEPRINT}`, `PATCH /v1.0${BLUEPRINT}`, `GET /v1.0${BLUEPRINT}`]);
    const { id, outs } = result!;
    expect(id).toBe(`${DEFAULT_IDS.blueprintObjectId}/certificate/${String(outs.keyId)}`);
    expect(blueprint().keyCredentials.map((k) => k.key)).toContain(cert.certificate.raw.toString("base64"));
    expect(isSecret(outs.value)).toBe(true);
    expect((await provider.read(id, urn(CERTIFICATE, "cert"), outs)).props).toMatchObject({ type: "AsymmetricX509Cert", keyId: outs.keyId });

    expect(await requestsOf(() => provider.delete(id, urn(CERTIFICATE, "cert"), outs))).toEqual([`GET /v1.0${BLUEPRINT}`, `PATCH /v1.0${BLUEPRINT}`, `GET /v1.0${BLUEPRINT}`]);
    expect(blueprint().keyCredentials.some((k) => k.keyId === outs.keyId)).toBe(false);
    expect((await provider.read(id, urn(CERTIFICATE, "cert"), outs)).id).toBe("");
  });
});

describe("ApplicationFederatedIdentityCredential", () => {
  it("POSTs the credential, reads it back by id, and DELETEs it; refresh then finds it gone", async () => {
    const inputs = { applicationId: BLUEPRINT, displayName: "mi", issuer: `${emulator.httpsUrl}/${DEFAULT_IDS.tenantId}/v2.0`, subject: DEFAULT_IDS.managedIdentityPrincipalId, audiences: ["api://AzureADTokenExchange"] };
    let result: { id: string; outs: PropertyMap } | undefined;
    const fics = `/v1.0${BLUEPRINT}/federatedIdentityCredentials`;
    const sent = await requestsOf(async () => (result = await made(FEDERATED, "fic", inputs)));
    const { id, outs } = result!;
    const credentialId = String(outs.credentialId);
    expect(sent).toEqual([`GET /v1.0${BLUEPRINT}`, `POST ${fics}`, `GET ${fics}/${credentialId}`]);
    expect(id).toBe(`${DEFAULT_IDS.blueprintObjectId}/federatedIdentityCredential/${credentialId}`);
    expect(blueprint().federatedIdentityCredentials.find((f) => f.id === credentialId)).toMatchObject({ name: "mi", subject: inputs.subject, audiences: inputs.audiences, description: "" });
    expect(outs).toMatchObject({ displayName: "mi", issuer: inputs.issuer, description: "" });

    expect(await requestsOf(() => provider.delete(id, urn(FEDERATED, "fic"), outs))).toEqual([`DELETE ${fics}/${credentialId}`, `GET ${fics}/${credentialId}`]);
    expect(blueprint().federatedIdentityCredentials.some((f) => f.id === credentialId)).toBe(false);
    expect((await provider.read(id, urn(FEDERATED, "fic"), outs)).id).toBe("");
  });
});

describe("ServicePrincipalDelegatedPermissionGrant", () => {
  const inputs = { servicePrincipalObjectId: DEFAULT_IDS.agentIdentityId, resourceServicePrincipalObjectId: DEFAULT_IDS.graphPrincipalId, userObjectId: DEFAULT_IDS.agentUserId, claimValues: ["User.Read", "Mail.Send", "Chat.Read"] };

  it("reads both principals, POSTs the grant with the scopes in Terraform's set order, sees a cut out of band, PATCHes it back, and DELETEs it", async () => {
    let result: { id: string; outs: PropertyMap } | undefined;
    const sent = await requestsOf(async () => (result = await made(GRANT, "grant", inputs)));
    const { id, outs } = result!;
    const graphId = id.split("/").pop()!;
    expect(id).toBe(`/oauth2PermissionGrants/${graphId}`);
    expect(sent).toEqual([`GET /v1.0/servicePrincipals/${DEFAULT_IDS.agentIdentityId}`, `GET /v1.0/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}`, "POST /v1.0/oauth2PermissionGrants", `GET /v1.0${id}`]);
    expect(emulator.store.grant(graphId)).toMatchObject({ clientId: DEFAULT_IDS.agentIdentityId, consentType: "Principal", principalId: DEFAULT_IDS.agentUserId, scope: terraformSetOrder(inputs.claimValues).join(" ") });

    emulator.store.changeGrantScope(graphId, "User.Read");
    const refreshed = (await provider.read(id, urn(GRANT, "grant"), outs)).props as PropertyMap;
    expect(refreshed.claimValues).toEqual(["User.Read"]);
    const plan = await provider.diff(id, urn(GRANT, "grant"), refreshed, inputs);
    expect(plan).toMatchObject({ changes: true, replaces: [] });
    expect(await requestsOf(() => provider.update(id, urn(GRANT, "grant"), refreshed, inputs))).toEqual([`PATCH /v1.0${id}`, `GET /v1.0${id}`]);
    expect(emulator.store.grant(graphId)?.scope.split(" ").sort()).toEqual([...inputs.claimValues].sort());

    expect(await requestsOf(() => provider.delete(id, urn(GRANT, "grant"), outs))).toEqual([`DELETE /v1.0${id}`]);
    expect(emulator.store.grant(graphId)).toBeUndefined();
    expect((await provider.read(id, urn(GRANT, "grant"), outs)).id).toBe("");
  });

  it("replaces the grant when one of its principals changes", async () => {
    const olds = { ...inputs, claimValues: [...inputs.claimValues].reverse() };
    expect(await provider.diff("/oauth2PermissionGrants/x", urn(GRANT, "g"), olds, inputs)).toMatchObject({ changes: false });
    expect(await provider.diff("/oauth2PermissionGrants/x", urn(GRANT, "g"), olds, { ...inputs, userObjectId: DEFAULT_IDS.sponsorId })).toMatchObject({ replaces: ["userObjectId"] });
  });
});

describe("AppRoleAssignment", () => {
  const inputs = { principalObjectId: DEFAULT_IDS.agentIdentityId, resourceObjectId: DEFAULT_IDS.graphPrincipalId, appRoleId: stableId("graph-role", "Mail.Read") };

  it("reads the resource, POSTs to its appRoleAssignedTo, reads the assignment, and finds it gone once deleted out of band", async () => {
    let result: { id: string; outs: PropertyMap } | undefined;
    const sent = await requestsOf(async () => (result = await made(ASSIGNMENT, "role", inputs)));
    const { id, outs } = result!;
    const assignmentId = id.split("/").pop()!;
    expect(id).toBe(`/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}/appRoleAssignedTo/${assignmentId}`);
    expect(sent).toEqual([`GET /v1.0/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}`, `POST /v1.0/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}/appRoleAssignedTo`, `GET /v1.0${id}`]);
    expect(emulator.store.appRoleAssignments.get(assignmentId)).toMatchObject({ principalId: inputs.principalObjectId, appRoleId: inputs.appRoleId });
    expect(outs).toMatchObject({ ...inputs, principalType: "ServicePrincipal", resourceDisplayName: "Microsoft Graph" });

    emulator.store.appRoleAssignments.delete(assignmentId);
    expect((await provider.read(id, urn(ASSIGNMENT, "role"), outs)).id).toBe("");
  });

  it("DELETEs an assignment it made", async () => {
    const { id, outs } = await made(ASSIGNMENT, "again", inputs);
    expect(await requestsOf(() => provider.delete(id, urn(ASSIGNMENT, "again"), outs))).toEqual([`DELETE /v1.0${id}`]);
    expect(emulator.store.appRoleAssignments.get(id.split("/").pop()!)).toBeUndefined();
  });
});

describe("check", () => {
  it("refuses an input name azuread's schema does not have, naming it, and takes the engine's own keys", async () => {
    const { failures } = await provider.check(urn(PASSWORD, "p"), {}, { applicationId: BLUEPRINT, displayNam: "typo", __defaults: [] });
    expect(failures).toEqual([{ property: "displayNam", reason: expect.stringContaining(`${PASSWORD} has no input "displayNam"`) }]);
  });

  it("refuses a value azuread's validation refuses, with Terraform's words", async () => {
    const { failures } = await provider.check(urn(GRANT, "g"), {}, { servicePrincipalObjectId: "not-a-guid", resourceServicePrincipalObjectId: DEFAULT_IDS.graphPrincipalId, claimValues: ["User.Read"] });
    expect(failures).toEqual([{ property: "servicePrincipalObjectId", reason: 'expected "service_principal_object_id" to be a valid UUID, got not-a-guid' }]);
  });
});

describe("functions", () => {
  it("getServicePrincipal by clientId: the $filter lookup, then beta's $select=samlMetadataUrl, with azuread's outputs", async () => {
    let outputs: PropertyMap | undefined;
    const sent = await requestsOf(async () => (outputs = (await provider.invoke("azuread:index/getServicePrincipal:getServicePrincipal", { clientId: MICROSOFT_GRAPH_APP_ID })).outputs as PropertyMap));
    expect(sent).toEqual(["GET /v1.0/servicePrincipals", `GET /beta/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}`]);
    expect(outputs).toMatchObject({ id: `/servicePrincipals/${DEFAULT_IDS.graphPrincipalId}`, objectId: DEFAULT_IDS.graphPrincipalId, clientId: MICROSOFT_GRAPH_APP_ID, displayName: "Microsoft Graph", samlMetadataUrl: "" });
    expect((outputs!.appRoleIds as Record<string, string>)["Mail.Read"]).toBe(stableId("graph-role", "Mail.Read"));
    expect(outputs!.appRoles).toEqual(expect.arrayContaining([expect.objectContaining({ value: "Mail.Read", enabled: true, allowedMemberTypes: ["Application"] })]));
    expect(outputs!.servicePrincipalNames).not.toContain(MICROSOFT_GRAPH_APP_ID);
  });

  it("getServicePrincipal by objectId: a managed identity's principal, whose clientId is the identity's", async () => {
    let outputs: PropertyMap | undefined;
    const id = DEFAULT_IDS.managedIdentityPrincipalId;
    const sent = await requestsOf(async () => (outputs = (await provider.invoke("azuread:index/getServicePrincipal:getServicePrincipal", { objectId: id })).outputs as PropertyMap));
    expect(sent).toEqual([`GET /v1.0/servicePrincipals/${id}`, `GET /beta/servicePrincipals/${id}`]);
    expect(outputs).toMatchObject({ objectId: id, clientId: DEFAULT_IDS.managedIdentityClientId, type: "ManagedIdentity" });
  });

  it("getServicePrincipal refuses an argument azuread does not have", async () => {
    const { failures } = await provider.invoke("azuread:index/getServicePrincipal:getServicePrincipal", { appId: MICROSOFT_GRAPH_APP_ID });
    expect(failures).toEqual([{ property: "appId", reason: expect.stringContaining('has no argument "appId"') }]);
  });

  it("getClientConfig: the provider's tenant and client, and its object id from the token", async () => {
    const { outputs } = await provider.invoke("azuread:index/getClientConfig:getClientConfig", {});
    const p = emulator.provisioner()!;
    expect(outputs).toEqual({ id: `${p.tenantId}-${p.clientId}-${DEFAULT_IDS.provisionerPrincipalId}`, tenantId: p.tenantId, clientId: p.clientId, objectId: DEFAULT_IDS.provisionerPrincipalId });
  });
});

describe("what it will not do", () => {
  it("refuses to sign in any way but a client secret, naming itself", async () => {
    const oidc = new StandInProvider({ env: { ...env, ARM_USE_OIDC: "true" } });
    await expect(oidc.invoke("azuread:index/getClientConfig:getClientConfig", {})).rejects.toThrow(/test-only azuread stand-in .*ARM_USE_OIDC/);
  });

  it("names a provider setting it cannot honour, and takes the ones that say what the environment says", () => {
    expect(configurationProblems({ version: "6.9.1", environment: "public", useMsi: "false", clientId: env.ARM_CLIENT_ID }, env)).toEqual([]);
    expect(configurationProblems({ clientId: "someone-else", clientCertificatePath: "/c.pem" }, env)).toEqual([
      "clientId differs from ARM_CLIENT_ID, the only source it reads",
      expect.stringMatching(/^clientCertificatePath is set/),
    ]);
  });

  it("writes an executable launcher that runs the built entry with this Node.js", () => {
    const launcher = standInLauncher(mkdtempSync(join(tmpdir(), "stand-in-")));
    expect(statSync(launcher).mode & 0o111).toBe(0o111);
    expect(readFileSync(launcher, "utf8")).toBe(`#!/bin/sh\nexec '${process.execPath}' '${standInEntry()}' "$@"\n`);
  });
});

describe("the plugin process", () => {
  // The gRPC of the Node provider SDK this stand-in runs on, as the engine reaches it.
  const grpc = createRequire(require.resolve("@pulumi/pulumi/provider"))("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const unary = <T>(call: (done: (err: { code?: number; details?: string } | null, value?: T) => void) => void) =>
    new Promise<T>((resolve, reject) => call((err, value) => (err ? reject(err) : resolve(value as T))));

  it("serves from the launcher: azuread's version, and a configure that fails naming a setting it cannot honour", async () => {
    const launcher = standInLauncher(mkdtempSync(join(tmpdir(), "stand-in-")));
    const ownEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ARM_")));
    const child = spawn(launcher, [], { env: { ...ownEnv, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    try {
      const port = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
      const client = new ResourceProviderClient(`127.0.0.1:${port.trim()}`, grpc.credentials.createInsecure());
      const info = await unary<PluginInfo>((done) => client.getPluginInfo(new Empty(), done));
      expect(info.getVersion()).toBe(azureadVersion());

      const plain = await unary<ConfigureResponse>((done) => client.configure(new ConfigureRequest(), done));
      expect(plain.getAcceptsecrets()).toBe(true);
      const other = new ConfigureRequest();
      other.getVariablesMap().set("azuread:config:clientId", "someone-else");
      await expect(unary((done) => client.configure(other, done))).rejects.toMatchObject({ code: 9, details: expect.stringMatching(/test-only azuread stand-in .*clientId differs from ARM_CLIENT_ID/) });
      client.close();
    } finally {
      child.kill();
    }
  });
});
