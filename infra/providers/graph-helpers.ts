/*
 * The lib/ Graph helpers (paths, reads, and who made an object), as the dynamic providers reach
 * them. Pulumi's closure serializer captures the module a provider function's
 * helper comes from and, once the kit is installed, requires it from the
 * package by its path, which must be one the package exports: dist/infra/* is,
 * dist/lib/* is not. So the providers import them through this module
 * (test/e2e/package installs the packed kit and runs the providers).
 */
export { AGENT_IDENTITIES, AGENT_USERS, BLUEPRINT_PRINCIPALS, BLUEPRINTS, agentIdentityPath, agentUserPath, applicationByAppIdPath, blueprintPath, blueprintPrincipalPath } from "../../lib/graph-paths";
export { getIfExists, odataString } from "../../lib/graph-reads";
export { CREATION_SELECT, madeBy, madeByAnother, type Creation } from "../../lib/object-creator";
export { printable } from "../../lib/printable";
