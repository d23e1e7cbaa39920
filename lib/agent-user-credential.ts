import type { AccessToken, GetTokenOptions, TokenCredential } from "./azure-token-credential";
import { UsageError } from "./errors";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "./entra-rules";
import type { AgentUserTokenProvider } from "./token-provider";

/** Which agent user a credential acts as; the provider's defaults when absent. */
export interface AgentUserCredentialOptions {
  agentIdentityId?: string;
  agentUser?: string;
}

const STEP = "AgentUserCredential";

/**
 * An agent user's delegated token as an Azure SDK TokenCredential, so any
 * Azure SDK or Microsoft Graph client takes it with no glue code.
 */
export class AgentUserCredential implements TokenCredential {
  constructor(
    private readonly provider: AgentUserTokenProvider,
    private readonly options: AgentUserCredentialOptions = {},
  ) {}

  async getToken(scopes: string | string[], options: GetTokenOptions = {}): Promise<AccessToken> {
    const resource = resourceOfScopes(Array.isArray(scopes) ? scopes : [scopes]);
    const token = await this.provider.getToken(
      // Microsoft Graph's own scopes mean the provider's resource (the emulator's Graph URL locally).
      { resource: resource === PUBLIC_CLOUD.graphUrl ? undefined : resource, ...this.options },
      // Own property only: a polluted Object.prototype must not hand the provider a signal.
      { abortSignal: Object.hasOwn(options, "abortSignal") ? options.abortSignal : undefined },
    );
    // Only AccessToken's fields: the claims and hops stay with the provider's callers.
    return { token: token.token, expiresOnTimestamp: token.expiresOnTimestamp, refreshAfterTimestamp: token.refreshAfterTimestamp, tokenType: token.tokenType };
  }
}

/**
 * The resource that scopes belong to: `X/.default` and `X/Scope.Name` are
 * resource X; a bare scope (`User.Read`) is Microsoft Graph's, as Entra
 * reads it. The chain mints `.default` tokens, which carry every granted scope.
 */
export function resourceOfScopes(scopes: readonly string[]): string {
  const resources = new Set(scopes.map(resourceOfScope));
  if (resources.size !== 1) {
    throw new UsageError(
      scopes.length === 0 ? "no scope was asked for" : `the scopes name ${resources.size} resources (${[...resources].join(", ")}); one token is for one resource`,
      "ask for the scopes of one API per getToken() call, e.g. https://graph.microsoft.com/.default",
      STEP,
    );
  }
  return [...resources][0]!;
}

function resourceOfScope(scope: string): string {
  const trimmed = scope.trim();
  const cut = trimmed.lastIndexOf("/");
  if (cut <= 0) return PUBLIC_CLOUD.graphUrl;
  const resource = trimmed.slice(0, cut).replace(/\/+$/, "");
  return resource === MICROSOFT_GRAPH_APP_ID || resource === `api://${MICROSOFT_GRAPH_APP_ID}` ? PUBLIC_CLOUD.graphUrl : resource;
}
