/**
 * Many agents per blueprint: the stack's `agents` list, the one-agent
 * shorthand that keeps existing stacks' URNs, and the fleet's outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AgentUserKit } from "../../infra/components/agent-user-kit";
import { AZURE, DYNAMIC, IDS, configFailure, installMocks, runStackProgram, valueOf, type Program, type Registration } from "./program-harness";

const BASE: Record<string, string> = {
  "agent-user-kit:userDomain": "contoso.onmicrosoft.com",
  "agent-user-kit:blueprintName": "Kit Blueprint",
  "agent-user-kit:sponsors": '["5e000000-0000-0000-0000-000000000001"]',
};
const SHORTHAND = { ...BASE, "agent-user-kit:agentIdentityName": "Kit Agent", "agent-user-kit:agentUserName": "kit-agent" };
const THREE_AGENTS = JSON.stringify([
  { name: "research", userName: "research-agent" },
  { name: "writer", identityName: "Writer agent", userName: "writer-agent", scopes: ["User.Read", "Files.Read.All"] },
  { name: "triage", userName: "triage-agent" },
]);

/** Runs infra/stack.ts under mocks with this stack configuration. */
async function runStack(config: Record<string, string>): Promise<{ program: Program; registrations: Registration[] }> {
  const { registrations } = await installMocks();
  pulumi.runtime.setAllConfig(config);
  const program = runStackProgram();
  await valueOf(program.agents!);
  return { program, registrations };
}

describe("existing one-agent stacks keep their URNs", () => {
  // Recorded from the program as it was before fleets (commit 0827666), in each credential mode.
  const before = JSON.parse(readFileSync(join(__dirname, "../fixtures/single-agent-urns.json"), "utf8")) as Record<string, string[]>;
  const modes: Record<string, Record<string, string>> = {
    secret: {},
    managedIdentityNew: { "agent-user-kit:credential": "managedIdentity", "agent-user-kit:resourceGroupName": "rg", "agent-user-kit:location": "westeurope" },
    managedIdentityExisting: { "agent-user-kit:credential": "managedIdentity", "agent-user-kit:managedIdentityPrincipalId": "c1000000-0000-0000-0000-000000000001" },
  };
  // The first agent's identity and user, each inside a component that wrapped it and owned nothing else.
  const wrapped = {
    identity: {
      urn: "urn:pulumi:test::agent-user-kit::agent-user-kit:index:AgentIdentity$pulumi-nodejs:dynamic/agent-user-kit:AgentIdentity::agent-user-kit-identity-identity",
      parent: "urn:pulumi:test::agent-user-kit::agent-user-kit:index:AgentUserKit$agent-user-kit:index:AgentIdentity::agent-user-kit-identity",
    },
    user: {
      urn: "urn:pulumi:test::agent-user-kit::agent-user-kit:index:AgentUser$pulumi-nodejs:dynamic/agent-user-kit:AgentUser::agent-user-kit-user-user",
      parent: "urn:pulumi:test::agent-user-kit::agent-user-kit:index:AgentUserKit$agent-user-kit:index:AgentUser::agent-user-kit-user",
    },
  };
  it.each(Object.keys(modes))("%s mode: each resource stands under its recorded URN or is aliased from it", async (mode) => {
    const { registrations, program } = await runStack({ ...SHORTHAND, ...modes[mode] });
    const recorded = before[mode]!;
    expect(recorded).toEqual(expect.arrayContaining([wrapped.identity.urn, wrapped.identity.parent, wrapped.user.urn, wrapped.user.parent]));
    // The resources whose names lost a doubled suffix (`-blueprint-blueprint`, `-identity-identity`, ...) are aliased from
    // their recorded URN; the identity and the user also from where they stood once their wrappers went, beside them under the kit.
    const moved = Object.fromEntries(registrations.filter((r) => !recorded.includes(r.urn)).map((r) => [r.name, r.aliases.map((a) => a.urn)]));
    const kit = "urn:pulumi:test::agent-user-kit::agent-user-kit:index:AgentUserKit";
    expect(moved).toEqual({
      "agent-user-kit-blueprint": [recorded.find((urn) => urn.endsWith("::agent-user-kit-blueprint-blueprint"))],
      "agent-user-kit-identity": [`${kit}$${DYNAMIC.identity}::agent-user-kit-identity-identity`, wrapped.identity.urn],
      "agent-user-kit-user": [`${kit}$${DYNAMIC.user}::agent-user-kit-user-user`, wrapped.user.urn],
      "agent-user-kit-grant": [recorded.find((urn) => urn.endsWith("::agent-user-kit-grant-grant"))],
    });
    // Every other resource keeps its URN; only the wrappers go (they held no Graph object of their own).
    const kept = registrations.flatMap((r) => [r.urn, ...r.aliases.map((alias) => alias.urn)]);
    expect(recorded.filter((urn) => !kept.includes(urn))).toEqual([wrapped.identity.parent, wrapped.user.parent]);
    expect(Object.keys(await valueOf(program.agents!) as object)).toEqual(["kit-agent"]);
  });
});

describe("a stack with three agents", () => {
  let program: Program;
  let registrations: Registration[];
  beforeAll(async () => {
    ({ program, registrations } = await runStack({ ...BASE, "agent-user-kit:agents": THREE_AGENTS, "agent-user-kit:scopes": '["User.Read"]' }));
  });

  it("makes one blueprint and, per agent, an identity, an agent user and a grant, named after the agent", () => {
    const count = (type: string) => registrations.filter((r) => r.type === type).length;
    expect([count(DYNAMIC.blueprint), count(DYNAMIC.principal), count(AZURE.password)]).toEqual([1, 1, 1]);
    expect([count(DYNAMIC.identity), count(DYNAMIC.user), count(AZURE.grant)]).toEqual([3, 3, 3]);
    const identities = registrations.filter((r) => r.type === DYNAMIC.identity).map((r) => r.name);
    expect(identities.sort()).toEqual(["agent-user-kit-research-identity", "agent-user-kit-triage-identity", "agent-user-kit-writer-identity"]);
    const users = Object.fromEntries(registrations.filter((r) => r.type === DYNAMIC.user).map((r) => [r.name, r.inputs.userPrincipalName]));
    expect(users).toEqual({
      "agent-user-kit-research-user": "research-agent@contoso.onmicrosoft.com",
      "agent-user-kit-writer-user": "writer-agent@contoso.onmicrosoft.com",
      "agent-user-kit-triage-user": "triage-agent@contoso.onmicrosoft.com",
    });
    const identityNames = registrations.filter((r) => r.type === DYNAMIC.identity).map((r) => r.inputs.displayName);
    expect(identityNames.sort()).toEqual(["Writer agent", "research", "triage"]);
    // Registration order follows the ids' resolution; compare by name.
    const grants = Object.fromEntries(registrations.filter((r) => r.type === AZURE.grant).map((r) => [r.name, r.inputs.claimValues]));
    expect(grants).toEqual({
      "agent-user-kit-research-grant": ["User.Read"],
      "agent-user-kit-writer-grant": ["User.Read", "Files.Read.All"],
      "agent-user-kit-triage-grant": ["User.Read"],
    });
  });

  it("aliases each agent's identity and agent user from its doubled name under the kit and inside the component that wrapped it, so fleets made before keep them", () => {
    const aliases = Object.fromEntries(registrations.filter((r) => r.type === DYNAMIC.identity || r.type === DYNAMIC.user).map((r) => [r.name, r.aliases]));
    const kit = "urn:pulumi:test::agent-user-kit::agent-user-kit:index:AgentUserKit";
    // The resource `name` beside the kit's other children, and inside the wrapper `wrapper` of type `type`, a child of the kit.
    const inside = (type: string, wrapper: string, dynamic: string, name: string) => [
      { urn: `${kit}$${dynamic}::${name}`, parent: `${kit}::agent-user-kit` },
      { urn: `urn:pulumi:test::agent-user-kit::agent-user-kit:index:${type}$${dynamic}::${name}`, parent: `${kit}$agent-user-kit:index:${type}::${wrapper}` },
    ];
    // The first agent may be a one-agent stack's, moved to `agents`: it is aliased from the one-agent names too.
    const oneAgent = (type: string, dynamic: string, suffix: string) => [
      { urn: `${kit}$${dynamic}::agent-user-kit-${suffix}`, parent: `${kit}::agent-user-kit` },
      ...inside(type, `agent-user-kit-${suffix}`, dynamic, `agent-user-kit-${suffix}-${suffix}`),
    ];
    expect(aliases).toEqual(
      Object.fromEntries(
        ["research", "writer", "triage"].flatMap((agent, index) => [
          [
            `agent-user-kit-${agent}-identity`,
            [
              ...inside("AgentIdentity", `agent-user-kit-${agent}-identity`, DYNAMIC.identity, `agent-user-kit-${agent}-identity-identity`),
              ...(index === 0 ? oneAgent("AgentIdentity", DYNAMIC.identity, "identity") : []),
            ],
          ],
          [
            `agent-user-kit-${agent}-user`,
            [...inside("AgentUser", `agent-user-kit-${agent}-user`, DYNAMIC.user, `agent-user-kit-${agent}-user-user`), ...(index === 0 ? oneAgent("AgentUser", DYNAMIC.user, "user") : [])],
          ],
        ]),
      ),
    );
  });

  it("exports the agents map, and the top-level keys for the first agent", async () => {
    const agents = (await valueOf(program.agents!)) as Record<string, Record<string, string>>;
    expect(Object.keys(agents)).toEqual(["research", "writer", "triage"]);
    expect(Object.keys(agents.writer!).sort()).toEqual(["agentIdentityId", "agentUserId", "agentUserPrincipalName", "grantId", "grantScopes"]);
    expect(agents.writer).toMatchObject({ agentUserPrincipalName: "writer-agent@contoso.onmicrosoft.com", grantScopes: "User.Read Files.Read.All" });
    expect(await valueOf(program.agentUserPrincipalName!)).toBe("research-agent@contoso.onmicrosoft.com");
    expect(await valueOf(program.grantScopes!)).toBe(agents.research!.grantScopes);
  });
});

describe("the agents list is checked before any resource is registered", () => {
  const failure = configFailure;

  it("names the agent and the field of every problem at once", async () => {
    const agents = JSON.stringify([
      { name: "research", userName: "bad name" },
      { name: "research", userName: "other", scopes: ["Mail.Send"] },
      { userName: "x", colour: "blue" },
    ]);
    const message = await failure({ ...BASE, "agent-user-kit:agents": agents });
    expect(message).toContain('agent-user-kit:agents [0] ("research").userName may hold only');
    expect(message).toContain('agent-user-kit:agents [1] ("research").name is used by another agent');
    expect(message).toContain('agent-user-kit:agents [1] ("research").scopes holds Mail.Send, not in the allow-list');
    expect(message).toContain("agent-user-kit:agents [2].colour is not an agent field");
    expect(message).toContain("agent-user-kit:agents [2].name is required");
  });

  it("refuses the example stack file's all-zero placeholder, naming the key and the stack file", async () => {
    const { registrations } = await installMocks();
    pulumi.runtime.setAllConfig({ ...SHORTHAND, "agent-user-kit:sponsors": '["00000000-0000-0000-0000-000000000000"]' });
    let error: { message?: string; hint?: string } = {};
    try {
      runStackProgram();
    } catch (err) {
      error = err as typeof error;
    }
    expect(registrations).toEqual([]);
    expect(error.message).toContain("agent-user-kit:sponsors is the placeholder 00000000-0000-0000-0000-000000000000 of the example stack file");
    expect(error.hint).toMatch(/^in Pulumi\.test\.yaml: /);
  });

  it("refuses the one-agent keys beside agents", async () => {
    const message = await failure({ ...SHORTHAND, "agent-user-kit:agents": THREE_AGENTS });
    expect(message).toContain("agent-user-kit:agentIdentityName is the one-agent shorthand");
  });
});

describe("AgentUserKit from any Pulumi program", () => {
  it("takes Pulumi inputs, and names the component in its errors", async () => {
    const { registrations } = await installMocks();
    const kit = new AgentUserKit("team", {
      blueprintName: pulumi.output("Team blueprint"),
      sponsors: pulumi.output(["5e000000-0000-0000-0000-000000000001"]),
      userDomain: "contoso.onmicrosoft.com",
      agents: [{ name: "a", userName: "agent-a" }],
    });
    await valueOf(kit.outputs.agents);
    expect(registrations.find((r) => r.type === DYNAMIC.blueprint)?.inputs.displayName).toBe("Team blueprint");
    expect(() => new AgentUserKit("bad", { blueprintName: "b", sponsors: ["nope"], userDomain: "contoso.onmicrosoft.com", agents: [] })).toThrow(
      /AgentUserKit "bad": sponsors must hold user object ids .*; AgentUserKit "bad": agents must be a non-empty list/,
    );
  });

  it("exposes its children as typed properties: the blueprint, its principal, and each agent's identity, user and grant, named once", async () => {
    await installMocks();
    const kit = new AgentUserKit("team", {
      blueprintName: "Team blueprint",
      sponsors: ["5e000000-0000-0000-0000-000000000001"],
      userDomain: "contoso.onmicrosoft.com",
      agents: [{ name: "a", userName: "agent-a" }, { name: "b", userName: "agent-b" }],
    });
    expect(Object.keys(kit.agents)).toEqual(["a", "b"]);
    const { identity, user, grant } = kit.agents.b!;
    expect(await valueOf(pulumi.all([kit.blueprint.appId, kit.principal.principalId, identity.identityId, user.userPrincipalName, grant.grantId]))).toEqual([
      IDS.blueprintAppId,
      IDS.blueprintPrincipalId,
      IDS.agentIdentityId,
      "agent-b@contoso.onmicrosoft.com",
      "grant-id",
    ]);
    const names = await valueOf(pulumi.all([kit.blueprint.application.urn, kit.principal.urn, identity.urn, user.urn, grant.grant.urn]));
    expect(names.map((urn) => urn.split("::").pop())).toEqual(["team-blueprint", "team-blueprint-principal", "team-b-identity", "team-b-user", "team-b-grant"]);
  });
});
