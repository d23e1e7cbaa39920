/**
 * `agent-user-kit/testing` as a user meets it: a unit test of their own
 * program, importing the package by name (the built package, dist/), with
 * their own mocks for their own resources beside the kit's.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

// What a user's test does, as plain Node: set the mocks, run the program, read its outputs.
const USER_TEST = `
const pulumi = require("@pulumi/pulumi");
const { setAgentUserKitMocks, MOCK_IDS } = require("agent-user-kit/testing");
const valueOf = (output) => new Promise((resolve) => output.apply(resolve));
(async () => {
  const resources = await setAgentUserKitMocks({
    mocks: { newResource: (a) => ({ id: "mine", state: { ...a.inputs, mine: true } }), call: () => ({}) },
  });
  const { AgentUserKit } = require("agent-user-kit/pulumi");
  const kit = new AgentUserKit("agents", {
    blueprintName: "Research agents",
    sponsors: ["5e000000-0000-0000-0000-000000000001"],
    userDomain: "contoso.onmicrosoft.com",
    agents: [{ name: "research", userName: "research-agent" }],
  });
  const own = new pulumi.CustomResource("my:index:Thing", "thing", { owner: kit.agents.research.user.userId });
  const result = {
    tenantId: await valueOf(kit.outputs.tenantId),
    blueprintAppId: await valueOf(kit.outputs.blueprintAppId),
    secret: await valueOf(kit.outputs.blueprintClientSecret),
    agents: await valueOf(kit.outputs.agents),
    resourceUrl: await valueOf(kit.outputs.resourceUrl),
    own: await valueOf(own.urn),
  };
  console.log(JSON.stringify({ result, ids: MOCK_IDS, types: [...new Set(resources.map((r) => r.type))].sort() }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe("agent-user-kit/testing", () => {
  it("lets a user's unit test run a program that uses AgentUserKit, with ids it can assert, beside the user's own mocks", () => {
    const run = spawnSync(process.execPath, ["-e", USER_TEST], { cwd: ROOT, encoding: "utf8" });
    expect({ status: run.status, stderr: run.status === 0 ? "" : run.stderr }).toEqual({ status: 0, stderr: "" });
    const { result, ids, types } = JSON.parse(run.stdout) as {
      result: { tenantId: string; blueprintAppId: string; secret: string; agents: Record<string, Record<string, string>>; resourceUrl: string; own: string };
      ids: Record<string, string>;
      types: string[];
    };
    expect(result).toMatchObject({ tenantId: ids.tenantId, blueprintAppId: ids.blueprintAppId, secret: ids.clientSecret, resourceUrl: "https://graph.microsoft.com" });
    expect(result.agents.research).toMatchObject({
      agentIdentityId: `${ids.agentIdentityId}:agents-research-identity`,
      agentUserId: `${ids.agentUserId}:agents-research-user`,
      agentUserPrincipalName: "research-agent@contoso.onmicrosoft.com",
      grantScopes: "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read",
    });
    expect(result.own).toMatch(/my:index:Thing::thing$/);
    expect(types).toContain("my:index:Thing");
  });
});
