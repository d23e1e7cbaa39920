import { timingSafeEqual } from "node:crypto";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse } from "../router";
import type { User } from "../store";
import { aadstsError, emulatorRule } from "./aadsts-error";
import { userAccessClaims } from "./agent-claims";
import { LIFETIME_S, times } from "./claims";
import { consentedScopes, consentRequired } from "./consent";
import { parseScope } from "./scope";
import type { Client, TokenKit } from "./token-kit";

/**
 * TEST ONLY: the resource owner password grant ("Microsoft identity
 * platform and OAuth 2.0 Resource Owner Password Credentials", entra-docs
 * identity-platform/v2-oauth-ropc.md), which Entra documents and
 * discourages: a person's token without a browser, for a test user with a
 * password and no MFA. The emulator serves it so that a test can stand in
 * for the client a user signs in to, and hand the user's token for the
 * blueprint to the on-behalf-of flow. Only a public client may use it here;
 * only a user with a password (never an agent user) signs in, and only a
 * start that asks for a person gives one a password (EmulatorOptions.testUser).
 */

export function passwordGrant(req: EmulatorRequest, ctx: EmulatorContext, form: URLSearchParams, client: Client, kit: TokenKit): EmulatorResponse {
  const { store } = ctx;
  if (client.kind !== "application" || client.app.kind !== "application") {
    throw emulatorRule("the password grant is served to a plain application registered as a public client, not to an agent identity or a blueprint.");
  }
  const { app } = client;
  const secret = form.get("client_secret") ?? form.get("client_assertion");
  if (app.publicClient && secret) throw aadstsError(401, "invalid_client", 700025, "Client is public so neither 'client_assertion' nor 'client_secret' should be presented.");
  // The emulator serves public clients only: a confidential one would have to authenticate first.
  if (!app.publicClient) throw aadstsError(401, "invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.");
  const username = kit.required(form, "username");
  const password = kit.required(form, "password");
  const requested = parseScope(kit.required(form, "scope"), "delegated");
  const user = signedIn(ctx, username, password);
  const resource = kit.resolveResource(ctx, requested);
  const principal = store.servicePrincipalByAppId(app.appId);
  if (!principal) throw aadstsError(400, "invalid_client", 7000229, `The client application ${app.appId} is missing service principal in the tenant ${store.tenantId}.`);
  const scopes = consentedScopes(store, principal.id, user.id, resource, requested.named, app.appId);
  if (!scopes) throw consentRequired(app.appId, app.displayName);
  const claims = userAccessClaims(req.origin, store.tenantId, principal, user, resource, scopes, times(store.now(), LIFETIME_S.user));
  return kit.issue(ctx, claims, LIFETIME_S.user, { scope: scopes.join(" ") });
}

/**
 * The user a username and password sign in, refused with the codes of
 * entra-docs identity-platform/reference-error-codes.md: AADSTS50034 for no
 * such user; 50053 while smart lockout holds the account, whatever the
 * password (howto-password-smart-lockout.md); 50056 for a person without a
 * password ("password doesn't exist in the directory for this user"); 50126
 * for a wrong one, which smart lockout counts; 50057 when disabled.
 */
function signedIn(ctx: EmulatorContext, username: string, password: string): User {
  const { store } = ctx;
  const user = store.userByUpn(username);
  if (!user || !store.replicated(user.createdAt)) {
    throw aadstsError(400, "invalid_grant", 50034, `The user account ${username} does not exist in the ${store.tenantId} directory. To sign into this application, the account must be added to the directory.`);
  }
  if (store.lockout.locked(user.id)) throw aadstsError(400, "invalid_grant", 50053, "The account is locked because the user tried to sign in too many times with an incorrect user ID or password.");
  // An agent user never signs in with a password (agent-users: it has no password), whatever its store entry holds.
  if (user.kind !== "user") throw badCredentials();
  if (user.password === undefined) throw aadstsError(400, "invalid_grant", 50056, "Invalid or null password: password doesn't exist in the directory for this user.");
  if (!sameText(user.password, password)) {
    store.lockout.failed(user.id, password);
    throw badCredentials();
  }
  store.lockout.succeeded(user.id);
  if (!user.accountEnabled) throw aadstsError(400, "invalid_grant", 50057, "The user account is disabled.");
  return user;
}

const badCredentials = () => aadstsError(400, "invalid_grant", 50126, "Error validating credentials due to invalid username or password.");

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
