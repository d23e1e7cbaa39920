/**
 * The kit's opt-in resources: an agent's app roles (an azuread
 * AppRoleAssignment per role, on the agent identity), the blueprint's exposed
 * API and an agent's on-behalf-of consent, each made only for a stack that
 * asks for it and visible in its outputs.
 */
import * as pulumi from "@pulumi/pulumi";
import { AgentUserKit, type AgentArgs } from "../../infra";
import { appRoleId } from "../../infra/components/app-roles";
import { setAgentUserKitMocks, MOCK_IDS } from "../../infra/testing";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { AZURE, IDS, OPT_IN_DYNAMIC, configFailure, installMocks, runStackProgram, valueOf, type Program, type Registration } from "./program-harness";

const BASE: Record<string, string> = {
  "agent-user-kit:userDomain": "contoso.onmicrosoft.com",
  "agent-user-kit:blueprintName": "Kit Blueprint",
  "agent-user-kit:sponsors": '["5e000000-0000-0000-0000-000000000001"]',
};
const FRONT_END = "f1000000-0000-0000-0000-0000000000f1";
const OPTED_IN = {
  ...BASE,
  "agent-user-kit:agents": JSON.stringify([
    { name: "research", userName: "research-agent", appRoles: [{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User.Read.All", "Mail.Send"] }], onBehalfOfScopes: ["User.Read"] },
    { name: "writer", userName: "writer-agent" },
  ]),
  "agent-user-kit:onBehalfOfScope": "access_agent",
  "agent-user-kit:onBehalfOfClients": JSON.stringify([FRONT_END]),
};

async function runStack(config: Record<string, string>): Promise<{ program: Program; registrations: Registration[] }> {
  const { registrations } = await installMocks();
  pulumi.runtime.setAllConfig(config);
  const program = runStackProgram();
  await settled(program);
  return { program, registrations };
}

/** Every output's value: then every resource, and every component's outputs, are registered, and the next test's mocks meet none of them. */
async function settled(outputs: object): Promise<void> {
  await Promise.all(Object.values(outputs).filter((output) => pulumi.Output.isInstance(output)).map((output) => valueOf(output as pulumi.Output<unknown>)));
}

describe("a stack whose first agent opts into app roles and on-behalf-of", () => {
  let program: Program;
  let registrations: Registration[];
  beforeAll(async () => {
    ({ program, registrations } = await runStack(OPTED_IN));
  });

  it("assigns each app role to the agent identity on the resource's principal, by the role's id, under the agent's AppRoles component", () => {
    const assignments = registrations.filter((r) => r.type === AZURE.appRoleAssignment);
    expect(Object.fromEntries(assignments.map((r) => [r.name, r.inputs]))).toEqual({
      "agent-user-kit-research-app-roles-graph-User.Read.All": { principalObjectId: IDS.agentIdentityId, resourceObjectId: IDS.graphServicePrincipalId, appRoleId: "df021288-bdef-4463-88db-98f22de89214" },
      "agent-user-kit-research-app-roles-graph-Mail.Send": { principalObjectId: IDS.agentIdentityId, resourceObjectId: IDS.graphServicePrincipalId, appRoleId: "b633e1c5-b582-4048-a93e-9f11b44c7e96" },
    });
    const component = registrations.find((r) => r.type === "agent-user-kit:index:AppRoles")!;
    expect(component.name).toBe("agent-user-kit-research-app-roles");
    expect(assignments.every((r) => r.parent === component.urn)).toBe(true);
  });

  it("exposes api://{appId} with the scope on the blueprint, pre-authorized for the front end, and consents for the agent identity for all principals", () => {
    const api = registrations.filter((r) => r.type === OPT_IN_DYNAMIC.blueprintApi);
    expect(api.map((r) => [r.name, r.inputs.blueprintAppId, r.inputs.blueprintObjectId, r.inputs.scope, r.inputs.preAuthorizedClients])).toEqual([
      ["agent-user-kit-blueprint-api", IDS.blueprintAppId, IDS.blueprintObjectId, "access_agent", [FRONT_END]],
    ]);
    const grants = registrations.filter((r) => r.type === AZURE.grant);
    const consent = grants.find((r) => r.name === "agent-user-kit-research-obo-consent")!;
    // No userObjectId: an admin consent for any person whose token the agent identity exchanges.
    expect(consent.inputs).toEqual({ servicePrincipalObjectId: IDS.agentIdentityId, resourceServicePrincipalObjectId: IDS.graphServicePrincipalId, claimValues: ["User.Read"] });
    expect(grants.map((r) => r.name).sort()).toEqual(["agent-user-kit-research-grant", "agent-user-kit-research-obo-consent", "agent-user-kit-writer-grant"]);
  });

  it("shows them in the outputs: the first agent's at the top level and in agents, none for an agent that opts into nothing", async () => {
    expect(await valueOf(program.appRoles!)).toEqual([{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User.Read.All", "Mail.Send"] }]);
    expect(await valueOf(program.blueprintIdentifierUri!)).toBe(`api://${IDS.blueprintAppId}`);
    expect(await valueOf(program.blueprintScope!)).toBe("access_agent");
    expect([await valueOf(program.onBehalfOfGrantId!), await valueOf(program.onBehalfOfScopes!)]).toEqual(["grant-id", "User.Read"]);
    const agents = (await valueOf(program.agents!)) as Record<string, Record<string, unknown>>;
    expect(agents.research).toMatchObject({ appRoles: [{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User.Read.All", "Mail.Send"] }], onBehalfOfGrantId: "grant-id", onBehalfOfScopes: "User.Read" });
    expect(Object.keys(agents.writer!).sort()).toEqual(["agentIdentityId", "agentUserId", "agentUserPrincipalName", "grantId", "grantScopes"]);
  });
});

describe("a stack that opts into nothing", () => {
  it("makes none of the opt-in resources and exports none of their outputs", async () => {
    const { program, registrations } = await runStack({ ...BASE, "agent-user-kit:agentIdentityName": "Kit Agent", "agent-user-kit:agentUserName": "kit-agent" });
    const types = new Set(registrations.map((r) => r.type));
    expect([AZURE.appRoleAssignment, OPT_IN_DYNAMIC.blueprintApi, "agent-user-kit:index:AppRoles", "agent-user-kit:index:OnBehalfOfConsent"].filter((t) => types.has(t))).toEqual([]);
    expect(["appRoles", "blueprintIdentifierUri", "blueprintScope", "onBehalfOfGrantId", "onBehalfOfScopes"].filter((key) => program[key] !== undefined)).toEqual([]);
  });
});

describe("the opt-in fields are checked before any resource is registered", () => {
  const failure = configFailure;

  it("names each problem: a malformed appRoles, a role value with a space, a consent scope outside the allow-list, clients or consent without the exposed API", async () => {
    const agents = JSON.stringify([
      { name: "a", userName: "agent-a", appRoles: [{ resource: "graph", roles: ["User.Read.All"] }] },
      { name: "b", userName: "agent-b", appRoles: [{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User Read"] }] },
      { name: "c", userName: "agent-c", onBehalfOfScopes: ["Mail.Sendd"] },
    ]);
    const message = await failure({ ...BASE, "agent-user-kit:agents": agents, "agent-user-kit:onBehalfOfClients": JSON.stringify([FRONT_END]) });
    expect(message).toContain('agent-user-kit:agents [0] ("a").appRoles must be a list of { resource, roles }');
    expect(message).toContain('agent-user-kit:agents [1] ("b").appRoles holds the role "User Read"');
    expect(message).toContain('agent-user-kit:agents [2] ("c").onBehalfOfScopes holds Mail.Sendd');
    expect(message).toContain("agent-user-kit:onBehalfOfClients pre-authorizes clients for the blueprint's exposed scope: set onBehalfOfScope too");
    const consenting = JSON.stringify([{ name: "d", userName: "agent-d", onBehalfOfScopes: ["User.Read"] }]);
    expect(await failure({ ...BASE, "agent-user-kit:agents": consenting })).toContain(
      "agent-user-kit:agents d gives onBehalfOfScopes, which need the blueprint's exposed API: set onBehalfOfScope",
    );
  });

  it("refuses a scope with a space as the exposed scope", async () => {
    const message = await failure({ ...BASE, "agent-user-kit:agentIdentityName": "A", "agent-user-kit:agentUserName": "a", "agent-user-kit:onBehalfOfScope": "access agent" });
    expect(message).toContain("agent-user-kit:onBehalfOfScope may hold only letters, digits and");
    expect(message).toContain('(no space, quote, backslash or control character): one scope name such as access_agent, got "access agent"');
  });
});

describe("an app role the resource does not publish", () => {
  const graph = { appRoleIds: { "User.Read.All": "r1", "Group.Read.All": "r2" }, displayName: "Microsoft Graph" } as unknown as Parameters<typeof appRoleId>[0];

  it("fails its assignment naming the resource, the nearest role and every role it publishes", () => {
    expect(appRoleId(graph, "User.Read.All", MICROSOFT_GRAPH_APP_ID)).toBe("r1");
    expect(() => appRoleId(graph, "User.ReadAll", MICROSOFT_GRAPH_APP_ID)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('publishes no app role "User.ReadAll" (did you mean User.Read.All?)'), hint: "its app roles: Group.Read.All, User.Read.All" }),
    );
  });
});

describe("AgentUserKit's opt-ins from a program's arguments", () => {
  const AGENTS: AgentArgs[] = [{ name: "ops", userName: "ops-agent", appRoles: [{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User.Read.All"] }] }];

  it("registers the same resources when the agents come from an Output, once it resolves", async () => {
    const { registrations } = await installMocks();
    const kit = new AgentUserKit("team", { blueprintName: "Team", sponsors: ["5e000000-0000-0000-0000-000000000001"], userDomain: "contoso.onmicrosoft.com", agents: pulumi.output(AGENTS) });
    await settled(kit.outputs);
    expect(await valueOf(kit.outputs.appRoles!)).toEqual([{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User.Read.All"] }]);
    expect(registrations.filter((r) => r.type === AZURE.appRoleAssignment).map((r) => r.name)).toEqual(["team-ops-app-roles-graph-User.Read.All"]);
    const resources = await valueOf(kit.agentResources);
    expect(Object.keys(resources.ops!.appRoles!.assignments)).toEqual([`${MICROSOFT_GRAPH_APP_ID}/User.Read.All`]);
    expect(resources.ops!.onBehalfOf).toBeUndefined();
  });

  it("runs under agent-user-kit/testing's mocks, with the ids they hand out", async () => {
    const resources = await setAgentUserKitMocks();
    const kit = new AgentUserKit("team", {
      blueprintName: "Team",
      sponsors: ["5e000000-0000-0000-0000-000000000001"],
      userDomain: "contoso.onmicrosoft.com",
      agents: [{ ...AGENTS[0]!, onBehalfOfScopes: ["User.Read"] }],
      onBehalfOfScope: "access_agent",
    });
    await settled(kit.outputs);
    expect(await valueOf(kit.outputs.blueprintIdentifierUri!)).toBe(`api://${MOCK_IDS.blueprintAppId}`);
    expect(await valueOf(kit.outputs.onBehalfOfScopes!)).toBe("User.Read");
    await valueOf(kit.outputs.appRoles!);
    const assignment = resources.find((r) => r.type === AZURE.appRoleAssignment)!;
    expect(assignment.inputs).toMatchObject({ principalObjectId: `${MOCK_IDS.agentIdentityId}:team-ops-identity`, appRoleId: `${MOCK_IDS.appRoleId}:User.Read.All` });
  });
});
