import type { AbortSignalLike } from "./abort";

/*
 * The Azure SDK's credential contract, as @azure/core-auth 1.x declares it, held
 * here as types so that an agent which only mints tokens installs undici and the
 * kit, not @azure/core-auth and its HTTP runtime. TypeScript compares
 * structurally: an AgentUserCredential is a core-auth TokenCredential wherever an
 * Azure SDK client asks for one (test/lib/provider/azure-types.test.ts checks both ways).
 */

/** core-auth's AccessToken: a bearer token and when it expires, in epoch milliseconds. */
export interface AccessToken {
  token: string;
  expiresOnTimestamp: number;
  refreshAfterTimestamp?: number;
  tokenType?: "Bearer" | "pop";
}

/** The fields of core-auth's GetTokenOptions the kit reads; an SDK's other fields are accepted and ignored. */
export interface GetTokenOptions {
  abortSignal?: AbortSignalLike;
  /** A claims challenge (from a 401's WWW-Authenticate), as the SDK's bearer policy passes it. */
  claims?: string;
  /** Continuous access evaluation: the caller handles claims challenges. */
  enableCae?: boolean;
  tenantId?: string;
}

/** core-auth's TokenCredential. */
export interface TokenCredential {
  getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null>;
}
