import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { tenantNotFound } from "./aadsts-error";
import { v2Issuer } from "./claims";

/**
 * OpenID discovery and the JWKS, so emulator tokens verify like Entra's and
 * Microsoft's clients (MSAL, @azure/identity) find the token endpoint on their own.
 *
 * The document has the fields, in the shapes, of the v2.0 document Entra serves:
 * - authorization_endpoint, token_endpoint, token_endpoint_auth_methods_supported,
 *   jwks_uri, userinfo_endpoint, subject_types_supported: the sample response of
 *   "OpenID Connect on the Microsoft identity platform" (entra-docs,
 *   identity-platform/v2-protocols-oidc.md, "Fetch the OpenID configuration document").
 * - which `{tenant}` forms have a document (a tenant id, a domain, `organizations`,
 *   `common`): the same page, "Find your app's OpenID configuration document URI".
 * - every other field, and `{tenantid}` in the issuer of the multi-tenant forms:
 *   the document login.microsoftonline.com serves at
 *   /{tenant}/v2.0/.well-known/openid-configuration (recorded copies:
 *   panva/wellknown issuers/entra-common; Azure SDK for JS test recordings).
 * MSAL takes a document only with authorization_endpoint, token_endpoint, issuer
 * and jwks_uri (msal-common, authority/OpenIdConfigResponse.ts).
 *
 * Strict where the emulator differs: token_endpoint_auth_methods_supported lists
 * only what its token endpoint takes (no client_secret_basic, which Entra's live
 * document adds); no document for `consumers`, which Entra serves for personal
 * accounts (the emulator has none); the interactive endpoints are named but not served.
 */

/** The multi-tenant forms Entra answers for work accounts; the issuer keeps `{tenantid}` for the client to fill. */
const MULTI_TENANT = ["organizations", "common"] as const;

/** The tenant's home region, as tenant_region_scope names it (recorded tenant documents show WW and NA; null on the multi-tenant forms). */
const TENANT_REGION_SCOPE = "WW";

function openidConfiguration(origin: string, tenant: string, tenantRegionScope: string | null): Record<string, unknown> {
  const base = `${origin}/${tenant}`;
  const host = new URL(origin).host;
  return {
    token_endpoint: `${base}/oauth2/v2.0/token`,
    token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt"],
    jwks_uri: `${base}/discovery/v2.0/keys`,
    response_modes_supported: ["query", "fragment", "form_post"],
    subject_types_supported: ["pairwise"],
    id_token_signing_alg_values_supported: ["RS256"],
    response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
    scopes_supported: ["openid", "profile", "email", "offline_access"],
    issuer: v2Issuer(origin, MULTI_TENANT.includes(tenant as (typeof MULTI_TENANT)[number]) ? "{tenantid}" : tenant),
    request_uri_parameter_supported: false,
    // The emulator's origin serves its Graph, as msgraph_host below says.
    userinfo_endpoint: `${origin}/oidc/userinfo`,
    authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
    device_authorization_endpoint: `${base}/oauth2/v2.0/devicecode`,
    http_logout_supported: true,
    frontchannel_logout_supported: true,
    end_session_endpoint: `${base}/oauth2/v2.0/logout`,
    claims_supported: [
      "sub", "iss", "cloud_instance_name", "cloud_instance_host_name", "cloud_graph_host_name", "msgraph_host", "aud", "exp", "iat",
      "auth_time", "acr", "nonce", "preferred_username", "name", "tid", "ver", "at_hash", "c_hash", "email",
    ],
    kerberos_endpoint: `${base}/kerberos`,
    tenant_region_scope: tenantRegionScope,
    cloud_instance_name: "microsoftonline.com",
    cloud_graph_host_name: "graph.windows.net",
    msgraph_host: host,
    rbac_url: "https://pas.windows.net",
  };
}

function openidConfigurationRoute(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const asked = req.params.tenant!;
  const multi = MULTI_TENANT.find((t) => t === asked.toLowerCase());
  if (multi) return { status: 200, body: openidConfiguration(req.origin, multi, null) };
  if (!ctx.store.isTenant(asked)) {
    throw tenantNotFound("invalid_tenant", asked);
  }
  // Endpoints name the tenant id even when a domain was asked: MSAL reads the tenant back from authorization_endpoint.
  return { status: 200, body: openidConfiguration(req.origin, ctx.store.tenantId, TENANT_REGION_SCOPE) };
}

export const discoveryRoutes: Route[] = [
  { method: "GET", pattern: /^\/(?<tenant>[^/]+)\/v2\.0\/\.well-known\/openid-configuration$/, surface: "other", handler: openidConfigurationRoute },
  { method: "GET", pattern: /^\/(?<tenant>[^/]+)\/discovery\/v2\.0\/keys$/, surface: "other", handler: (_req, ctx) => ({ status: 200, body: ctx.key.jwks() }) },
];
