import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import { agentUserProvider } from "../../../infra/providers/agent-user";
import { blueprintProvider } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
import { DEFAULT_IDS } from "../../../emulator/seed";
import {
  blueprintInputs,
  createBlueprint,
  createIdentityChain,
  createPrincipal,
  createUser,
  identityInputs,
  principalInputs,
  provisionerRoles,
  revoke,
  setProvisionerRoles,
  startTenant,
  userInputs,
  type Tenant,
} from "./tenant";

/**
 * What Graph refuses reaches the person running `pulumi up` as one message:
 * the resource and operation, the Graph call, Graph's code, and the likely fix.
 */
describe("Graph refusals as provider errors", () => {
  let t: Tenant;
  let roles: string[];
  beforeAll(async () => {
    t = await startTenant();
    roles = provisionerRoles(t);
  });
  afterAll(() => t.close());
  afterEach(() => {
    setProvisionerRoles(t, [...roles]);
    t.emulator.store.now = Date.now;
  });

  it("401: an expired provisioner token names the call, InvalidAuthenticationToken and the credential to check", async () => {
    const blueprint = await createBlueprint(t);
    // The provider caches its token; two hours later Graph finds it expired.
    t.emulator.store.now = () => Date.now() + 2 * 3_600_000;
    await expect(blueprintProvider.read!(blueprint.objectId, blueprint)).rejects.toThrow(
      new RegExp(
        `^agent identity blueprint read failed: Graph GET /v1\\.0/applications/${blueprint.objectId}/microsoft\\.graph\\.agentIdentityBlueprint: ` +
          "InvalidAuthenticationToken \\(HTTP 401\\): Lifetime validation failed, the token is expired\\. Likely fix: the bearer token was refused; check the provisioner credential",
      ),
    );
  });

  it("403: a missing application permission is named, with the call it allows and the README's list as the fix", async () => {
    const blueprint = await createBlueprint(t);
    revoke(t, "AgentIdentityBlueprintPrincipal.Create");
    await expect(blueprintPrincipalProvider.create!(await principalInputs(t, blueprint))).rejects.toThrow(
      "agent identity blueprint principal create failed: Graph POST /v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal: " +
        "Authorization_RequestDenied (HTTP 403): Insufficient privileges to complete the operation: to create a blueprint principal the token's roles need one of " +
        "AgentIdentityBlueprintPrincipal.Create, AgentIdentityBlueprintPrincipal.ReadWrite.All, AgentIdentityBlueprint.CreateAsManager. " +
        "Likely fix: to create a blueprint principal the provisioner needs the application permission AgentIdentityBlueprintPrincipal.Create (or one of AgentIdentityBlueprintPrincipal.ReadWrite.All), granted with admin consent",
    );
  });

  it("403: AgentIdentityBlueprint.CreateAsManager reaches only the blueprints this application created holding it", async () => {
    const earlier = await createBlueprint(t);
    setProvisionerRoles(t, [...roles.filter((r) => r !== "AgentIdentityBlueprint.DeleteRestore.All"), "AgentIdentityBlueprint.CreateAsManager"]);
    const managed = await createBlueprint(t);
    await blueprintProvider.delete!(managed.objectId, managed);
    expect(t.emulator.store.application(managed.objectId)).toBeUndefined();
    await expect(blueprintProvider.delete!(earlier.objectId, earlier)).rejects.toThrow(
      /^agent identity blueprint delete failed: Graph DELETE .*: Authorization_RequestDenied \(HTTP 403\): Insufficient privileges.*AgentIdentityBlueprint\.CreateAsManager does not reach this object.*Likely fix: to delete an agent identity blueprint the provisioner needs the application permission AgentIdentityBlueprint\.DeleteRestore\.All/,
    );
  });

  it("403: an application holding Directory.ReadWrite.All has its Agent ID create refused, whatever else it holds", async () => {
    setProvisionerRoles(t, [...roles, "Directory.ReadWrite.All"]);
    await expect(blueprintProvider.create!(await blueprintInputs(t))).rejects.toThrow(
      /^agent identity blueprint create failed: .*Authorization_RequestDenied \(HTTP 403\): Insufficient privileges to complete the operation: a caller holding Directory\.ReadWrite\.All has its Agent ID permissions ignored/,
    );
  });

  it("400: a sponsor that is not a user of the tenant", async () => {
    const inputs = await blueprintInputs(t, { sponsors: ["5e000000-0000-4000-8000-00000000dead"] });
    await expect(blueprintProvider.create!(inputs)).rejects.toThrow(
      "agent identity blueprint create failed: Graph POST /v1.0/applications/microsoft.graph.agentIdentityBlueprint: Request_BadRequest (HTTP 400): " +
        "Sponsor '5e000000-0000-4000-8000-00000000dead' does not exist in this tenant as the user or group the URL names. Likely fix: check that every sponsor is an existing user object id",
    );
  });

  it("400: a group's object id as a sponsor, which the kit binds as a user", async () => {
    const inputs = await blueprintInputs(t, { sponsors: [DEFAULT_IDS.sponsorGroupId] });
    await expect(blueprintProvider.create!(inputs)).rejects.toThrow(
      `Request_BadRequest (HTTP 400): Sponsor '${DEFAULT_IDS.sponsorGroupId}' does not exist in this tenant as the user or group the URL names. Likely fix: check that every sponsor is an existing user object id`,
    );
  });

  it("400: an agent identity of a blueprint that has no principal", async () => {
    const withPrincipal = await createBlueprint(t);
    const principal = await createPrincipal(t, withPrincipal);
    const without = await createBlueprint(t);
    const inputs = await identityInputs(t, without, principal);
    await expect(agentIdentityProvider.create!(inputs)).rejects.toThrow(
      new RegExp(
        `^agent identity create failed: Graph POST /v1\\.0/servicePrincipals/microsoft\\.graph\\.agentIdentity: AgentIdentity_AgentBlueprintPrincipalDoesNotExist \\(HTTP 400\\): The agent identity blueprint ${without.appId} has no service principal.*` +
          "Likely fix: check that the blueprint principal exists \\(it is not created automatically\\)",
      ),
    );
  });

  it("400: a second agent user for the same agent identity", async () => {
    const { identity } = await createIdentityChain(t);
    const first = await createUser(t, identity);
    const second = await userInputs(t, identity, { mailNickname: "second", userPrincipalName: `second-${first.userId.slice(0, 8)}@contoso.onmicrosoft.com` });
    await expect(agentUserProvider.create!(second)).rejects.toThrow(
      new RegExp(
        `^agent user create failed: Graph POST /v1\\.0/users/microsoft\\.graph\\.agentUser: Request_BadRequest \\(HTTP 400\\): Agent identity ${identity.identityId} already has an agent user \\(${first.userId}\\).*` +
          "Likely fix: an agent identity holds at most one agent user",
      ),
    );
    expect(t.emulator.store.users().filter((u) => u.identityParentId === identity.identityId)).toHaveLength(1);
  });

  it("400: a UPN outside the tenant's domains", async () => {
    const { identity } = await createIdentityChain(t);
    const inputs = await userInputs(t, identity, { userPrincipalName: "agent@fabrikam.example" });
    await expect(agentUserProvider.create!(inputs)).rejects.toThrow(
      /^agent user create failed: Graph POST \/v1\.0\/users\/microsoft\.graph\.agentUser: Request_BadRequest \(HTTP 400\): The domain portion of the userPrincipalName property is invalid.*Likely fix: .*on a verified domain of the tenant/,
    );
  });

  it("no message carries the provisioner's secret or token", async () => {
    revoke(t, "AgentIdentityBlueprint.Create");
    const error = await blueprintProvider.create!(await blueprintInputs(t)).catch((err: Error) => err);
    const secret = process.env.ARM_CLIENT_SECRET!;
    const text = [String(error), (error as Error).stack, JSON.stringify(error), String((error as Error).cause)].join("\n");
    expect(text).not.toContain(secret);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);
  });
});
