"use strict";
/**
 * A consumer's Pulumi program, as the README's "In a Pulumi program" writes
 * one: AgentUserKit with the agents of `consumer:agents`, in the credential
 * mode of `consumer:credential` (JSON, AgentUserKit's `credential`).
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
  agents: config.requireObject("agents").map((name) => ({ name, identityName: `${name} identity`, userName: name })),
});
// Under the names `agent-user token --outputs` and AgentUserTokenProvider.fromStackOutputs read.
module.exports = kit.outputs;
