"use strict";
/**
 * The blueprint's client secret as the kit adds it, with AgentIdentityBlueprint's
 * error hook, in a tenant that refuses it. The azuread provider cannot be built
 * here, so a dynamic resource stands in for azuread.ApplicationPassword: its
 * create fails with `consumer:failure`, the text azuread reports for a Graph
 * refusal.
 */
const pulumi = require("@pulumi/pulumi");
const { credentialRefusedHooks } = require("agent-user-kit/dist/infra/components/credential-refused.js");

const failure = new pulumi.Config("consumer").require("failure");

const password = {
  async create() {
    throw new Error(failure);
  },
};

// Two blueprints' secrets: one hook of a name per deployment serves both.
for (const blueprint of ["agents-blueprint", "team-blueprint"]) {
  new pulumi.dynamic.Resource(password, `${blueprint}-secret`, {}, { hooks: credentialRefusedHooks("secret") });
}
