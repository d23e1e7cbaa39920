import { decodeJwt, type JwtClaims } from "../../lib/jwt";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse } from "../router";
import type { ServicePrincipal, TenantStore, User } from "../store";
import { aadstsError, emulatorRule } from "./aadsts-error";
import { checkBlueprintToken } from "./assertions";
import { onBehalfOfClaims } from "./agent-claims";
import { LIFETIME_S, times, v2Issuer } from "./claims";
import { requestedCapabilities } from "./claims-request";
import { consentedScopes, consentRequired } from "./consent";
import { parseScope } from "./scope";
import type { Client, TokenKit } from "./token-kit";

/**
 * The on-behalf-of flow of an agent identity (entra-docs
 * agent-id/agent-on-behalf-of-oauth-flow.md): `grant_type` jwt-bearer,
 * `client_id` the agent identity, T1 as its `client_assertion`, the human
 * user's token as `assertion` and `requested_token_use=on_behalf_of`. Entra
 * "returns the resource token after validating both the T1 and Tc": T1 must
 * be for this agent identity from its blueprint, and Tc's audience must be
 * the blueprint. The refusals and their codes are those of "Microsoft Entra
 * authentication and authorization error codes" (entra-docs
 * identity-platform/reference-error-codes.md) unless marked otherwise;
 * the page lists no codes of its own.
 */

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** Entra's clock skew allowance on an assertion's lifetime, as on client assertions. */
const CLOCK_SKEW_S = 300;

export function onBehalfOf(req: EmulatorRequest, ctx: EmulatorContext, form: URLSearchParams, client: Client, kit: TokenKit): EmulatorResponse {
  const { store } = ctx;
  if (client.kind !== "agentIdentity") {
    throw emulatorRule(`the emulator serves the on-behalf-of grant to agent identities only; ${client.app.appId} is an application.`);
  }
  const { identity } = client;
  const t1 = form.get("client_assertion");
  if (!t1) throw kit.noCredential(JWT_BEARER_GRANT);
  const assertion = kit.required(form, "assertion");
  // The OBO request names its use (v2-oauth2-on-behalf-of-flow: required, "on_behalf_of"); Entra's code for another value is not documented.
  if (kit.required(form, "requested_token_use") !== "on_behalf_of") throw emulatorRule("requested_token_use must be on_behalf_of for the jwt-bearer grant.");
  const requested = parseScope(kit.required(form, "scope"), "delegated");
  const capabilities = requestedCapabilities(form.get("claims"));
  checkBlueprintToken(identity, t1, ctx);
  const user = assertedUser(ctx, identity, assertion);
  const resource = kit.resolveResource(ctx, requested);
  const scopes = consentedScopes(store, identity.id, user.id, resource, requested.named);
  if (!scopes) throw consentRequired(identity.id, identity.displayName);
  const claims = onBehalfOfClaims(req.origin, store.tenantId, identity, user, resource, scopes, times(store.now(), LIFETIME_S.user));
  if (capabilities.length > 0) claims.xms_cc = capabilities;
  return kit.issue(ctx, claims, LIFETIME_S.user, { scope: scopes.join(" ") });
}

/** The user a valid user assertion names, for this agent identity's blueprint; every other assertion is refused as Entra refuses it. */
function assertedUser(ctx: EmulatorContext, identity: ServicePrincipal, assertion: string): User {
  const { store } = ctx;
  if (!decodeJwt(assertion)) throw aadstsError(400, "invalid_request", 50027, "JWT token is invalid or malformed (assertion).");
  const jwt = ctx.key.verify(assertion);
  if (!jwt || !issuedHere(jwt.claims, ctx)) {
    throw aadstsError(400, "invalid_grant", 50013, "Assertion failed signature validation: it is not a token this tenant issued.");
  }
  const c = jwt.claims;
  const now = Math.floor(store.now() / 1000);
  if (typeof c.exp !== "number" || c.exp + CLOCK_SKEW_S < now || (typeof c.nbf === "number" && c.nbf - CLOCK_SKEW_S > now)) {
    throw aadstsError(400, "invalid_grant", 500133, `Assertion is not within its valid time range. Current time: ${new Date(now * 1000).toISOString()}, expiry time of assertion ${typeof c.exp === "number" ? new Date(c.exp * 1000).toISOString() : "none"}.`);
  }
  if (c.idtyp === "app") {
    throw aadstsError(400, "invalid_grant", 7000114, `Application '${String(c.azp ?? c.appid)}' is not allowed to make application on-behalf-of calls.`);
  }
  const blueprintAppId = identity.agentIdentityBlueprintId ?? "";
  if (!blueprintAudience(store, blueprintAppId, c.aud)) {
    // Entra's text, as ADAL and MSAL users quote it (microsoft/azuretre-deployment#65); the code is not in the error code reference.
    throw aadstsError(
      400,
      "invalid_grant",
      500131,
      `Assertion audience does not match the Client app presenting the assertion. The audience in the assertion was '${String(c.aud)}' and the expected audience is '${blueprintAppId}' or one of the Application Uris of this application with App ID '${blueprintAppId}'.`,
    );
  }
  const user = typeof c.oid === "string" ? store.user(c.oid) : undefined;
  if (!user || user.kind !== "user") {
    throw aadstsError(400, "invalid_grant", 50034, `The user account ${String(c.oid)} does not exist in the ${store.tenantId} directory.`);
  }
  if (!user.accountEnabled) throw aadstsError(400, "invalid_grant", 50057, "The user account is disabled.");
  return user;
}

/** A v2 token of this tenant names one of the emulator's origins in its issuer; a v1 token, sts.windows.net. */
function issuedHere(c: JwtClaims, ctx: EmulatorContext): boolean {
  const tenantId = ctx.store.tenantId;
  return c.tid === tenantId && (c.iss === `https://sts.windows.net/${tenantId}/` || ctx.origins.some((o) => c.iss === v2Issuer(o, tenantId)));
}

/** "Tc (aud) == Agent identity blueprint client ID": its appId, or one of its identifier URIs. */
function blueprintAudience(store: TenantStore, blueprintAppId: string, aud: unknown): boolean {
  if (typeof aud !== "string") return false;
  const uris = store.applicationByAppId(blueprintAppId)?.identifierUris ?? [];
  return [blueprintAppId, ...uris].some((name) => name.toLowerCase() === aud.toLowerCase());
}
