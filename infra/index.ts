/**
 * The Pulumi entry, `import … from "agent-user-kit/pulumi"`: components for any
 * Pulumi program, and the dynamic resources (`dynamic`) for people who compose
 * their own graph. The stack program of this repository (infra/stack.ts) is one
 * user of it.
 */
import "./peer-check";

export { AgentUserKit, AGENT_USER_KIT_TYPE } from "./components/agent-user-kit";
export type { AgentArgs, AgentResources, AgentUserKitArgs, AgentUserKitOutputs, AgentOutputs, StackOutputs } from "./components/agent-user-kit";
export { AgentIdentityBlueprint, BLUEPRINT_TYPE } from "./components/blueprint";
export type { AgentIdentityBlueprintArgs, BlueprintCredentialArgs } from "./components/blueprint";
export { AgentIdentity, AgentUser, AGENT_IDENTITY_TYPE, AGENT_USER_TYPE } from "./components/unwrapped";
export type { AgentIdentityArgs, AgentUserArgs } from "./components/unwrapped";
export { AgentUserGrant, GRANT_TYPE } from "./components/grant";
export type { AgentUserGrantArgs } from "./components/grant";
export { AgentAppRoles, APP_ROLES_TYPE } from "./components/app-roles";
export type { AgentAppRolesArgs } from "./components/app-roles";
export { OnBehalfOfConsent, ON_BEHALF_OF_CONSENT_TYPE } from "./components/consent";
export type { OnBehalfOfConsentArgs } from "./components/consent";
export type { ProvisioningSettings } from "./providers/inputs";
export type { AgentSpec, CredentialMode } from "./config";
export { ALLOWED_SCOPES, DEFAULT_SCOPES } from "./scope-policy";
export * as dynamic from "./providers/resources";
