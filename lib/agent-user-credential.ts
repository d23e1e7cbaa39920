import { AgentCredential, resourceOfScopes, type AgentCredentialOptions, type CredentialRequest } from "./agent-credential";
import type { GetTokenOptions } from "./azure-token-credential";
import type { AgentUserAccessToken } from "./provider-options";
import { AgentUserTokenProvider, type AgentUserTokenProviderOptions } from "./token-provider";

export { resourceOfScopes };

/** Which agent user a credential acts as (the provider's defaults when absent), and which other tenants it may mint in. */
export interface AgentUserCredentialOptions extends AgentCredentialOptions {
  agentUser?: string;
}

const STEP = "AgentUserCredential";

/**
 * An agent user's delegated token as an Azure SDK TokenCredential, so any
 * Azure SDK or Microsoft Graph client takes it with no glue code. It follows
 * @azure/identity's conventions: a claims challenge (`claims`) is answered
 * with a new token, `enableCae` declares the `cp1` capability, `tenantId` is
 * refused unless allowed, and missing configuration is a
 * CredentialUnavailableError, so ChainedTokenCredential tries the next one.
 */
export class AgentUserCredential extends AgentCredential<AgentUserCredentialOptions> {
  /** `provider`, or a function that builds it at the first getToken() (a configuration error is then a CredentialUnavailableError). */
  constructor(provider: AgentUserTokenProvider | (() => AgentUserTokenProvider), options: AgentUserCredentialOptions = {}) {
    super(provider, options, STEP);
  }

  /**
   * A credential from the AGENT_USER_* environment variables, read at the
   * first getToken(): when they are missing or wrong, getToken() fails with
   * a CredentialUnavailableError, as @azure/identity's EnvironmentCredential does.
   */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AgentUserTokenProviderOptions> = {}, options: AgentUserCredentialOptions = {}): AgentUserCredential {
    return new AgentUserCredential(() => AgentUserTokenProvider.fromEnvironment(env, overrides), options);
  }

  /**
   * A credential from the parsed JSON of `pulumi stack output --json
   * --show-secrets` (`overrides.agent` picks one agent of a fleet), read at
   * the first getToken(); what is missing there is a CredentialUnavailableError.
   */
  static fromStackOutputs(outputs: unknown, overrides: Partial<AgentUserTokenProviderOptions> & { agent?: string } = {}, options: AgentUserCredentialOptions = {}): AgentUserCredential {
    return new AgentUserCredential(() => AgentUserTokenProvider.fromStackOutputs(outputs, overrides), options);
  }

  protected mint(provider: AgentUserTokenProvider, request: CredentialRequest, options: GetTokenOptions): Promise<AgentUserAccessToken> {
    const { agentUser } = this.options;
    return provider.getToken(agentUser === undefined ? request : { ...request, agentUser }, { abortSignal: options.abortSignal });
  }
}
