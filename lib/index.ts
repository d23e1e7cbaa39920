/**
 * The runtime entry, `import … from "agent-user-kit"`: what an agent embeds to
 * get its own delegated token. It must never load `@pulumi/*` (an agent that
 * installs the package for its tokens does not install Pulumi).
 */
export { AgentUserTokenProvider, DEFAULT_REFRESH_WINDOW_MS } from "./token-provider";
export type {
  AgentUserTokenProviderOptions,
  AgentUserTokenRequestOptions,
  AgentAppTokenRequestOptions,
  AgentOnBehalfOfTokenRequestOptions,
  GetAgentUserTokenOptions,
  AgentUserAccessToken,
  AbortSignalLike,
} from "./token-provider";
export { AgentUserCredential, resourceOfScopes } from "./agent-user-credential";
export type { AgentUserCredentialOptions } from "./agent-user-credential";
export { AgentAppCredential } from "./agent-app-credential";
export type { AgentAppCredentialOptions } from "./agent-app-credential";
export { AgentOnBehalfOfCredential } from "./agent-obo-credential";
export type { AgentOnBehalfOfCredentialOptions } from "./agent-obo-credential";
export { HOP_STEPS, FINAL_STEPS } from "./token-flows";
export { EXPIRY_MARGIN_MS } from "./token-cache";
export type { HopRecord, Hop, FlowName } from "./token-flows";
export type { BlueprintCredential } from "./blueprint-credential";
export { loadCertificate } from "./client-assertion";
export type { CertificateCredential, LoadedCertificate } from "./client-assertion";
export { AgentUserError, AbortError, UsageError, CredentialUnavailableError, NetworkError, ClaimsError, NotJwtError, ExitCode, exitCodeForStatus, type ErrorFacts, type ClaimsFacts } from "./errors";
export type { ClaimMismatch } from "./errors";
export { TokenEndpointError } from "./token-client";
export type { TokenErrorBody } from "./token-client";
export { GraphError } from "./graph-client";
export type { JwtClaims } from "./jwt";
export type { RetryPolicy, RetryHooks } from "./retry";
export { STACK_OUTPUT_KEYS, parseStackOutputs, selectAgent, agentNames } from "./stack-outputs";
export type { StackOutputs, FleetAgentOutputs } from "./stack-outputs";
export { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "./entra-rules";
