/**
 * The dynamic resources over Microsoft Graph, for people who compose their
 * own graph: `import { dynamic } from "agent-user-kit/pulumi"`, then
 * `new dynamic.AgentIdentityResource(...)`. A namespace, because the entry's
 * own AgentIdentity and AgentUser keep the names (and the arguments) of the
 * components that once wrapped these resources.
 */
import { AgentIdentityResource } from "./agent-identity";
import { AgentUserResource } from "./agent-user";

export { Blueprint, type BlueprintInputs, type BlueprintOutputs } from "./blueprint";
export { BlueprintPrincipal, type BlueprintPrincipalInputs, type BlueprintPrincipalOutputs } from "./blueprint-principal";
export { AgentIdentityResource, type AgentIdentityInputs, type AgentIdentityOutputs } from "./agent-identity";
export { AgentUserResource, type AgentUserInputs, type AgentUserOutputs } from "./agent-user";
export { BlueprintApiResource, type BlueprintApiInputs, type BlueprintApiOutputs } from "./blueprint-api";

/** @deprecated use `dynamic.AgentIdentityResource`; the entry's own `AgentIdentity` is the resource named `{name}-identity`. */
export const AgentIdentity = AgentIdentityResource;
/** @deprecated use `dynamic.AgentIdentityResource`. */
export type AgentIdentity = AgentIdentityResource;
/** @deprecated use `dynamic.AgentUserResource`; the entry's own `AgentUser` is the resource named `{name}-user`. */
export const AgentUser = AgentUserResource;
/** @deprecated use `dynamic.AgentUserResource`. */
export type AgentUser = AgentUserResource;
