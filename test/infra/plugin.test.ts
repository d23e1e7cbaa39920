/**
 * The component plugin's provider, as Pulumi's engine calls it for a program
 * in Python, Go, C# or YAML: AgentUserKit made from the package arguments
 * (the credential one object with a `mode`) registers exactly what the
 * TypeScript arguments register; a credential field of another mode, or a
 * mode's missing field, is refused by name before anything is registered;
 * the outputs are the component's state under the names `agent-user token
 * --outputs` reads, the client secret a Pulumi secret; and a program folder
 * that cannot run the kit's dynamic providers is refused with the command
 * that fixes it.
 */
import * as pulumi from "@pulumi/pulumi";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfSignedCertificate } from "../../emulator/certificate";
import { FLEET_AGENT_KEYS, OPT_IN_OUTPUT_KEYS, STACK_OUTPUT_KEYS } from "../../lib/stack-outputs";
import { PACKAGE_VERSION } from "../../lib/version";
import { AGENT_USER_KIT_TYPE, AgentUserKit, type AgentUserKitArgs, type BlueprintCredentialArgs } from "../../infra";
import { PACKAGE_ARG_NAMES, type AgentUserKitPackageArgs, type CredentialArgs } from "../../infra/plugin/args";
import { programFolderProblems, type ProgramFolderModules } from "../../infra/plugin/program-folder";
import { PackageProvider } from "../../infra/plugin/provider";
import { AZURE, installMocks, valueOf, type Registration } from "./program-harness";

const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const ROOT = join(__dirname, "..", "..");
const BASE = {
  blueprintName: "Team",
  sponsors: [SPONSOR],
  userDomain: "contoso.onmicrosoft.com",
  agents: [
    { name: "research", userName: "research-agent" },
    { name: "writer", userName: "writer-agent", scopes: ["User.Read"] },
  ],
};
/** The repository's folder stands for a program's: it has @pulumi/pulumi, and resolves agent-user-kit (itself) at this version. */
const READY_FOLDER = (): string => ROOT;
const ready: ProgramFolderModules = { resolve: (id) => (id === "agent-user-kit/package.json" ? join(ROOT, "package.json") : require.resolve(id)), read: () => JSON.stringify({ version: PACKAGE_VERSION }) };

/** What decides a resource's URN and what it is made with, in a stable order. */
function registered(registrations: Registration[]): Array<Omit<Registration, "dependencies">> {
  return registrations.map(({ type, name, urn, parent, aliases, inputs }) => ({ type, name, urn, parent, aliases, inputs })).sort((a, b) => a.urn.localeCompare(b.urn));
}

/** The kit made by the provider, as the engine asks for it, with every output waited for. */
async function construct(inputs: pulumi.Inputs, folder = READY_FOLDER): Promise<{ registrations: Registration[]; state: Record<string, pulumi.Output<unknown>> }> {
  const { registrations } = await installMocks();
  const provider = new PackageProvider(folder, ready);
  const result = await provider.construct("team", AGENT_USER_KIT_TYPE, inputs, {});
  const state = result.state as Record<string, pulumi.Output<unknown>>;
  for (const output of Object.values(state)) await valueOf(output);
  return { registrations, state };
}

/** The kit made from the TypeScript arguments, every output waited for. */
async function typescript(args: AgentUserKitArgs): Promise<Registration[]> {
  const { registrations } = await installMocks();
  const kit = new AgentUserKit("team", args);
  for (const output of Object.values(kit.outputs)) await valueOf(output as pulumi.Output<unknown>);
  return registrations;
}

const cert = selfSignedCertificate({ commonName: "plugin test" });
const MODES: Array<[string, CredentialArgs, BlueprintCredentialArgs, string]> = [
  ["secret", { mode: "secret", endDate: "2099-01-01T00:00:00Z" }, { mode: "secret", endDate: "2099-01-01T00:00:00Z" }, AZURE.password],
  ["managedIdentity, existing", { mode: "managedIdentity", existingPrincipalId: SPONSOR }, { mode: "managedIdentity", existingPrincipalId: SPONSOR }, AZURE.federated],
  [
    "managedIdentity, new",
    { mode: "managedIdentity", newIdentity: { resourceGroupName: "rg", location: "westeurope" } },
    { mode: "managedIdentity", newIdentity: { resourceGroupName: "rg", location: "westeurope" } },
    AZURE.userAssignedIdentity,
  ],
  ["certificate", { mode: "certificate", certificatePem: cert.certificatePem }, { mode: "certificate", certificatePem: cert.certificatePem }, AZURE.certificate],
];

describe("the package arguments, as the engine hands them to the plugin", () => {
  it.each(MODES)("register what the TypeScript arguments register (%s)", async (_mode, given, shape, credentialType) => {
    const made = await construct({ ...BASE, credential: given });
    expect(registered(made.registrations)).toEqual(registered(await typescript({ ...BASE, credential: shape })));
    expect(made.registrations.some((r) => r.type === credentialType)).toBe(true);
  });

  it("make a client secret when there is no credential, as the TypeScript component does", async () => {
    const made = await construct(BASE);
    expect(registered(made.registrations)).toEqual(registered(await typescript(BASE)));
  });

  it("take the credential, or its mode, as an Output: the credential resource waits for it, under the same URN", async () => {
    jest.spyOn(pulumi.log, "info").mockResolvedValue();
    const plain = registered((await construct({ ...BASE, credential: MODES[1]![1] })).registrations);
    expect(registered((await construct({ ...BASE, credential: pulumi.output(MODES[1]![1]) })).registrations)).toEqual(plain);
    expect(registered((await construct({ ...BASE, credential: { ...MODES[1]![1], mode: pulumi.output("managedIdentity") } })).registrations)).toEqual(plain);
  });

  const refused: Array<[string, CredentialArgs, RegExp]> = [
    ["a field of another mode", { mode: "secret", certificatePem: cert.certificatePem }, /credential certificatePem is not used in secret mode; remove it or change mode/],
    ["two fields of other modes", { mode: "certificate", certificatePem: "x", endDate: "2099-01-01T00:00:00Z", existingPrincipalId: SPONSOR }, /credential endDate and existingPrincipalId are not used in certificate mode; remove them or change mode/],
    ["certificate mode without its certificate", { mode: "certificate" }, /credential certificatePem is required in certificate mode/],
    ["managedIdentity mode naming no identity", { mode: "managedIdentity" }, /credential managedIdentity mode needs existingPrincipalId \(an existing identity\) or newIdentity/],
    ["managedIdentity mode naming two", { mode: "managedIdentity", existingPrincipalId: SPONSOR, newIdentity: { resourceGroupName: "rg", location: "westeurope" } }, /credential existingPrincipalId and newIdentity are two ways to name the managed identity; give one/],
    ["a mode that is none", { mode: "password" as CredentialArgs["mode"] }, /credential mode must be one of secret, managedIdentity, certificate, got "password"/],
    ["a mode name alone, the TypeScript component's earlier form", "secret" as unknown as CredentialArgs, /credential must be an object with a mode \(secret, managedIdentity, certificate\), not "secret"/],
  ];
  it.each(refused)("refuse %s by name, with the fix in the message, before anything is registered", async (_case, credential, message) => {
    const { registrations } = await installMocks();
    const args: AgentUserKitPackageArgs = { ...BASE, credential };
    const error = await new PackageProvider(READY_FOLDER, ready).construct("team", AGENT_USER_KIT_TYPE, args as unknown as pulumi.Inputs, {}).catch((err: Error) => err);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/^configuration: AgentUserKit "team": .*\(fix the AgentUserKit arguments; /);
    expect(registrations).toEqual([]);
  });

  it("refuse a mistake the TypeScript component refuses, with the same words", async () => {
    const provider = new PackageProvider(READY_FOLDER, ready);
    await installMocks();
    await expect(provider.construct("team", AGENT_USER_KIT_TYPE, { ...BASE, sponsors: ["nope"] }, {})).rejects.toThrow(
      /^configuration: AgentUserKit "team": sponsors must hold user object ids \(GUIDs\), not "nope"; a UPN is not accepted \(fix the AgentUserKit arguments;/,
    );
  });
});

describe("the plugin's construct", () => {
  it("answers with the component's outputs, the properties its schema promises, under the names `agent-user token --outputs` reads; the client secret a secret", async () => {
    const { state } = await construct(BASE);
    const schema = JSON.parse(readFileSync(join(ROOT, "dist/infra/plugin/schema.json"), "utf8")) as { resources: Record<string, { properties: object; required: string[] }> };
    const { properties, required } = schema.resources[AGENT_USER_KIT_TYPE]!;
    // Every property the schema says is always there, and none it does not name.
    expect(Object.keys(state)).toEqual(expect.arrayContaining(required));
    expect(Object.keys(state).filter((key) => !(key in properties))).toEqual([]);
    // A secret-mode stack that opts into nothing: every output token reads but the other mode's and the opt-in ones.
    const absent: string[] = ["managedIdentityClientId", ...OPT_IN_OUTPUT_KEYS];
    expect(Object.keys(state)).toEqual(expect.arrayContaining([...STACK_OUTPUT_KEYS.filter((key) => !absent.includes(key)), "agents"]));
    expect(await pulumi.isSecret(state.blueprintClientSecret as pulumi.Output<string>)).toBe(true);
    const agents = (await valueOf(state.agents!)) as Record<string, Record<string, string>>;
    expect(Object.keys(agents)).toEqual(["research", "writer"]);
    expect(Object.keys(agents.writer!).sort()).toEqual(FLEET_AGENT_KEYS.filter((key) => !absent.includes(key)).sort());
    expect(agents.writer).toMatchObject({ agentUserPrincipalName: "writer-agent@contoso.onmicrosoft.com", grantScopes: "User.Read" });
  });

  it("refuses a type the package does not have, naming the one it has", async () => {
    await expect(new PackageProvider(READY_FOLDER, ready).construct("x", "agent-user-kit:index:Blueprint", BASE, {})).rejects.toThrow(
      'the agent-user-kit package has no component "agent-user-kit:index:Blueprint"; it has agent-user-kit:index:AgentUserKit',
    );
  });

  it("prints an unknown type token with its control characters escaped, and no more than its start", async () => {
    const error = (await new PackageProvider(READY_FOLDER, ready).construct("x", "agent-user-kit:index:\x1b]52;c;eA==\x07\x1b[2J" + "x".repeat(100_000), BASE, {}).catch((err: Error) => err)) as Error;
    expect(error.message).toContain('has no component "agent-user-kit:index:\\x1b]52;c;eA==\\x07\\x1b[2J');
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(error.message.length).toBeLessThan(300);
  });

  it.each([
    ["a provisioner's credential", { provisioner: { clientSecret: "hunter2-client-secret" } }, /AgentUserKit "team": provisioner is not an argument of AgentUserKit \(blueprintName, sponsors, /],
    ["a misspelt argument", { sponsor: ["hunter2-sponsor"] }, /AgentUserKit "team": sponsor is not an argument of AgentUserKit/],
    ["TypeScript's earlier credential form", { secretEndDate: "hunter2-date" }, /AgentUserKit "team": secretEndDate is the TypeScript component's earlier form of credential, not an argument of the package: give it inside credential/],
    ["a name with control characters", { "x\x1b[2Jy": "hunter2" }, /AgentUserKit "team": "x\\x1b\[2Jy" is not an argument of AgentUserKit/],
  ])("refuses a field that is no argument of the package by name, never echoing its value: %s", async (_case, extra, message) => {
    const { registrations } = await installMocks();
    const error = (await new PackageProvider(READY_FOLDER, ready).construct("team", AGENT_USER_KIT_TYPE, { ...BASE, ...extra }, {}).catch((err: Error) => err)) as Error;
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("hunter2");
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\x00-\x1f]/);
    expect(registrations).toEqual([]);
  });

  it("knows the package's arguments as its schema lists them", () => {
    const schema = JSON.parse(readFileSync(join(ROOT, "dist/infra/plugin/schema.json"), "utf8")) as { resources: Record<string, { inputProperties: object }> };
    expect([...PACKAGE_ARG_NAMES].sort()).toEqual(Object.keys(schema.resources[AGENT_USER_KIT_TYPE]!.inputProperties).sort());
  });

  it("refuses an argument nested 5,000 deep by name, where it overflowed the stack, before anything is registered", async () => {
    let deep: unknown = "x";
    for (let i = 0; i < 5000; i++) deep = { d: deep };
    const { registrations } = await installMocks();
    const error = (await new PackageProvider(READY_FOLDER, ready).construct("team", AGENT_USER_KIT_TYPE, { ...BASE, agents: [{ name: "a", userName: "agent-a", scopes: deep }] }, {}).catch((err: Error) => err)) as Error;
    expect(error.message).toMatch(/^configuration: AgentUserKit "team": agents nests more than 32 lists and objects deep; no argument of the kit goes past 4/);
    expect(registrations).toEqual([]);
    // The TypeScript component, the same.
    expect(() => new AgentUserKit("deep", { ...BASE, agents: [{ name: "a", userName: "agent-a", scopes: deep as string[] }] })).toThrow(/AgentUserKit "deep": agents nests more than 32 lists and objects deep/);
    // A cycle nests without end: refused as too deep, where it would never have ended.
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => new AgentUserKit("cycle", { ...BASE, agents: [{ name: "a", userName: "agent-a", scopes: cyclic as unknown as string[] }] })).toThrow(/AgentUserKit "cycle": agents nests more than 32/);
  });

  it("refuses a program folder that cannot run the dynamic providers, naming the folder and the command that fixes it", async () => {
    const { registrations } = await installMocks();
    const missing = (): never => {
      throw Object.assign(new Error("Cannot find module"), { code: "MODULE_NOT_FOUND" });
    };
    await expect(new PackageProvider(() => "/srv/program", { resolve: missing, read: () => "" }).construct("team", AGENT_USER_KIT_TYPE, BASE, {})).rejects.toThrow(
      `the agent-user-kit plugin: AgentUserKit "team": Pulumi runs the kit's Graph resources (dynamic providers) from the program's folder, /srv/program, and @pulumi/pulumi is not installed there; agent-user-kit is not installed there (pulumi/pulumi#5455) (in that folder: npm install agent-user-kit@${PACKAGE_VERSION} @pulumi/pulumi @pulumi/azuread)`,
    );
    expect(registrations).toEqual([]);
  });
});

describe("the program folder's modules", () => {
  const modules = (have: Record<string, string>): ProgramFolderModules => ({
    resolve: (id) => {
      if (!(id in have)) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
      return `/p/node_modules/${id}`;
    },
    read: (file) => have[file.slice("/p/node_modules/".length)]!,
  });
  const kit = (version: string) => ({ "agent-user-kit/package.json": JSON.stringify({ name: "agent-user-kit", version }) });

  it("are ready with @pulumi/pulumi and this kit at this version", () => {
    expect(programFolderProblems("/p", modules({ "@pulumi/pulumi/cmd/dynamic-provider": "", ...kit(PACKAGE_VERSION) }))).toEqual([]);
  });

  it("name another version of the kit, whose provider code would run instead of this one's", () => {
    expect(programFolderProblems("/p", modules({ "@pulumi/pulumi/cmd/dynamic-provider": "", ...kit("0.0.1") }))).toEqual([
      `the agent-user-kit installed there is "0.0.1", not this plugin's ${PACKAGE_VERSION}`,
    ]);
  });

  it("let an error other than a missing module through", () => {
    const broken: ProgramFolderModules = {
      resolve: () => {
        throw Object.assign(new Error("EACCES"), { code: "EACCES" });
      },
      read: () => "",
    };
    expect(() => programFolderProblems("/p", broken)).toThrow("EACCES");
  });

  it("resolve from the folder itself, as the dynamic-provider host does, never by the kit's own name from where the plugin is", () => {
    // The built plugin, inside the package agent-user-kit, asked about a folder with nothing installed and one with the repository's modules.
    const check = (folder: string) =>
      spawnSync(process.execPath, ["-e", `console.log(JSON.stringify(require("./dist/infra/plugin/program-folder").programFolderProblems(${JSON.stringify(folder)})))`], { cwd: ROOT, encoding: "utf8" });
    const empty = mkdtempSync(join(tmpdir(), "program-folder-"));
    try {
      expect(JSON.parse(check(empty).stdout)).toEqual(["@pulumi/pulumi is not installed there", "agent-user-kit is not installed there"]);
      expect(JSON.parse(check(ROOT).stdout)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

it("the built provider serves the schema the build wrote beside it", async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const built = require(join(ROOT, "dist/infra/plugin/provider")) as { PackageProvider: new () => PackageProvider };
  const schema = JSON.parse(await new built.PackageProvider().getSchema()) as { name: string; version: string; resources: Record<string, unknown> };
  expect({ name: schema.name, version: schema.version, resources: Object.keys(schema.resources) }).toEqual({ name: "agent-user-kit", version: PACKAGE_VERSION, resources: [AGENT_USER_KIT_TYPE] });
});
