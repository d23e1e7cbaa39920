import Module from "node:module";
import * as pulumi from "@pulumi/pulumi";
import { agentIdentityProvider } from "../../infra/providers/agent-identity";
import { agentUserProvider } from "../../infra/providers/agent-user";
import { blueprintProvider } from "../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../infra/providers/blueprint-principal";
import { configureProvisioner, forgetProvisionerTokens, provisionerToken } from "../../infra/provisioner-credential";
import { startFakeDirectory } from "./fake-directory";

const SENTINEL = `sentinel-${process.pid}-${Date.now()}`;
const CREDENTIAL_ENV = {
  ARM_TENANT_ID: "11111111-2222-3333-4444-555555555555",
  ARM_CLIENT_ID: "66666666-7777-8888-9999-000000000000",
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
  let directory: Awaited<ReturnType<typeof startFakeDirectory>>;
  const serialized = new Map<string, string>();

  beforeAll(async () => {
    directory = await startFakeDirectory({
      accessToken: `${SENTINEL}-access-token`,
      route: (req) => {
        if (req.path.includes("/forbidden/")) return { status: 403, body: { error: { code: "Authorization_RequestDenied", message: "Insufficient privileges." } } };
        if (req.path.includes("/gone/")) return { status: 404, body: { error: { code: "Request_ResourceNotFound", message: "gone" } } };
        return req.method === "DELETE" ? { status: 204 } : { status: 404, body: { error: { code: "Request_ResourceNotFound", message: "gone" } } };
      },
    });
    Object.assign(process.env, CREDENTIAL_ENV);
    // Put secrets everywhere a careless closure could pick them up: the stack configuration the host
    // passes to configure, and a cached provisioner token.
    await configureProvisioner({ config: { get: (key) => (key === "azuread:clientSecret" ? `${SENTINEL}-config-secret` : undefined) } });
    await provisionerToken(directory.url, directory.url);
    for (const [name, provider] of Object.entries(providers)) {
      serialized.set(name, (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: false })).text);
    }
  });

  afterAll(async () => {
    process.env = saved;
    forgetProvisionerTokens();
    await directory.close();
  });

  it.each(Object.keys(providers))("%s: the text holds no credential, token or configuration value", (name) => {
    const text = serialized.get(name)!;
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(SENTINEL);
    for (const value of Object.values(CREDENTIAL_ENV)) expect(text).not.toContain(value);
  });

  it.each(Object.keys(providers))("%s: the text loads as the host loads it and exposes every operation", (name) => {
    const loaded = loadLikeProviderHost(serialized.get(name)!);
    for (const op of ["configure", "check", "diff", "create", "read", "update", "delete"] as const) {
      expect(typeof loaded[op]).toBe("function");
    }
  });

  /** The blueprint provider as the host runs it, configured the way the host configures it. */
  async function hostedBlueprintProvider() {
    const loaded = loadLikeProviderHost(serialized.get("blueprint")!);
    // The host passes the stack configuration to configure; the provisioner comes from its azuread: keys.
    const stackConfig: Record<string, string> = {
      "azuread:tenantId": CREDENTIAL_ENV.ARM_TENANT_ID,
      "azuread:clientId": CREDENTIAL_ENV.ARM_CLIENT_ID,
      "azuread:clientSecret": `${SENTINEL}-config-secret`,
    };
    await loaded.configure!({ config: { get: (key) => stackConfig[key], require: (key) => stackConfig[key]! } });
    const inputs = {
      graphUrl: directory.url,
      authorityUrl: directory.url,
      consistencyWindowMs: 0,
      providerVersion: "0.0.0-test",
      displayName: "Blueprint",
      sponsors: ["AAAAAAAA-0000-0000-0000-000000000001"],
      adoptionTag: "agent-user-kit:test/dev/kit",
    };
    return { loaded, inputs, state: { ...inputs, objectId: "object-id", appId: "app-id" } };
  }

  it("the loaded code runs: check validates, and delete calls Graph's typed URL with OData-Version and the provisioner's token", async () => {
    const { loaded, inputs, state } = await hostedBlueprintProvider();
    const checked = await loaded.check!({}, inputs);
    expect(checked.failures).toEqual([]);
    expect(checked.inputs.sponsors).toEqual(["aaaaaaaa-0000-0000-0000-000000000001"]);

    directory.seen.length = 0;
    await loaded.delete!("object-id", state);
    const graphCall = directory.seen.find((r) => r.method === "DELETE");
    expect(graphCall?.path).toBe("/v1.0/applications/object-id/microsoft.graph.agentIdentityBlueprint");
    expect(graphCall?.headers["odata-version"]).toBe("4.0");
    expect(graphCall?.headers.authorization).toBe(`Bearer ${SENTINEL}-access-token`);
    const tokenCall = new URLSearchParams(directory.seen.find((r) => r.path.endsWith("/oauth2/v2.0/token"))?.body);
    expect(tokenCall.get("grant_type")).toBe("client_credentials");
    expect(tokenCall.get("client_id")).toBe(CREDENTIAL_ENV.ARM_CLIENT_ID);
    expect(tokenCall.get("client_secret")).toBe(`${SENTINEL}-config-secret`);
    expect(tokenCall.get("scope")).toBe(`${directory.url}/.default`);
  });

  it("the loaded code treats an object already gone as deleted, and reports it gone on refresh", async () => {
    const { loaded, state } = await hostedBlueprintProvider();
    await expect(loaded.delete!("gone", state)).resolves.toBeUndefined();
    await expect(loaded.read!("gone", state)).resolves.toEqual({});
  });

  it("the loaded code reports a Graph refusal with the call, its code and the likely fix", async () => {
    const { loaded, state } = await hostedBlueprintProvider();
    await expect(loaded.delete!("forbidden", state)).rejects.toThrow(
      /^agent identity blueprint delete failed: Graph DELETE \/v1\.0\/applications\/forbidden\/microsoft\.graph\.agentIdentityBlueprint: Authorization_RequestDenied \(HTTP 403\): Insufficient privileges\. Likely fix: the caller lacks a Graph permission/,
    );
  });
});
