import { randomUUID } from "node:crypto";
import Module from "node:module";
import * as pulumi from "@pulumi/pulumi";
import { DEFAULT_IDS, PROVISIONER_ROLES, defaultTenant, password } from "../../emulator/seed";
import { startEmulator, type Emulator } from "../../emulator/server";
import { agentIdentityProvider } from "../../infra/providers/agent-identity";
import { agentUserProvider } from "../../infra/providers/agent-user";
import { blueprintProvider } from "../../infra/providers/blueprint";
import { blueprintApiProvider } from "../../infra/providers/blueprint-api";
import { blueprintPrincipalProvider } from "../../infra/providers/blueprint-principal";
import { configureProvisioner, provisionerToken } from "../../infra/provisioner-credential";
import { forgetProvisioner } from "../provisioner-state";

const SENTINEL = `sentinel-${process.pid}-${Date.now()}`;
/** The provisioner's real secret, which only the stack configuration holds; ARM_CLIENT_SECRET holds a wrong one. */
const CONFIG_SECRET = `${SENTINEL}-config-secret`;
const CREDENTIAL_ENV = {
  ARM_TENANT_ID: DEFAULT_IDS.tenantId,
  ARM_CLIENT_ID: DEFAULT_IDS.provisionerAppId,
  ARM_CLIENT_SECRET: `${SENTINEL}-client-secret`,
  ARM_OIDC_TOKEN: `${SENTINEL}-oidc-token`,
  ARM_OIDC_TOKEN_FILE_PATH: `/tmp/${SENTINEL}-oidc-file`,
  ARM_CLIENT_CERTIFICATE_PASSWORD: `${SENTINEL}-cert-password`,
};

const providers = {
  blueprint: blueprintProvider,
  blueprintPrincipal: blueprintPrincipalProvider,
  agentIdentity: agentIdentityProvider,
  agentUser: agentUserProvider,
  blueprintApi: blueprintApiProvider,
};

/** Loads serialized text the way Pulumi's dynamic-provider host does (require-from-string). */
function loadLikeProviderHost(text: string): pulumi.dynamic.ResourceProvider {
  const internals = Module as unknown as { _nodeModulePaths(dir: string): string[] };
  const m = new Module("", undefined) as Module & { _compile(code: string, filename: string): void };
  m.filename = "";
  m.paths = internals._nodeModulePaths(process.cwd());
  m._compile(text, "");
  return (m.exports as { handler: () => pulumi.dynamic.ResourceProvider }).handler();
}

describe("serialized dynamic providers", () => {
  const saved = { ...process.env };
  let emulator: Emulator;
  let cachedToken: string;
  const serialized = new Map<string, string>();

  beforeAll(async () => {
    const seed = defaultTenant();
    Object.assign(seed.applications.find((a) => a.appId === DEFAULT_IDS.provisionerAppId)!.passwordCredentials[0]!, { secretText: CONFIG_SECRET });
    emulator = await startEmulator({ tenant: seed });
    Object.assign(process.env, CREDENTIAL_ENV);
    // Put secrets everywhere a careless closure could pick them up: the stack configuration the host
    // passes to configure, and a cached provisioner token.
    await configureProvisioner({ config: { get: (key) => (key === "azuread:clientSecret" ? CONFIG_SECRET : undefined) } });
    cachedToken = await provisionerToken(emulator.httpUrl, emulator.httpUrl);
    for (const [name, provider] of Object.entries(providers)) {
      serialized.set(name, (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: false })).text);
    }
  });

  afterAll(async () => {
    process.env = saved;
    forgetProvisioner();
    await emulator.close();
  });

  it.each(Object.keys(providers))("%s: the text holds no credential, token or configuration value", (name) => {
    const text = serialized.get(name)!;
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(SENTINEL);
    expect(text).not.toContain(cachedToken);
    for (const value of Object.values(CREDENTIAL_ENV)) expect(text).not.toContain(value);
  });

  it.each(Object.keys(providers))("%s: the text loads as the host loads it and exposes every operation", (name) => {
    const loaded = loadLikeProviderHost(serialized.get(name)!);
    for (const op of ["configure", "check", "diff", "create", "read", "update", "delete"] as const) {
      expect(typeof loaded[op]).toBe("function");
    }
  });

  /** The blueprint provider as the host runs it, configured the way the host configures it, with nothing cached. */
  async function hostedBlueprintProvider(client: { id: string; secret: string } = { id: CREDENTIAL_ENV.ARM_CLIENT_ID, secret: CONFIG_SECRET }) {
    forgetProvisioner();
    const loaded = loadLikeProviderHost(serialized.get("blueprint")!);
    // The host passes the stack configuration to configure; the provisioner comes from its azuread: keys.
    const stackConfig: Record<string, string> = {
      "azuread:tenantId": CREDENTIAL_ENV.ARM_TENANT_ID,
      "azuread:clientId": client.id,
      "azuread:clientSecret": client.secret,
    };
    await loaded.configure!({ config: { get: (key) => stackConfig[key], require: (key) => stackConfig[key]! } });
    const inputs = {
      graphUrl: emulator.httpUrl,
      authorityUrl: emulator.httpUrl,
      consistencyWindowMs: 0,
      providerVersion: "0.0.0-test",
      displayName: "Blueprint",
      sponsors: [DEFAULT_IDS.sponsorId.toUpperCase()],
      adoptionTag: `agent-user-kit:test/dev/${randomUUID()}`,
    };
    return { loaded, inputs };
  }

  it("the loaded code runs: check validates, create makes a typed blueprint as the configured provisioner, delete removes it", async () => {
    const { loaded, inputs } = await hostedBlueprintProvider();
    const checked = await loaded.check!({}, inputs);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.sponsors).toEqual([DEFAULT_IDS.sponsorId]);

    const from = emulator.requests.length;
    // The emulator refuses a token request with ARM_CLIENT_SECRET's wrong value.
    const { id, outs } = await loaded.create!(checked.inputs);
    expect(emulator.store.application(id)).toMatchObject({ kind: "agentIdentityBlueprint", owners: [DEFAULT_IDS.provisionerPrincipalId] });
    await loaded.delete!(id, outs);
    expect(emulator.store.application(id)).toBeUndefined();
    const calls = emulator.requests.slice(from).map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(calls).toEqual([
      `POST /${DEFAULT_IDS.tenantId}/oauth2/v2.0/token 200`,
      // The lookup by the adoption tag, then by its base (a blueprint made before tags had a nonce).
      "GET /v1.0/applications/microsoft.graph.agentIdentityBlueprint 200",
      "GET /v1.0/applications/microsoft.graph.agentIdentityBlueprint 200",
      "POST /v1.0/applications/microsoft.graph.agentIdentityBlueprint 201",
      `DELETE /v1.0/applications/${id}/microsoft.graph.agentIdentityBlueprint 204`,
    ]);
  });

  it("the loaded code treats an object already gone as deleted, and reports it gone on refresh", async () => {
    const { loaded, inputs } = await hostedBlueprintProvider();
    const gone = randomUUID();
    const state = { ...inputs, objectId: gone, appId: randomUUID() };
    await expect(loaded.delete!(gone, state)).resolves.toBeUndefined();
    await expect(loaded.read!(gone, state)).resolves.toEqual({});
  });

  it("the loaded code reports a Graph refusal with the call, its code and the likely fix", async () => {
    // A second provisioner without AgentIdentityBlueprint.DeleteRestore.All: the loaded code keeps its own token cache.
    const narrow = { id: randomUUID(), secret: `${SENTINEL}-narrow-secret` };
    emulator.store.createApplication({
      id: randomUUID(),
      appId: narrow.id,
      kind: "application",
      displayName: "narrow provisioner",
      sponsors: [],
      owners: [],
      passwordCredentials: [password("ci", narrow.secret)],
      keyCredentials: [],
      federatedIdentityCredentials: [],
      createdAt: 0,
    });
    emulator.store.createServicePrincipal({
      id: randomUUID(),
      appId: narrow.id,
      kind: "servicePrincipal",
      displayName: "narrow provisioner",
      servicePrincipalType: "Application",
      servicePrincipalNames: [narrow.id],
      sponsors: [],
      graphAppRoles: PROVISIONER_ROLES.filter((r) => r !== "AgentIdentityBlueprint.DeleteRestore.All"),
      createdAt: 0,
    });
    const { loaded, inputs } = await hostedBlueprintProvider(narrow);
    const target = DEFAULT_IDS.blueprintObjectId;
    await expect(loaded.delete!(target, { ...inputs, objectId: target, appId: DEFAULT_IDS.blueprintAppId })).rejects.toThrow(
      new RegExp(
        `^agent identity blueprint delete failed: Graph DELETE /v1\\.0/applications/${target}/microsoft\\.graph\\.agentIdentityBlueprint: ` +
          "Authorization_RequestDenied \\(HTTP 403\\): Insufficient privileges.*Likely fix: to delete an agent identity blueprint the provisioner needs the application permission AgentIdentityBlueprint\\.DeleteRestore\\.All",
      ),
    );
    expect(emulator.store.application(target)).toBeDefined();
  });
});
