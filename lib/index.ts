/**
 * The runtime entry, `import … from "agent-user-kit"`: what an agent embeds to
 * get its own delegated token. It must never load `@pulumi/*` (an agent that
 * installs the package for its tokens does not install Pulumi).
 */
export { HopChain, HOP_STEPS, EXPIRY_MARGIN_MS, checkAgentUserClaims } from "./hop-chain";
export type { HopChainConfig, AgentUserTokenRequest, AgentUserToken, HopRecord, Hop, ExpectedIdentity } from "./hop-chain";
export type { BlueprintCredential } from "./blueprint-credential";
export { AgentUserError, UsageError, NetworkError, ClaimsError, ExitCode, exitCodeForStatus } from "./errors";
export type { ClaimMismatch } from "./errors";
export { TokenEndpointError } from "./token-client";
export { GraphError, GraphClient } from "./graph-client";
export type { JwtClaims } from "./jwt";
export { STACK_OUTPUT_KEYS, PUBLIC_CLOUD } from "./stack-outputs";
export type { StackOutputs } from "./stack-outputs";
