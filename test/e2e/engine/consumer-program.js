"use strict";
/**
 * A consumer's Pulumi program over the installed package's dynamic resources:
 * a blueprint, its principal, and an agent identity and agent user per agent
 * of `consumer:agents`. `consumer:layout` "wrapped" declares each agent
 * identity and agent user inside a component of the type that once wrapped
 * it, as stacks made before the fleet layout have them; "unwrapped" uses the
 * package's AgentIdentity and AgentUser, aliased from those URNs.
 */
const pulumi = require("@pulumi/pulumi");
const kit = require("agent-user-kit/pulumi");
const { version } = require("agent-user-kit/package.json");

const config = new pulumi.Config("consumer");
const settings = {
  graphUrl: config.require("graphUrl"),
  authorityUrl: config.require("authorityUrl"),
  consistencyWindowMs: 0,
  providerVersion: version,
};
const sponsors = config.requireObject("sponsors");
const domain = config.require("userDomain");
const agents = config.requireObject("agents");
const layout = config.get("layout") ?? "unwrapped";

class Wrapper extends pulumi.ComponentResource {
  constructor(type, name, make) {
    super(type, name, {}, {});
    this.inner = make({ parent: this });
    this.registerOutputs({});
  }
}

const blueprint = new kit.dynamic.Blueprint("consumer-blueprint", {
  ...settings,
  displayName: config.require("blueprintName"),
  sponsors,
  adoptionTag: `consumer:${pulumi.getProject()}/${pulumi.getStack()}`,
});
const principal = new kit.dynamic.BlueprintPrincipal("consumer-principal", { ...settings, appId: blueprint.appId, blueprintObjectId: blueprint.objectId });

const made = agents.map((name) => {
  const identityArgs = { displayName: `${name} identity`, blueprintAppId: blueprint.appId, blueprintPrincipalId: principal.principalId, sponsors };
  const identity =
    layout === "wrapped"
      ? new Wrapper(kit.AGENT_IDENTITY_TYPE, name, (opts) => new kit.dynamic.AgentIdentity(`${name}-identity`, { ...settings, ...identityArgs }, opts)).inner
      : new kit.AgentIdentity(name, { settings, ...identityArgs });
  const userArgs = { displayName: name, mailNickname: name, userPrincipalName: `${name}@${domain}`, identityParentId: identity.identityId };
  const user =
    layout === "wrapped"
      ? new Wrapper(kit.AGENT_USER_TYPE, name, (opts) => new kit.dynamic.AgentUser(`${name}-user`, { ...settings, ...userArgs }, opts)).inner
      : new kit.AgentUser(name, { settings, ...userArgs });
  return [name, { agentIdentityId: identity.identityId, agentUserId: user.userId, agentUserPrincipalName: user.userPrincipalName }];
});

exports.blueprintAppId = blueprint.appId;
exports.blueprintObjectId = blueprint.objectId;
exports.blueprintPrincipalId = principal.principalId;
exports.agents = pulumi.output(Object.fromEntries(made));
