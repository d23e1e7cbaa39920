/**
 * Every AgentUserKit argument is a pulumi.Input: a program that passes
 * Outputs type-checks, and their values are checked by the same rules as
 * plain ones, once they resolve. The last case runs the built package (dist/).
 */
import * as pulumi from "@pulumi/pulumi";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ts from "typescript";
import { AgentUserKit } from "../../infra";
import { DYNAMIC, installMocks, valueOf } from "./program-harness";

const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const ROOT = join(__dirname, "..", "..");

describe("AgentUserKit's arguments as Outputs", () => {
  it("type-check in a program that passes an Output to every argument", () => {
    const dir = mkdtempSync(join(tmpdir(), "kit-inputs-"));
    try {
      const file = join(dir, "program.ts");
      // The mapped types make the program name every argument and every agent field, each an Output:
      // an argument added, or one that stops taking an Output, fails the check.
      writeFileSync(
        file,
        `import * as pulumi from "@pulumi/pulumi";
import { AgentUserKit, type AgentArgs, type AgentUserKitArgs } from ${JSON.stringify(join(ROOT, "infra"))};
const o = <T>(value: T) => pulumi.output(value);
type EveryOneAnOutput<T> = { [K in keyof T]-?: pulumi.Output<unknown> };
const agent = { name: o("research"), identityName: o("Research"), userName: o("research-agent"), scopes: o(["User.Read"]),
  appRoles: o([{ resource: "00000003-0000-0000-c000-000000000000", roles: ["User.Read.All"] }]), onBehalfOfScopes: o(["User.Read"]) } satisfies EveryOneAnOutput<AgentArgs>;
const args = {
  blueprintName: o("Research agents"),
  sponsors: o(["${SPONSOR}"]),
  userDomain: o("contoso.onmicrosoft.com"),
  agents: o([agent]),
  scopes: o(["User.Read"]),
  allowedScopes: o(["User.Read"]),
  resourceAppId: o("00000003-0000-0000-c000-000000000000"),
  credential: o({ mode: "certificate" as const, certificatePem: o("-----BEGIN CERTIFICATE-----") }),
  secretEndDate: o("2030-01-01T00:00:00Z"),
  managedIdentityPrincipalId: o("${SPONSOR}"),
  resourceGroupName: o("rg"),
  location: o("westeurope"),
  certificatePem: o("-----BEGIN CERTIFICATE-----"),
  graphUrl: o("https://graph.microsoft.com"),
  authorityUrl: o("https://login.microsoftonline.com"),
  tokenExchangeAudience: o("api://AzureADTokenExchange"),
  consistencyWindowSeconds: o(120),
  onBehalfOfScope: o("access_agent"),
  onBehalfOfClients: o(["${SPONSOR}"]),
  singleAgentNames: o(true),
} satisfies EveryOneAnOutput<AgentUserKitArgs>;
export const kit = new AgentUserKit("agents", args);
// An Output for one agent of a plain list, an Output for its name, and each credential form as an Output.
export const each = new AgentUserKit("each", { ...args, agents: [o(agent), { ...agent, name: o("writer") }], credential: o({ mode: "secret" as const }) });
export const mi = new AgentUserKit("mi", { ...args, credential: o({ mode: "managedIdentity" as const, newIdentity: { resourceGroupName: o("rg"), location: "westeurope" } }) });
export const existing = new AgentUserKit("existing", { ...args, credential: o({ mode: "managedIdentity" as const, existingPrincipalId: "${SPONSOR}" }) });
export const identityId: pulumi.Output<string> = kit.agentResources.apply((agents) => agents.research!.identity.identityId);
`,
      );
      const program = ts.createProgram([file], {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        // The kit's sources load the permission table from JSON, as the repository's tsconfig allows.
        resolveJsonModule: true,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules", "@types")],
        baseUrl: ROOT,
        paths: { "*": [join(ROOT, "node_modules", "*")] },
      });
      const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("take the values the Outputs resolve to", async () => {
    const { registrations } = await installMocks();
    const kit = new AgentUserKit("team", {
      blueprintName: "Team",
      sponsors: [SPONSOR],
      userDomain: pulumi.output("fabrikam.onmicrosoft.com"),
      agents: [{ name: "a", userName: pulumi.output("agent-a") }],
      scopes: pulumi.output(["User.Read"]),
    });
    expect(await valueOf(kit.outputs.agents)).toMatchObject({ a: { agentUserPrincipalName: "agent-a@fabrikam.onmicrosoft.com", grantScopes: "User.Read" } });
    expect(registrations.find((r) => r.type === DYNAMIC.user)?.inputs).toMatchObject({ userPrincipalName: "agent-a@fabrikam.onmicrosoft.com", mailNickname: "agent-a" });
  });

  it("fail the program when an Output resolves to a value the plain check refuses, naming the component and the argument", () => {
    // A program of the built package under Pulumi's mocks, as `pulumi up` runs one: the check runs when the Output resolves.
    const program = `
      const pulumi = require("@pulumi/pulumi");
      pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({ tenantId: "t", objectId: "o", clientId: "c", servicePrincipalNames: [] }) }, "p", "s", false);
      const { AgentUserKit } = require("./dist/infra");
      new AgentUserKit("bad", { blueprintName: "B", sponsors: ["${SPONSOR}"], userDomain: pulumi.output("not a domain"), agents: [{ name: "a", userName: "agent-a" }] });`;
    const run = spawnSync(process.execPath, ["-e", program], { cwd: ROOT, encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('AgentUserKit "bad": userDomain must be a domain name such as contoso.onmicrosoft.com (got "not a domain")');
  });

  it("still refuse a bad plain value at construction, beside Outputs whose check they do not share", () => {
    expect(
      () => new AgentUserKit("mixed", { blueprintName: pulumi.output("B"), sponsors: ["nope"], userDomain: pulumi.output("contoso.onmicrosoft.com"), agents: [{ name: "a", userName: "agent-a" }] }),
    ).toThrow(/^configuration: AgentUserKit "mixed": sponsors must hold user object ids \(GUIDs\), not "nope"; a UPN is not accepted$/);
  });
});

describe("AgentUserKit's credential", () => {
  it("takes the shape AgentIdentityBlueprint takes, and checks it by the same rules", async () => {
    const { registrations } = await installMocks();
    const kit = new AgentUserKit("mi", {
      blueprintName: "B",
      sponsors: [SPONSOR],
      userDomain: "contoso.onmicrosoft.com",
      agents: [{ name: "a", userName: "agent-a" }],
      credential: { mode: "managedIdentity", existingPrincipalId: pulumi.output(SPONSOR) },
    });
    await valueOf(kit.outputs.agents);
    expect(registrations.find((r) => r.type.endsWith("ApplicationFederatedIdentityCredential"))?.inputs).toMatchObject({ subject: SPONSOR });
    expect(kit.outputs.blueprintClientSecret).toBeUndefined();
    expect(
      () => new AgentUserKit("bad", { blueprintName: "B", sponsors: [SPONSOR], userDomain: "contoso.onmicrosoft.com", agents: [{ name: "a", userName: "agent-a" }], credential: { mode: "secret", endDate: "2001-01-01T00:00:00Z" } }),
    ).toThrow(/AgentUserKit "bad": secretEndDate /);
    expect(
      () =>
        new AgentUserKit("both", {
          blueprintName: "B",
          sponsors: [SPONSOR],
          userDomain: "contoso.onmicrosoft.com",
          agents: [{ name: "a", userName: "agent-a" }],
          credential: { mode: "secret" },
          managedIdentityPrincipalId: SPONSOR,
        }),
    ).toThrow(/AgentUserKit "both": managedIdentityPrincipalId is the earlier form of credential/);
  });
});
