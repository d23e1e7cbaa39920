/**
 * The dynamic resources over Microsoft Graph, for people who compose their
 * own graph: `import { dynamic } from "agent-user-kit/pulumi"`, then
 * `new dynamic.AgentIdentity(...)`. A namespace, because the components that
 * wrap them have the names people reach for first.
 */
export { Blueprint, type BlueprintInputs, type BlueprintOutputs } from "./blueprint";
export { BlueprintPrincipal, type BlueprintPrincipalInputs, type BlueprintPrincipalOutputs } from "./blueprint-principal";
export { AgentIdentity, type AgentIdentityInputs, type AgentIdentityOutputs } from "./agent-identity";
export { AgentUser, type AgentUserInputs, type AgentUserOutputs } from "./agent-user";
