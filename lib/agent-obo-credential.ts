import { AgentCredential, type AgentCredentialOptions, type CredentialRequest } from "./agent-credential";
import type { GetTokenOptions } from "./azure-token-credential";
import { CredentialUnavailableError } from "./errors";
import type { AgentUserAccessToken } from "./provider-options";
import { AgentUserTokenProvider, type AgentUserTokenProviderOptions } from "./token-provider";

export interface AgentOnBehalfOfCredentialOptions extends AgentCredentialOptions {
  /**
   * The signed-in user's access token for the blueprint, or a function that
   * returns the current one: it is asked for at every getToken(), so each new
   * token is minted from the assertion the agent holds now (a request
   * handler passes the token of the request it serves). Required.
   */
  userAssertion?: string | (() => string | Promise<string>);
}

const STEP = "AgentOnBehalfOfCredential";

/**
 * A delegated token for the signed-in user who called the agent (the
 * on-behalf-of flow as the agent identity: T1, then the jwt-bearer grant
 * with the user's token as assertion) as an Azure SDK TokenCredential, like
 * @azure/identity's OnBehalfOfCredential but as an agent identity. It
 * follows the conventions of AgentUserCredential; a missing user assertion
 * is a CredentialUnavailableError.
 */
export class AgentOnBehalfOfCredential extends AgentCredential<AgentOnBehalfOfCredentialOptions> {
  /** `provider`, or a function that builds it at the first getToken() (a configuration error is then a CredentialUnavailableError). */
  constructor(provider: AgentUserTokenProvider | (() => AgentUserTokenProvider), options: AgentOnBehalfOfCredentialOptions = {}) {
    super(provider, options, STEP);
  }

  /** A credential from the AGENT_USER_* environment variables, read at the first getToken(). */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env, overrides: Partial<AgentUserTokenProviderOptions> = {}, options: AgentOnBehalfOfCredentialOptions = {}): AgentOnBehalfOfCredential {
    return new AgentOnBehalfOfCredential(() => AgentUserTokenProvider.fromEnvironment(env, overrides), options);
  }

  /** A credential from the parsed stack outputs (`overrides.agent` picks one agent of a fleet), read at the first getToken(). */
  static fromStackOutputs(
    outputs: unknown,
    overrides: Partial<AgentUserTokenProviderOptions> & { agent?: string } = {},
    options: AgentOnBehalfOfCredentialOptions = {},
  ): AgentOnBehalfOfCredential {
    return new AgentOnBehalfOfCredential(() => AgentUserTokenProvider.fromStackOutputs(outputs, overrides), options);
  }

  protected async mint(provider: AgentUserTokenProvider, request: CredentialRequest, options: GetTokenOptions): Promise<AgentUserAccessToken> {
    const given = this.options.userAssertion;
    const userAssertion = typeof given === "function" ? await given() : given;
    if (typeof userAssertion !== "string" || userAssertion === "") {
      throw new CredentialUnavailableError(
        "no user assertion: give the userAssertion option (the signed-in user's access token for the blueprint, or a function that returns it)",
        undefined,
        STEP,
      );
    }
    return provider.getOnBehalfOfToken({ ...request, userAssertion }, { abortSignal: options.abortSignal });
  }
}
