import { randomBytes } from "node:crypto";
import { JWT_BEARER } from "../../lib/client-assertion";
import type { JwtClaims } from "../../lib/jwt";
import { Reply, type EmulatorContext, type EmulatorRequest, type EmulatorResponse, type Route } from "../router";
import type { Application, ServicePrincipal } from "../store";
import { PUBLIC_CLOUD, TOKEN_EXCHANGE_APP_ID, TOKEN_EXCHANGE_AUDIENCE } from "../../lib/entra-rules";
import { aadstsError, emulatorRule, tenantNotFound } from "./aadsts-error";
import { checkApplicationAssertion, checkBlueprintToken, checkIdentityToken, checkSecret } from "./assertions";
import { agentUserClaims, agentUserIdTokenClaims, appClaims, blueprintExchangeClaims, clientInfo, identityExchangeClaims, LIFETIME_S, times } from "./claims";
import { parseScope, type RequestedScope } from "./scope";
import { requestedCapabilities } from "./claims-request";
import { agentAppClaims } from "./agent-claims";
import { onBehalfOf, JWT_BEARER_GRANT } from "./on-behalf-of";
import { passwordGrant } from "./password-grant";
import type { Client, TokenKit, UserTokenExtras } from "./token-kit";

/**
 * `POST /{tenant}/oauth2/v2.0/token`: client credentials (hop 1, hop 2, the
 * provisioner) and user_fic (hop 3), with Entra's rules and error bodies.
 */

type Form = URLSearchParams;

function required(form: Form, name: string): string {
  const value = form.get(name);
  if (!value) throw aadstsError(400, "invalid_request", 900144, `The request body must contain the following parameter: '${name}'.`);
  return value;
}


function resolveClient(ctx: EmulatorContext, clientId: string): Client {
  const { store } = ctx;
  const identity = store.agentIdentity(clientId);
  if (identity && store.replicated(identity.createdAt)) {
    if (identity.accountEnabled === false) {
      throw aadstsError(400, "unauthorized_client", 7000112, `Application '${identity.id}'(${identity.displayName}) is disabled.`);
    }
    return { kind: "agentIdentity", identity };
  }
  const app = store.applicationByAppId(clientId);
  if (app && store.replicated(app.createdAt)) return { kind: "application", app };
  throw aadstsError(
    400,
    "unauthorized_client",
    700016,
    `Application with identifier '${clientId}' was not found in the directory '${store.tenantId}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.`,
  );
}

/** The service principal a `{resource}/.default` scope names; the emulator's own origin stands for Graph. */
function resolveResource(ctx: EmulatorContext, requested: RequestedScope): ServicePrincipal {
  const resource = ctx.origins.includes(requested.resource) ? PUBLIC_CLOUD.resourceUrl : requested.resource;
  const sp = ctx.store.resourceByIdentifier(resource);
  if (!sp) {
    throw aadstsError(400, "invalid_resource", 500011, `The resource principal named ${resource} was not found in the tenant named ${ctx.store.tenantId}.`);
  }
  return sp;
}

function principalOf(ctx: EmulatorContext, app: Application): ServicePrincipal {
  const sp = ctx.store.servicePrincipalByAppId(app.appId);
  if (!sp || !ctx.store.replicated(sp.createdAt)) {
    throw aadstsError(400, "invalid_client", 7000229, `The client application ${app.appId} is missing service principal in the tenant ${ctx.store.tenantId}.`);
  }
  return sp;
}


function issue(ctx: EmulatorContext, claims: JwtClaims, lifetimeS: number, extras?: UserTokenExtras): EmulatorResponse {
  return {
    status: 200,
    headers: { "cache-control": "no-store, no-cache" },
    body: {
      token_type: "Bearer",
      ...(extras === undefined ? {} : { scope: extras.scope }),
      expires_in: lifetimeS,
      ext_expires_in: lifetimeS,
      access_token: ctx.key.sign(claims),
      ...(extras === undefined ? {} : { refresh_token: extras.refresh_token, id_token: extras.id_token, client_info: extras.client_info }),
    },
  };
}

function authenticateApplication(req: EmulatorRequest, ctx: EmulatorContext, form: Form, app: Application): void {
  const secret = form.get("client_secret");
  const assertion = form.get("client_assertion");
  if (secret) return checkSecret(app, secret, ctx.store.now());
  if (assertion) {
    if (form.get("client_assertion_type") !== JWT_BEARER) required(form, "client_assertion_type");
    return checkApplicationAssertion(app, assertion, ctx, tokenEndpointUrls(req, ctx));
  }
  throw noCredential("client_credentials");
}

function noCredential(grant: string): Reply {
  return aadstsError(401, "invalid_client", 7000216, `'client_assertion', 'client_secret' or 'request' is required for the '${grant}' grant type.`);
}

/** Every spelling of this endpoint's URL a certificate assertion may carry as `aud`. */
function tokenEndpointUrls(req: EmulatorRequest, ctx: EmulatorContext): string[] {
  const tenants = [ctx.store.tenantId, ...ctx.store.domains, req.params.tenant!];
  return ctx.origins.flatMap((o) => tenants.map((t) => `${o}/${t}/oauth2/v2.0/token`));
}

const isExchangeResource = (requested: RequestedScope) => [TOKEN_EXCHANGE_AUDIENCE, TOKEN_EXCHANGE_APP_ID].some((name) => requested.resource.toLowerCase() === name.toLowerCase());

function clientCredentials(req: EmulatorRequest, ctx: EmulatorContext, form: Form, client: Client): EmulatorResponse {
  const { store } = ctx;
  const requested = parseScope(required(form, "scope"), "client_credentials");
  const now = store.now();
  if (client.kind === "agentIdentity") {
    // Agent identities hold no credentials: their only proof is a T1 for them.
    const assertion = form.get("client_assertion");
    if (!assertion) throw noCredential("client_credentials");
    checkBlueprintToken(client.identity, assertion, ctx);
    if (isExchangeResource(requested)) {
      return issue(ctx, identityExchangeClaims(req.origin, store.tenantId, client.identity, times(now, LIFETIME_S.exchange)), LIFETIME_S.exchange);
    }
    const resource = resolveResource(ctx, requested);
    const claims = agentAppClaims(req.origin, store, client.identity, resource, times(now, LIFETIME_S.app));
    // Continuous access evaluation covers workload identities' app tokens too, when the client declares cp1.
    const capabilities = requestedCapabilities(form.get("claims"));
    if (capabilities.length > 0) claims.xms_cc = capabilities;
    return issue(ctx, claims, LIFETIME_S.app);
  }

  const { app } = client;
  authenticateApplication(req, ctx, form, app);
  const principal = principalOf(ctx, app);
  if (app.kind === "agentIdentityBlueprint" && isExchangeResource(requested)) {
    const fmiPath = form.get("fmi_path");
    if (!fmiPath) {
      throw aadstsError(400, "invalid_request", 82008, "Agentic applications requesting a token exchange token must include the fmipath parameter.");
    }
    const identity = store.agentIdentity(fmiPath);
    if (!identity || identity.agentIdentityBlueprintId !== app.appId) {
      throw emulatorRule(`fmi_path '${fmiPath}' is not an agent identity of blueprint ${app.appId}.`);
    }
    const claims = blueprintExchangeClaims(req.origin, store.tenantId, app.appId, principal.id, fmiPath, times(now, LIFETIME_S.exchange));
    return issue(ctx, claims, LIFETIME_S.exchange);
  }
  const resource = resolveResource(ctx, requested);
  if (resource.appId === TOKEN_EXCHANGE_APP_ID) {
    throw emulatorRule(`only agent identity blueprints get token-exchange tokens; ${app.appId} is a plain application.`);
  }
  return issue(ctx, appClaims(req.origin, store.tenantId, principal, resource, times(now, LIFETIME_S.app)), LIFETIME_S.app);
}

function userFic(req: EmulatorRequest, ctx: EmulatorContext, form: Form, client: Client): EmulatorResponse {
  const { store } = ctx;
  if (client.kind !== "agentIdentity") {
    throw emulatorRule(`the user_fic grant is for agent identities; ${client.app.appId} is an application.`);
  }
  const { identity } = client;
  const assertion = form.get("client_assertion");
  if (!assertion) throw noCredential("user_fic");
  const t2 = required(form, "user_federated_identity_credential");
  const requested = parseScope(required(form, "scope"), "user_fic");
  const userId = form.get("user_id");
  const username = form.get("username");
  if (!userId && !username) required(form, "user_id");
  if (userId && username) throw aadstsError(400, "invalid_request", null, "[emulator rule] send user_id or username, not both.");
  if (userId?.includes("@")) {
    throw aadstsError(400, "server_error", 50000, "There was an error issuing a token or an issue with our sign-in service.");
  }
  const capabilities = requestedCapabilities(form.get("claims"));
  checkBlueprintToken(identity, assertion, ctx);
  checkIdentityToken(identity, t2, ctx);
  const resource = resolveResource(ctx, requested);

  const wanted = (userId ?? username)!;
  const user = store.userByIdOrUpn(wanted);
  if (!user || !store.replicated(user.createdAt)) {
    throw aadstsError(400, "invalid_grant", 50034, `The user account ${wanted} does not exist in the ${store.tenantId} directory. To sign into this application, the account must be added to the directory.`);
  }
  if (!user.accountEnabled) throw aadstsError(400, "invalid_grant", 50057, "The user account is disabled.");
  if (user.kind !== "agentUser" || user.identityParentId !== identity.id) {
    throw emulatorRule(`user ${user.id} is not the agent user of agent identity ${identity.id}.`);
  }
  const scopes = store.effectiveGrantScopes(identity.id, user.id, resource.id);
  if (!scopes) {
    throw aadstsError(
      400,
      "invalid_grant",
      65001,
      `The user or administrator has not consented to use the application with ID '${identity.id}' named '${identity.displayName}'. Send an interactive authorization request for this user and resource.`,
    );
  }
  const now = store.now();
  const claims = agentUserClaims(req.origin, store.tenantId, identity, user, resource, scopes, times(now, LIFETIME_S.user));
  if (capabilities.length > 0) claims.xms_cc = capabilities;
  const { oidc } = requested;
  return issue(ctx, claims, LIFETIME_S.user, {
    scope: scopes.join(" "),
    refresh_token: oidc.has("offline_access") ? randomBytes(48).toString("base64url") : undefined,
    id_token: oidc.has("openid") ? ctx.key.sign(agentUserIdTokenClaims(req.origin, store.tenantId, identity, user, oidc, times(now, LIFETIME_S.idToken))) : undefined,
    client_info: form.get("client_info") === "1" ? clientInfo(user.id, store.tenantId) : undefined,
  });
}

/** The endpoint's own steps, as the grant modules share them. */
const KIT: TokenKit = { required, resolveResource, issue, noCredential };

function tokenEndpoint(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  if (!ctx.store.isTenant(req.params.tenant!)) {
    throw tenantNotFound("invalid_request", req.params.tenant!);
  }
  // Media types are case-insensitive (RFC 9110, 8.3.1).
  const contentType = String(req.headers["content-type"] ?? "").trim().toLowerCase();
  // Parameters count only in a form body, as at Entra: never from the query string.
  const form = new URLSearchParams(contentType.startsWith("application/x-www-form-urlencoded") ? req.body : "");
  const grantType = required(form, "grant_type");
  const client = resolveClient(ctx, required(form, "client_id"));
  if (grantType === "client_credentials") return clientCredentials(req, ctx, form, client);
  if (grantType === "user_fic") return userFic(req, ctx, form, client);
  if (grantType === JWT_BEARER_GRANT) return onBehalfOf(req, ctx, form, client, KIT);
  if (grantType === "password") return passwordGrant(req, ctx, form, client, KIT);
  throw aadstsError(400, "unsupported_grant_type", 70003, `The app requested an unsupported grant type '${grantType}'.`);
}

export const tokenRoutes: Route[] = [{ method: "POST", pattern: /^\/(?<tenant>[^/]+)\/oauth2\/v2\.0\/token$/, surface: "token", handler: tokenEndpoint }];
