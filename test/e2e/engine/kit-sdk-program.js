"use strict";
/**
 * A JavaScript program over the SDK `pulumi package add
 * ./node_modules/agent-user-kit` generates (`@pulumi/agent-user-kit`): the
 * path a Python, Go or C# program takes, the kit made by its plugin. It
 * exports each of the component's outputs under its own name, as the
 * repository's stack program does, and gives the credential as one object.
 */
const pulumi = require("@pulumi/pulumi");
const { AgentUserKit } = require("@pulumi/agent-user-kit");

const config = new pulumi.Config();
const kit = new AgentUserKit("kit", {
  blueprintName: "JavaScript agents",
  sponsors: [config.require("sponsor")],
  userDomain: config.require("userDomain"),
  graphUrl: config.require("url"),
  authorityUrl: config.require("url"),
  agents: config.requireObject("agents").map((name) => ({ name, userName: `${name}-agent` })),
  credential: { mode: "secret", endDate: config.require("credentialExpiry") },
});

for (const key of config.requireObject("outputs")) exports[key] = kit[key];
