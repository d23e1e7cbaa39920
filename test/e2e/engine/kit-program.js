"use strict";
/**
 * A consumer's Pulumi program, as the README's "In a Pulumi program" writes
 * one: AgentUserKit with the agents of `consumer:agents` (names, or agents
 * whole with their opt-in `appRoles` and `onBehalfOfScopes`), in the
 * credential mode of `consumer:credential` (JSON, AgentUserKit's
 * `credential`), exposing `consumer:onBehalfOfScope` when set.
 */
const pulumi = require("@pulumi/pulumi");
const { AgentUserKit } = require("agent-user-kit/pulumi");

const config = new pulumi.Config("consumer");
const kit = new AgentUserKit("agents", {
  blueprintName: config.require("blueprintName"),
  sponsors: config.requireObject("sponsors"),
  userDomain: config.require("userDomain"),
  graphUrl: config.require("graphUrl"),
  authorityUrl: config.require("authorityUrl"),
  consistencyWindowSeconds: 0,
  credential: config.getObject("credential") ?? { mode: "secret" },
  agents: config.requireObject("agents").map((agent) => (typeof agent === "string" ? { name: agent, identityName: `${agent} identity`, userName: agent } : agent)),
  onBehalfOfScope: config.get("onBehalfOfScope"),
  onBehalfOfClients: config.getObject("onBehalfOfClients"),
});
// Under the names `agent-user token --outputs` and AgentUserTokenProvider.fromStackOutputs read.
module.exports = kit.outputs;
