import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import { agentUserProvider } from "../../../infra/providers/agent-user";
import { blueprintProvider } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
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

  it("403: a missing application permission is named, with the README's list as the fix", async () => {
    const blueprint = await createBlueprint(t);
    revoke(t, "AgentIdentityBlueprintPrincipal.Create");
    await expect(blueprintPrincipalProvider.create!(await principalInputs(t, blueprint))).rejects.toThrow(
      "agent identity blueprint principal create failed: Graph POST /v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal: " +
        "Authorization_RequestDenied (HTTP 403): Access denied: the token's roles hold none of AgentIdentityBlueprintPrincipal.Create, AgentIdentityBlueprintPrincipal.ReadWrite.All. " +
        "Likely fix: the caller lacks a Graph permission for this call; grant the application permissions listed in the README",
    );
  });

  it("403: a provisioner that neither owns a blueprint nor may manage every blueprint cannot delete it", async () => {
    const blueprint = await createBlueprint(t);
    t.emulator.store.updateApplication(blueprint.objectId, { owners: [] });
    await expect(blueprintProvider.delete!(blueprint.objectId, blueprint)).rejects.toThrow(
      /^agent identity blueprint delete failed: Graph DELETE .*: Authorization_RequestDenied \(HTTP 403\): Insufficient privileges.*does not own this agent identity blueprint.*Application\.ReadWrite\.OwnedBy reaches only objects the provisioner created/,
    );
  });

  it("400: a sponsor that is not a user of the tenant", async () => {
    const inputs = await blueprintInputs(t, { sponsors: ["5e000000-0000-4000-8000-00000000dead"] });
    await expect(blueprintProvider.create!(inputs)).rejects.toThrow(
      "agent identity blueprint create failed: Graph POST /v1.0/applications/microsoft.graph.agentIdentityBlueprint: Request_BadRequest (HTTP 400): " +
        "Sponsor '5e000000-0000-4000-8000-00000000dead' is not a user in this tenant. Likely fix: check that every sponsor is an existing user object id",
    );
  });

  it("400: an agent identity of a blueprint that has no principal", async () => {
    const withPrincipal = await createBlueprint(t);
    const principal = await createPrincipal(t, withPrincipal);
    const without = await createBlueprint(t);
    const inputs = await identityInputs(t, without, principal);
    await expect(agentIdentityProvider.create!(inputs)).rejects.toThrow(
      new RegExp(
        `^agent identity create failed: Graph POST /v1\\.0/servicePrincipals/microsoft\\.graph\\.agentIdentity: Request_BadRequest \\(HTTP 400\\): The agent identity blueprint ${without.appId} has no service principal.*` +
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
