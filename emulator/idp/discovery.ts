import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { v2Issuer } from "./claims";

/** OpenID discovery and the JWKS, so emulator tokens verify like Entra's. */
function openidConfiguration(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const tenant = ctx.store.tenantId;
  return {
    status: 200,
    body: {
      issuer: v2Issuer(req.origin, tenant),
      token_endpoint: `${req.origin}/${tenant}/oauth2/v2.0/token`,
      jwks_uri: `${req.origin}/${tenant}/discovery/v2.0/keys`,
      token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt"],
      grant_types_supported: ["client_credentials", "user_fic"],
      id_token_signing_alg_values_supported: ["RS256"],
      tenant_region_scope: "EMU",
    },
  };
}

export const discoveryRoutes: Route[] = [
  { method: "GET", pattern: /^\/(?<tenant>[^/]+)\/v2\.0\/\.well-known\/openid-configuration$/, surface: "other", handler: openidConfiguration },
  { method: "GET", pattern: /^\/(?<tenant>[^/]+)\/discovery\/v2\.0\/keys$/, surface: "other", handler: (_req, ctx) => ({ status: 200, body: ctx.key.jwks() }) },
];
