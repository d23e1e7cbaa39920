import type { AccessToken, GetTokenOptions, TokenCredential } from "./azure-token-credential";
import { CredentialUnavailableError, UsageError } from "./errors";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "./entra-rules";
import { isObject, ownProperties } from "./json-value";
import { shownValue } from "./option-checks";
import { AgentUserTokenProvider, type AgentUserTokenProviderOptions, type AgentUserTokenRequestOptions } from "./token-provider";

/** Which agent user a credential acts as (the provider's defaults when absent), and which other tenants it may mint in. */
export interface AgentUserCredentialOptions {
  agentIdentityId?: string;
  agentUser?: string;
  /**
   * Tenants besides the provider's that getToken()'s `tenantId` may name, as
   * in @azure/identity; "*" allows any. Another tenant is refused with a
   * CredentialUnavailableError.
   */
  additionallyAllowedTenants?: string[];
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
export class AgentUserCredential implements TokenCredential {
  private provider: AgentUserTokenProvider | undefined;
  private readonly makeProvider: () => AgentUserTokenProvider;
  private readonly options: AgentUserCredentialOptions;

  /** `provider`, or a function that builds it at the first getToken() (a configuration error is then a CredentialUnavailableError). */
  constructor(provider: AgentUserTokenProvider | (() => AgentUserTokenProvider), options: AgentUserCredentialOptions = {}) {
    this.makeProvider = typeof provider === "function" ? provider : () => provider;
    if (typeof provider !== "function") this.provider = provider;
    this.options = isObject(options) ? (ownProperties(options) as AgentUserCredentialOptions) : {};
    const allowed = this.options.additionallyAllowedTenants;
    if (allowed !== undefined && !(Array.isArray(allowed) && allowed.every((t) => typeof t === "string"))) {
      throw new UsageError(`additionallyAllowedTenants must be an array of tenant ids or domains, or ["*"], got ${shownValue(allowed)}`, undefined, STEP);
    }
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

  async getToken(scopes: string | string[], given: GetTokenOptions = {}): Promise<AccessToken> {
    const options: GetTokenOptions = isObject(given) ? (ownProperties(given) as GetTokenOptions) : {};
    const resource = resourceOfScopes(Array.isArray(scopes) ? scopes : [scopes]);
    const provider = this.configuredProvider();
    const request: AgentUserTokenRequestOptions = { resource, ...this.agentOf() };
    const tenantId = this.allowedTenant(provider, options.tenantId);
    if (tenantId !== undefined) request.tenantId = tenantId;
    if (options.claims !== undefined) request.claims = options.claims;
    if (options.enableCae === true) request.enableCae = true;
    const token = await provider.getToken(request, { abortSignal: options.abortSignal });
    // Only AccessToken's fields: the claims and hops stay with the provider's callers.
    return { token: token.token, expiresOnTimestamp: token.expiresOnTimestamp, refreshAfterTimestamp: token.refreshAfterTimestamp, tokenType: token.tokenType };
  }

  private agentOf(): Pick<AgentUserTokenRequestOptions, "agentIdentityId" | "agentUser"> {
    const { agentIdentityId, agentUser } = this.options;
    return { ...(agentIdentityId !== undefined ? { agentIdentityId } : {}), ...(agentUser !== undefined ? { agentUser } : {}) };
  }

  private configuredProvider(): AgentUserTokenProvider {
    if (this.provider) return this.provider;
    try {
      this.provider = this.makeProvider();
    } catch (err) {
      if (err instanceof UsageError) throw new CredentialUnavailableError(`not configured: ${err.detail}`, err.hint);
      throw err;
    }
    return this.provider;
  }

  /** The tenant a request names, when it is another than the provider's and allowed; refused as @azure/identity refuses it. */
  private allowedTenant(provider: AgentUserTokenProvider, tenantId: string | undefined): string | undefined {
    if (tenantId === undefined) return undefined;
    if (typeof tenantId !== "string") throw new UsageError(`tenantId of getToken() must be a tenant's GUID or domain, got ${shownValue(tenantId)}`);
    if (tenantId.toLowerCase() === provider.tenantId.toLowerCase()) return undefined;
    const allowed = this.options.additionallyAllowedTenants ?? [];
    if (allowed.includes("*") || allowed.some((t) => t.toLowerCase() === tenantId.toLowerCase())) return tenantId;
    throw new CredentialUnavailableError(
      `not configured to acquire tokens for tenant ${shownValue(tenantId)} (its tenant is ${provider.tenantId}): add it to the additionallyAllowedTenants option, or "*" to allow any tenant`,
    );
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
