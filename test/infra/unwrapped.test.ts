/**
 * AgentIdentity and AgentUser of the Pulumi entry were components that each
 * wrapped one dynamic resource. A program written against them still
 * compiles, and its stack keeps its agent identity and agent user: each is
 * now the resource the component held, under the same name, aliased from
 * its URN inside the component.
 */
import * as pulumi from "@pulumi/pulumi";
import { AgentIdentity, AgentUser, dynamic, type ProvisioningSettings } from "../../infra";
import { DYNAMIC, IDS, installMocks, only, valueOf } from "./program-harness";

const SETTINGS: ProvisioningSettings = {
  graphUrl: "https://graph.microsoft.com",
  authorityUrl: "https://login.microsoftonline.com",
  consistencyWindowMs: 120_000,
  providerVersion: "0.1.0",
};
const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const STACK = "urn:pulumi:test::agent-user-kit::";

describe("AgentIdentity and AgentUser of the Pulumi entry", () => {
  it("are apart from the dynamic resources, whose old names dynamic.AgentIdentity and dynamic.AgentUser still work", () => {
    expect(dynamic.AgentIdentity).toBe(dynamic.AgentIdentityResource);
    expect(dynamic.AgentUser).toBe(dynamic.AgentUserResource);
    expect(Object.getPrototypeOf(AgentIdentity)).toBe(dynamic.AgentIdentityResource);
    expect(Object.getPrototypeOf(AgentUser)).toBe(dynamic.AgentUserResource);
  });

  it("take the component's arguments and make the resource it held, named as it named it, aliased from its URN there", async () => {
    const { registrations } = await installMocks();
    const identity = new AgentIdentity("legacy", {
      displayName: "Legacy agent",
      blueprintAppId: IDS.blueprintAppId,
      blueprintPrincipalId: IDS.blueprintPrincipalId,
      sponsors: [SPONSOR],
      settings: SETTINGS,
    });
    const user = new AgentUser("legacy", {
      displayName: "legacy-agent",
      mailNickname: "legacy-agent",
      userPrincipalName: "legacy-agent@contoso.onmicrosoft.com",
      identityParentId: identity.identityId,
      settings: SETTINGS,
    });
    expect([await valueOf(identity.identityId), await valueOf(user.userId)]).toEqual([IDS.agentIdentityId, IDS.agentUserId]);

    const registered = only(registrations, DYNAMIC.identity);
    expect(registered).toMatchObject({ name: "legacy-identity", parent: "" });
    expect(registered.inputs).toMatchObject({ ...SETTINGS, displayName: "Legacy agent", sponsors: [SPONSOR] });
    expect(registered.aliases).toEqual([
      { urn: `${STACK}agent-user-kit:index:AgentIdentity$${DYNAMIC.identity}::legacy-identity`, parent: `${STACK}agent-user-kit:index:AgentIdentity::legacy` },
    ]);
    expect(only(registrations, DYNAMIC.user)).toMatchObject({
      name: "legacy-user",
      inputs: { ...SETTINGS, identityParentId: IDS.agentIdentityId },
      aliases: [{ urn: `${STACK}agent-user-kit:index:AgentUser$${DYNAMIC.user}::legacy-user`, parent: `${STACK}agent-user-kit:index:AgentUser::legacy` }],
    });
  });

  it("under a parent of the program's, are aliased from inside the component that stood under it, and keep the aliases the program gives", async () => {
    const { registrations } = await installMocks();
    const team = new pulumi.ComponentResource("my:index:Team", "team");
    const earlier = `${STACK}my:index:Team$${DYNAMIC.user}::renamed`;
    const user = new AgentUser(
      "u",
      { displayName: "u", mailNickname: "u", userPrincipalName: "u@contoso.onmicrosoft.com", identityParentId: IDS.agentIdentityId, settings: SETTINGS },
      { parent: team, aliases: [earlier] },
    );
    await valueOf(user.userId);
    expect(only(registrations, DYNAMIC.user)).toMatchObject({
      name: "u-user",
      parent: `${STACK}my:index:Team::team`,
      aliases: [{ urn: earlier }, { urn: `${STACK}agent-user-kit:index:AgentUser$${DYNAMIC.user}::u-user`, parent: `${STACK}my:index:Team$agent-user-kit:index:AgentUser::u` }],
    });
  });
});
