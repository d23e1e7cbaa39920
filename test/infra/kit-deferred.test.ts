/**
 * What decides AgentUserKit's resources (the agents and their names,
 * singleAgentNames, the credential's mode) given as Outputs: the resources
 * are registered once they resolve, under the URNs plain values give, so a
 * stack that switches between the two keeps them; the outputs resolve to the
 * same values; a mistake fails with the error of the plain form.
 */
import * as pulumi from "@pulumi/pulumi";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { selfSignedCertificate } from "../../emulator/certificate";
import type { ConfigError } from "../../infra/config";
import { AgentUserKit, type AgentArgs, type AgentUserKitArgs, type BlueprintCredentialArgs } from "../../infra";
import { setAgentUserKitMocks } from "../../infra/testing";
import { AZURE, DYNAMIC, IDS, installMocks, valueOf, type Registration } from "./program-harness";

const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const ROOT = join(__dirname, "..", "..");
const AGENTS: AgentArgs[] = [
  { name: "research", userName: "research-agent" },
  { name: "writer", identityName: "Writer agent", userName: "writer-agent", scopes: ["User.Read"] },
];
const PLAIN: AgentUserKitArgs = { blueprintName: "Team", sponsors: [SPONSOR], userDomain: "contoso.onmicrosoft.com", agents: AGENTS, singleAgentNames: true };

interface Run {
  kit: AgentUserKit;
  registrations: Registration[];
  outputs: Record<string, unknown>;
  logs: string[];
}

/** Makes the kit under mocks and waits for every output, so every deferred resource is registered. */
async function run(args: AgentUserKitArgs): Promise<Run> {
  const { registrations } = await installMocks();
  const info = jest.spyOn(pulumi.log, "info").mockResolvedValue();
  try {
    const kit = new AgentUserKit("team", args);
    const outputs: Record<string, unknown> = {};
    for (const [key, output] of Object.entries(kit.outputs)) outputs[key] = await valueOf(output as pulumi.Output<unknown>);
    const logs = info.mock.calls.map(([message, resource]) => `${resource === kit ? "kit" : resource === kit.blueprint ? "blueprint" : "other"}: ${message}`);
    return { kit, registrations, outputs, logs };
  } finally {
    info.mockRestore();
  }
}

/** What decides a resource's URN and what it is made with, in a stable order. */
function registered(registrations: Registration[]): Array<Omit<Registration, "dependencies">> {
  return registrations.map(({ type, name, urn, parent, aliases, inputs }) => ({ type, name, urn, parent, aliases, inputs })).sort((a, b) => a.urn.localeCompare(b.urn));
}

const cert = selfSignedCertificate({ commonName: "kit test" });
const CREDENTIALS: Array<[string, BlueprintCredentialArgs, string]> = [
  ["secret", { mode: "secret", endDate: "2099-01-01T00:00:00Z" }, AZURE.password],
  ["managedIdentity (existing)", { mode: "managedIdentity", existingPrincipalId: "e1000000-0000-0000-0000-000000000001" }, AZURE.federated],
  ["managedIdentity (new)", { mode: "managedIdentity", newIdentity: { resourceGroupName: "rg", location: "westeurope" } }, AZURE.userAssignedIdentity],
  ["certificate", { mode: "certificate", certificatePem: cert.certificatePem }, AZURE.certificate],
];
const CREDENTIAL_TYPES = [AZURE.password, AZURE.federated, AZURE.userAssignedIdentity, AZURE.certificate];

describe("AgentUserKit with an Output for every argument", () => {
  it.each(CREDENTIALS)("registers what plain values register, under the same URNs, names, parents and aliases (%s credential)", async (_mode, credential, credentialType) => {
    const plain = await run({ ...PLAIN, credential });
    const outputs = await run(Object.fromEntries(Object.entries({ ...PLAIN, credential }).map(([key, value]) => [key, pulumi.output(value)])) as unknown as AgentUserKitArgs);
    expect(registered(outputs.registrations)).toEqual(registered(plain.registrations));
    expect(outputs.outputs).toEqual(plain.outputs);
    const types = outputs.registrations.map((r) => r.type);
    expect(CREDENTIAL_TYPES.filter((type) => types.includes(type))).toEqual(credentialType === AZURE.userAssignedIdentity ? [AZURE.federated, credentialType] : [credentialType]);
    expect(outputs.registrations.filter((r) => r.type === DYNAMIC.identity).map((r) => r.name).sort()).toEqual(["team-identity", "team-writer-identity"]);
    expect(plain.logs).toEqual([]);
    // Once per component that defers, on that component: the kit for its agents, the blueprint for its credential.
    expect([...outputs.logs].sort()).toEqual([
      expect.stringMatching(/^blueprint: the blueprint's credential resource is registered once .* cannot list it$/),
      expect.stringMatching(/^kit: the agents' identities, users and grants are registered once .* cannot list them$/),
    ]);
  });

  it("keeps the client secret a Pulumi secret, and leaves the other mode's output undefined so no stack exports it", async () => {
    const { kit, outputs } = await run({ ...PLAIN, credential: pulumi.output({ mode: "secret" as const }) });
    expect(outputs.blueprintClientSecret).toBe(IDS.generatedSecret);
    expect(await pulumi.isSecret(kit.outputs.blueprintClientSecret!)).toBe(true);
    expect(outputs.managedIdentityClientId).toBeUndefined();
    expect(await pulumi.isSecret(kit.outputs.managedIdentityClientId!)).toBe(false);
  });
});

describe("AgentUserKit's agents decided by an Output", () => {
  let plain: Run;
  beforeAll(async () => {
    plain = await run(PLAIN);
  });
  const forms: Array<[string, () => Partial<AgentUserKitArgs>]> = [
    ["the list", () => ({ agents: pulumi.output(AGENTS) })],
    ["an agent", () => ({ agents: [AGENTS[0]!, pulumi.output(AGENTS[1]!)] })],
    ["an agent's name", () => ({ agents: [AGENTS[0]!, { ...AGENTS[1]!, name: pulumi.output("writer") }] })],
    ["singleAgentNames", () => ({ singleAgentNames: pulumi.output(true) })],
  ];
  it.each(forms)("%s: the same resources under the same URNs, and the children typed in agentResources", async (_form, deciding) => {
    const deferred = await run({ ...PLAIN, ...deciding() });
    expect(registered(deferred.registrations)).toEqual(registered(plain.registrations));
    expect(deferred.outputs).toEqual(plain.outputs);
    const resources = await valueOf(deferred.kit.agentResources);
    expect(Object.keys(resources)).toEqual(["research", "writer"]);
    expect(await valueOf(pulumi.all([resources.research!.identity.urn, resources.writer!.grant.grantId]))).toEqual([
      plain.registrations.find((r) => r.type === DYNAMIC.identity && r.name === "team-identity")!.urn,
      "grant-id",
    ]);
    expect(() => deferred.kit.agents).toThrow(/^AgentUserKit "team": agents is not known at construction, since an Output decides the agents$/);
    expect(deferred.logs).toEqual([expect.stringMatching(/^kit: the agents' identities/)]);
  });

  it("are registered at construction when only the credential is an Output, kit.agents and agentResources holding the same children", async () => {
    const { kit, logs } = await run({ ...PLAIN, credential: pulumi.output({ mode: "secret" as const }) });
    const resources = await valueOf(kit.agentResources);
    expect(Object.keys(kit.agents)).toEqual(["research", "writer"]);
    expect(resources.writer!.user).toBe(kit.agents.writer!.user);
    expect(logs).toEqual([expect.stringMatching(/^blueprint: /)]);
  });
});

describe("an agent given inside an Output", () => {
  const BAD: AgentArgs[] = [{ name: "research", userName: "bad name" }];

  it("fails the program with the ConfigError of the plain form, naming the agent and the field, and registers no agent", () => {
    let plain: Error | undefined;
    try {
      new AgentUserKit("bad", { ...PLAIN, agents: BAD });
    } catch (err) {
      plain = err as Error;
    }
    expect(plain).toMatchObject({ name: "ConfigError", message: expect.stringContaining('AgentUserKit "bad": agents [0] ("research").userName ') });
    // A program of the built package under Pulumi's mocks, as `pulumi up` runs one: the check runs when the Output resolves.
    const program = `
      const pulumi = require("@pulumi/pulumi");
      const types = [];
      process.on("unhandledRejection", (err) => {
        console.log(JSON.stringify({ name: err.name, message: err.message, problems: err.problems, types }));
        process.exit(3);
      });
      pulumi.runtime.setMocks({ newResource: (a) => (types.push(a.type), { id: a.name, state: a.inputs }), call: () => ({ tenantId: "t" }) }, "p", "s", false);
      const { AgentUserKit } = require("./dist/infra");
      new AgentUserKit("bad", { ...${JSON.stringify(PLAIN)}, agents: pulumi.output(${JSON.stringify(BAD)}) });`;
    const child = spawnSync(process.execPath, ["-e", program], { cwd: ROOT, encoding: "utf8" });
    expect(child.status).toBe(3);
    const failure = JSON.parse(child.stdout.trim().split("\n").pop()!) as { name: string; message: string; problems: unknown; types: string[] };
    // Pulumi puts the property it was serializing before the message: the rest is the plain form's, word for word.
    expect(failure).toMatchObject({ name: "ConfigError", problems: (plain as ConfigError).problems, message: expect.stringMatching(/^(error serializing property "\w+": )*configuration: AgentUserKit "bad": /) });
    expect(failure.message.endsWith(plain!.message)).toBe(true);
    expect(failure.types.filter((type) => type === DYNAMIC.identity || type === DYNAMIC.user)).toEqual([]);
  });
});

/** A resource of the program's whose agentName output the mocks leave unset: unknown in preview. */
class Team extends pulumi.CustomResource {
  declare readonly agentName: pulumi.Output<string>;
  constructor() {
    super("my:index:Team", "team", { agentName: undefined });
  }
}

// Last in the file: it disconnects from the mocks to wait for every registration.
describe("a preview while an Output that decides the agents is unknown", () => {
  it("registers the blueprint and its principal, lists no agent resource, and says so once", async () => {
    const resources = await setAgentUserKitMocks({ preview: true, mocks: { newResource: (a) => ({ id: "", state: a.inputs }), call: () => ({}) } });
    const info = jest.spyOn(pulumi.log, "info").mockResolvedValue();
    try {
      // An output of a resource not yet created: unknown in preview.
      const team = new Team();
      const kit = new AgentUserKit("team", { ...PLAIN, agents: [{ name: team.agentName, userName: "research-agent" }] });
      // As a program's end does: wait until every registration under way is done.
      await pulumi.runtime.disconnect();
      const types = resources.map((r) => r.type);
      expect(types).toEqual(expect.arrayContaining([DYNAMIC.blueprint, DYNAMIC.principal]));
      expect(types.filter((type) => type === DYNAMIC.identity || type === DYNAMIC.user || type === AZURE.grant)).toEqual([]);
      expect(info.mock.calls.map(([message, resource]) => ({ message, onKit: resource === kit }))).toEqual([
        { message: expect.stringMatching(/^the agents' identities, users and grants are registered once/), onKit: true },
      ]);
    } finally {
      info.mockRestore();
    }
  });
});
