import type { AccessToken, GetTokenOptions, TokenCredential } from "./azure-token-credential";
import { CredentialUnavailableError, UsageError } from "./errors";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "./entra-rules";
import { isObject, ownProperties } from "./json-value";
import { shownValue } from "./option-checks";
import type { AgentUserAccessToken } from "./provider-options";
import type { AgentUserTokenProvider } from "./token-provider";

/** What every agent credential's options hold: which other tenants it may mint in. */
export interface AgentCredentialOptions {
  /** The agent identity the credential mints for; the provider's default when absent. */
  agentIdentityId?: string;
  /**
   * Tenants besides the provider's that getToken()'s `tenantId` may name, as
   * in @azure/identity; "*" allows any. Another tenant is refused with a
   * CredentialUnavailableError.
   */
  additionallyAllowedTenants?: string[];
}

/** What a credential asks its provider's method for, from one getToken() call. */
export interface CredentialRequest {
  resource: string;
  agentIdentityId?: string;
  tenantId?: string;
  claims?: string;
  enableCae?: boolean;
}

/**
 * The conventions every agent credential follows, as @azure/identity's
 * credentials do: scopes name one resource, a claims challenge (`claims`) is
 * answered with a new token, `enableCae` declares the `cp1` capability,
 * `tenantId` is refused unless allowed, and missing configuration is a
 * CredentialUnavailableError, so ChainedTokenCredential tries the next one.
 * A credential says only which of the provider's flows it mints with.
 */
export abstract class AgentCredential<O extends AgentCredentialOptions> implements TokenCredential {
  private provider: AgentUserTokenProvider | undefined;
  private readonly makeProvider: () => AgentUserTokenProvider;
  protected readonly options: O;

  /** `provider`, or a function that builds it at the first getToken() (a configuration error is then a CredentialUnavailableError). */
  constructor(
    provider: AgentUserTokenProvider | (() => AgentUserTokenProvider),
    options: O,
    private readonly step: string,
  ) {
    this.makeProvider = typeof provider === "function" ? provider : () => provider;
    if (typeof provider !== "function") this.provider = provider;
    this.options = (isObject(options) ? ownProperties(options) : {}) as O;
    const allowed = this.options.additionallyAllowedTenants;
    if (allowed !== undefined && !(Array.isArray(allowed) && allowed.every((t) => typeof t === "string"))) {
      throw new UsageError(`additionallyAllowedTenants must be an array of tenant ids or domains, or ["*"], got ${shownValue(allowed)}`, undefined, step);
    }
  }

  /** The token of this credential's flow, for what one getToken() call asked. */
  protected abstract mint(provider: AgentUserTokenProvider, request: CredentialRequest, options: GetTokenOptions): Promise<AgentUserAccessToken>;

  async getToken(scopes: string | string[], given: GetTokenOptions = {}): Promise<AccessToken> {
    const options: GetTokenOptions = isObject(given) ? (ownProperties(given) as GetTokenOptions) : {};
    const resource = resourceOfScopes(Array.isArray(scopes) ? scopes : [scopes], this.step);
    const provider = this.configuredProvider();
    const request: CredentialRequest = { resource };
    if (this.options.agentIdentityId !== undefined) request.agentIdentityId = this.options.agentIdentityId;
    const tenantId = this.allowedTenant(provider, options.tenantId);
    if (tenantId !== undefined) request.tenantId = tenantId;
    if (options.claims !== undefined) request.claims = options.claims;
    if (options.enableCae === true) request.enableCae = true;
    const token = await this.mint(provider, request, options);
    // Only AccessToken's fields: the claims and hops stay with the provider's callers.
    return { token: token.token, expiresOnTimestamp: token.expiresOnTimestamp, refreshAfterTimestamp: token.refreshAfterTimestamp, tokenType: token.tokenType };
  }

  private configuredProvider(): AgentUserTokenProvider {
    if (this.provider) return this.provider;
    try {
      this.provider = this.makeProvider();
    } catch (err) {
      if (err instanceof UsageError) throw new CredentialUnavailableError(`not configured: ${err.detail}`, err.hint, this.step);
      throw err;
    }
    return this.provider;
  }

  /** The tenant a request names, when it is another than the provider's and allowed; refused as @azure/identity refuses it. */
  private allowedTenant(provider: AgentUserTokenProvider, tenantId: string | undefined): string | undefined {
    if (tenantId === undefined) return undefined;
    if (typeof tenantId !== "string") throw new UsageError(`tenantId of getToken() must be a tenant's GUID or domain, got ${shownValue(tenantId)}`, undefined, this.step);
    if (tenantId.toLowerCase() === provider.tenantId.toLowerCase()) return undefined;
    const allowed = this.options.additionallyAllowedTenants ?? [];
    if (allowed.includes("*") || allowed.some((t) => t.toLowerCase() === tenantId.toLowerCase())) return tenantId;
    throw new CredentialUnavailableError(
      `not configured to acquire tokens for tenant ${shownValue(tenantId)} (its tenant is ${provider.tenantId}): add it to the additionallyAllowedTenants option, or "*" to allow any tenant`,
      undefined,
      this.step,
    );
  }
}

/**
 * The resource that scopes belong to: `X/.default` and `X/Scope.Name` are
 * resource X; a bare scope (`User.Read`) is Microsoft Graph's, as Entra
 * reads it. The flows mint `.default` tokens, which carry every granted permission.
 */
export function resourceOfScopes(scopes: readonly string[], step = "AgentUserCredential"): string {
  const resources = new Set(scopes.map(resourceOfScope));
  if (resources.size !== 1) {
    throw new UsageError(
      scopes.length === 0 ? "no scope was asked for" : `the scopes name ${resources.size} resources (${[...resources].join(", ")}); one token is for one resource`,
      "ask for the scopes of one API per getToken() call, e.g. https://graph.microsoft.com/.default",
      step,
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
