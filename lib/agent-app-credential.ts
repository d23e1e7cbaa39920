import { AgentCredential, type AgentCredentialOptions, type CredentialRequest } from "./agent-credential";
import type { GetTokenOptions } from "./azure-token-credential";
import type { AgentUserAccessToken } from "./provider-options";
import { AgentUserTokenProvider, type AgentUserTokenProviderOptions } from "./token-provider";

/** Which agent identity a credential mints for (the provider's default when absent), and which other tenants it may mint in. */
export type AgentAppCredentialOptions = AgentCredentialOptions;

const STEP = "AgentAppCredential";

/**
 * The agent identity's own app-only token (the autonomous app flow: T1,
 * then client credentials as the agent identity) as an Azure SDK
 * TokenCredential: its `roles` are the app roles assigned to the identity.
 * It follows the conventions of AgentUserCredential: scopes name the
 * resource, `claims` challenges and `enableCae` are passed on, `tenantId` is
 * refused unless allowed, and missing configuration is a
 * CredentialUnavailableError.
 */
export class AgentAppCredential extends AgentCredential<AgentAppCredentialOptions> {
  /** `provider`, or a function that builds it at the first getToken() (a configuration error is then a CredentialUnavailableError). */
  constructor(provider: AgentUserTokenProvider | (() => AgentUserTokenProvider), options: AgentAppCredentialOptions = {}) {
    super(provider, options, STEP);
  }

  /** A credential from the AGENT_USER_* environment variables, read at the first getToken(). */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AgentUserTokenProviderOptions> = {}, options: AgentAppCredentialOptions = {}): AgentAppCredential {
    return new AgentAppCredential(() => AgentUserTokenProvider.fromEnvironment(env, overrides), options);
  }

  /** A credential from the parsed stack outputs (`overrides.agent` picks one agent of a fleet), read at the first getToken(). */
  static fromStackOutputs(outputs: unknown, overrides: Partial<AgentUserTokenProviderOptions> & { agent?: string } = {}, options: AgentAppCredentialOptions = {}): AgentAppCredential {
    return new AgentAppCredential(() => AgentUserTokenProvider.fromStackOutputs(outputs, overrides), options);
  }

  protected mint(provider: AgentUserTokenProvider, request: CredentialRequest, options: GetTokenOptions): Promise<AgentUserAccessToken> {
    return provider.getAppToken(request, { abortSignal: options.abortSignal });
  }
}
