/**
 * The dynamic resources over Microsoft Graph, for people who compose their
 * own graph: `import { dynamic } from "agent-user-kit/pulumi"`, then
 * `new dynamic.AgentIdentity(...)`. A namespace, because the entry's own
 * AgentIdentity and AgentUser keep the names (and the arguments) of the
 * components that once wrapped these resources.
 */
export { Blueprint, type BlueprintInputs, type BlueprintOutputs } from "./blueprint";
export { BlueprintPrincipal, type BlueprintPrincipalInputs, type BlueprintPrincipalOutputs } from "./blueprint-principal";
export { AgentIdentity, type AgentIdentityInputs, type AgentIdentityOutputs } from "./agent-identity";
export { AgentUser, type AgentUserInputs, type AgentUserOutputs } from "./agent-user";
