/**
 * The Pulumi entry, `import … from "agent-user-kit/pulumi"`: components for any
 * Pulumi program, and the dynamic resources for people who compose their own
 * graph. The stack program of this repository (infra/stack.ts) is one user of it.
 */
export { AgentUserKit, AGENT_USER_KIT_TYPE } from "./components/agent-user-kit";
export type { AgentUserKitArgs } from "./components/agent-user-kit";
export { BlueprintComponent, BLUEPRINT_TYPE } from "./components/blueprint";
export { AgentIdentityComponent, AGENT_IDENTITY_TYPE } from "./components/agent-identity";
export { AgentUserComponent, AGENT_USER_TYPE } from "./components/agent-user";
export { GrantComponent, GRANT_TYPE } from "./components/grant";
export { Blueprint } from "./providers/blueprint";
export { BlueprintPrincipal } from "./providers/blueprint-principal";
export { AgentIdentity } from "./providers/agent-identity";
export { AgentUser } from "./providers/agent-user";
