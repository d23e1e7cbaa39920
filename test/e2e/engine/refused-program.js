"use strict";
/**
 * Two blueprints with a client secret each, in a tenant that refuses secrets
 * on blueprints: one error hook of a name per deployment serves both.
 */
const pulumi = require("@pulumi/pulumi");
const { AgentIdentityBlueprint } = require("agent-user-kit/pulumi");
const { version } = require("agent-user-kit/package.json");

const config = new pulumi.Config("consumer");
const settings = { graphUrl: config.require("graphUrl"), authorityUrl: config.require("authorityUrl"), consistencyWindowMs: 0, providerVersion: version };
for (const name of ["agents", "team"]) {
  new AgentIdentityBlueprint(name, {
    displayName: `${name} blueprint`,
    sponsors: config.requireObject("sponsors"),
    credential: { mode: "secret" },
    tenantId: config.require("tenantId"),
    settings,
  });
}
