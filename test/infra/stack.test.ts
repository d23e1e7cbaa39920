import * as pulumi from "@pulumi/pulumi";
import { DYNAMIC, installMocks, runStackProgram, valueOf, type Registration } from "./program-harness";
import { OPT_IN_OUTPUT_KEYS, STACK_OUTPUT_KEYS } from "../../lib/stack-outputs";

const SENTINEL = `stack-sentinel-${process.pid}-${Date.now()}`;

const CONFIG: Record<string, string> = {
  "agent-user-kit:userDomain": "contoso.onmicrosoft.com",
  "agent-user-kit:blueprintName": "Kit Blueprint",
  "agent-user-kit:agentIdentityName": "Kit Agent",
  "agent-user-kit:agentUserName": "kit-agent",
  "agent-user-kit:sponsors": '["5e000000-0000-0000-0000-000000000001"]',
  "agent-user-kit:graphUrl": "http://127.0.0.1:8443",
  "agent-user-kit:authorityUrl": "http://127.0.0.1:8443",
  "azuread:clientSecret": `${SENTINEL}-config-secret`,
};

type Program = Record<string, pulumi.Output<unknown> | undefined>;

describe("infra/stack.ts", () => {
  const savedEnv = { ...process.env };
  let program: Program;
  let registrations: Registration[];

  beforeAll(async () => {
    // Every ARM_* credential set while the program runs, as on a CI runner: none may reach a serialized provider.
    Object.assign(process.env, {
      ARM_TENANT_ID: "72f988bf-86f1-41af-91ab-2d7cd011db47",
      ARM_CLIENT_ID: "0c000000-0000-0000-0000-00000000000c",
      ARM_CLIENT_SECRET: `${SENTINEL}-secret`,
      ARM_OIDC_TOKEN: `${SENTINEL}-oidc`,
      ARM_OIDC_TOKEN_FILE_PATH: `/tmp/${SENTINEL}-oidc-file`,
      ARM_CLIENT_CERTIFICATE_PATH: `/tmp/${SENTINEL}.pem`,
    });
    ({ registrations } = await installMocks());
    pulumi.runtime.setAllConfig(CONFIG, ["azuread:clientSecret"]);
    program = jest.requireActual("../../infra/stack");
    await valueOf(program.grantId!);
  });

  afterAll(() => {
    process.env = savedEnv;
  });

  it("reads the stack configuration and exports the outputs under the names the token command reads", async () => {
    const exported = Object.keys(program).filter((key) => program[key] !== undefined);
    // Secret mode without the opt-in features: every name the token command reads but the managed identity's and the features'.
    const kept = STACK_OUTPUT_KEYS.filter((key) => key !== "managedIdentityClientId" && !(OPT_IN_OUTPUT_KEYS as readonly string[]).includes(key));
    expect(exported.sort()).toEqual([...kept, "agents"].sort());
    expect(await valueOf(program.graphUrl!)).toBe("http://127.0.0.1:8443");
    expect(await valueOf(program.agentUserPrincipalName!)).toBe("kit-agent@contoso.onmicrosoft.com");
    expect(await pulumi.isSecret(program.blueprintClientSecret!)).toBe(true);
  });

  it("never puts a credential into the serialized providers it registers", () => {
    const providers = registrations.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/")).map((r) => r.inputs.__provider);
    expect(providers).toHaveLength(Object.keys(DYNAMIC).length);
    for (const text of providers) {
      expect(typeof text).toBe("string");
      expect(text).not.toContain(SENTINEL);
    }
  });

  it("fails on invalid configuration before registering any resource, naming the key", async () => {
    const { registrations: none } = await installMocks();
    pulumi.runtime.setAllConfig({ ...CONFIG, "agent-user-kit:userDomain": "not a domain" });
    let failure: unknown;
    try {
      runStackProgram();
    } catch (err) {
      failure = err;
    }
    expect(failure).toMatchObject({ name: "ConfigError", message: expect.stringContaining("agent-user-kit:userDomain must be a domain name") });
    expect(none).toEqual([]);
  });
});
