import { createHash, X509Certificate } from "node:crypto";
import { decodeJwt, verifyJwtSignature, type DecodedJwt, type JwtClaims } from "../../lib/jwt";
import type { EmulatorContext } from "../router";
import type { Application, ServicePrincipal } from "../store";
import { PUBLIC_CLOUD, TOKEN_EXCHANGE_APP_ID, TOKEN_EXCHANGE_AUDIENCE } from "../../lib/entra-rules";
import { aadstsError, emulatorRule } from "./aadsts-error";
import { exchangeSubjectTarget } from "./claims";

/**
 * Checks of the credentials a token request presents. Each failure throws the
 * Reply Entra would send; success returns nothing or the verified claims.
 */

const CLOCK_SKEW_S = 300;

function checkTimes(claims: JwtClaims, nowMs: number, what: string): void {
  const now = Math.floor(nowMs / 1000);
  if (typeof claims.exp !== "number" || claims.exp + CLOCK_SKEW_S < now) {
    throw aadstsError(400, "invalid_client", 700024, `${what} is not within its valid time range: it has expired.`);
  }
  if (typeof claims.nbf === "number" && claims.nbf - CLOCK_SKEW_S > now) {
    throw aadstsError(400, "invalid_client", 700024, `${what} is not within its valid time range: it is not yet valid.`);
  }
}

function decodeOrFail(token: string, what: string): DecodedJwt {
  const jwt = decodeJwt(token);
  if (!jwt) throw aadstsError(400, "invalid_request", 50027, `JWT token is invalid or malformed (${what}).`);
  return jwt;
}

/** Whether a credential's validity window holds `nowMs`: from its startDateTime to its endDateTime. */
function current(credential: { startDateTime: string; endDateTime: string }, nowMs: number): boolean {
  return Date.parse(credential.startDateTime) <= nowMs && nowMs <= Date.parse(credential.endDateTime);
}

/** A date as Entra's key messages print it: `MM/dd/yyyy HH:mm:ss`, UTC. */
function entraDate(iso: string): string {
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

/**
 * client_secret: a current password of the application. One outside its
 * validity window, before its startDateTime as after its endDateTime, is
 * AADSTS7000222 ("expired"): Entra documents no code for a secret that is
 * not valid yet, and the emulator answers it as Entra answers a key that is
 * not (checkCertificateAssertion).
 */
export function checkSecret(app: Application, secret: string, nowMs: number): void {
  const match = app.passwordCredentials.find((p) => p.secretText === secret);
  if (!match) {
    throw aadstsError(
      401,
      "invalid_client",
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${app.appId}'.`,
    );
  }
  if (!current(match, nowMs)) {
    throw aadstsError(401, "invalid_client", 7000222, `The provided client secret keys for app '${app.appId}' are expired.`);
  }
}

/**
 * A certificate assertion (header x5t#S256 or x5t) signed by a key credential
 * of the application, within the key credential's startDateTime and
 * endDateTime. No Microsoft page gives the code for a key out of its window:
 * the emulator answers AADSTS700027 "[Reason - The key used is expired.]", as
 * Entra has been seen answering for an expired key (microsoft/azure-tools-for-java#2785)
 * and, with the same reason, for one whose start was still ahead
 * (azureautomation/azure-automation-ise-addon#136): the strict reading.
 */
function checkCertificateAssertion(app: Application, jwt: DecodedJwt, tokenEndpoints: readonly string[], nowMs: number): void {
  const wanted = jwt.header["x5t#S256"] ?? jwt.header.x5t;
  const hash = jwt.header["x5t#S256"] ? "sha256" : "sha1";
  const cred = app.keyCredentials.find((k) => createHash(hash).update(Buffer.from(k.key, "base64")).digest("base64url") === wanted);
  if (!cred) {
    throw aadstsError(401, "invalid_client", 700027, `Client assertion failed signature validation: no key credential of app '${app.appId}' has thumbprint ${wanted}.`);
  }
  if (!current(cred, nowMs)) {
    const thumbprint = Buffer.from(String(wanted), "base64url").toString("hex").toUpperCase();
    throw aadstsError(
      401,
      "invalid_client",
      700027,
      `Client assertion contains an invalid signature. [Reason - The key used is expired., Thumbprint of key used by client: '${thumbprint}', Found key 'Start=${entraDate(cred.startDateTime)}, End=${entraDate(cred.endDateTime)}']`,
    );
  }
  const cert = new X509Certificate(Buffer.from(cred.key, "base64"));
  if (!verifyJwtSignature(jwt, cert.publicKey)) {
    throw aadstsError(401, "invalid_client", 700027, "Client assertion failed signature validation.");
  }
  const c = jwt.claims;
  if (typeof c.aud !== "string" || !tokenEndpoints.includes(c.aud)) {
    // Codes as Microsoft's Azure SDK troubleshooting guide gives them (azure-sdk-for-js, sdk/identity/identity/TROUBLESHOOTING.md).
    throw aadstsError(401, "invalid_client", 700023, `Client assertion audience claim does not match Realm issuer: the aud must be the token endpoint URL.`);
  }
  if (c.iss !== app.appId || c.sub !== app.appId) {
    throw aadstsError(401, "invalid_client", 700021, "Client assertion application identifier doesn't match 'client_id' parameter: iss and sub must both be the client id.");
  }
  checkTimes(c, nowMs, "Client assertion");
}

/** An assertion matched against the application's federated identity credentials (e.g. a managed identity token). */
function checkFederatedAssertion(app: Application, jwt: DecodedJwt, ctx: EmulatorContext, nowMs: number): void {
  if (!ctx.key.signed(jwt)) {
    throw aadstsError(401, "invalid_client", 700027, "Client assertion failed signature validation: the issuer's keys did not verify it.");
  }
  const c = jwt.claims;
  const byIssuer = app.federatedIdentityCredentials.filter((f) => sameIssuer(f.issuer, c.iss, ctx.origins));
  if (byIssuer.length === 0) {
    throw aadstsError(400, "invalid_client", 700211, `No matching federated identity record found for presented assertion issuer '${String(c.iss)}'.`);
  }
  const bySubject = byIssuer.filter((f) => f.subject === c.sub);
  if (bySubject.length === 0) {
    throw aadstsError(400, "invalid_client", 700213, `No matching federated identity record found for presented assertion subject '${String(c.sub)}'.`);
  }
  const auds = Array.isArray(c.aud) ? c.aud : [c.aud];
  const exchange = (a: unknown) => a === TOKEN_EXCHANGE_AUDIENCE || a === TOKEN_EXCHANGE_APP_ID;
  if (!bySubject.some((f) => f.audiences.some((fa) => auds.some((a) => a === fa || (exchange(a) && exchange(fa)))))) {
    // The code public answers quote for this message.
    throw aadstsError(400, "invalid_client", 700212, "No matching federated identity record found for presented assertion audience.");
  }
  checkTimes(c, nowMs, "Client assertion");
}

/** Emulator tokens name whichever of its origins minted them; a federated credential may name any. */
function sameIssuer(configured: string, presented: unknown, origins: readonly string[]): boolean {
  if (typeof presented !== "string") return false;
  const canonical = (s: string) => {
    let out = s.replace(/\/+$/, "");
    for (const o of [...origins, PUBLIC_CLOUD.authorityUrl]) if (out.startsWith(o)) out = `{authority}${out.slice(o.length)}`;
    return out;
  };
  return canonical(configured) === canonical(presented);
}

/** client_assertion of an application: a certificate JWT, or a federated one. */
export function checkApplicationAssertion(app: Application, assertion: string, ctx: EmulatorContext, tokenEndpoints: readonly string[]): void {
  const jwt = decodeOrFail(assertion, "client_assertion");
  const now = ctx.store.now();
  if (jwt.header["x5t#S256"] || jwt.header.x5t) checkCertificateAssertion(app, jwt, tokenEndpoints, now);
  else checkFederatedAssertion(app, jwt, ctx, now);
}

/** A token-exchange token (T1 or T2) minted by this emulator and still valid. */
function verifyExchangeToken(token: string, ctx: EmulatorContext, what: string): JwtClaims {
  const jwt = ctx.key.verify(token);
  if (!jwt) throw aadstsError(401, "invalid_client", 700027, `${what} failed signature validation.`);
  checkTimes(jwt.claims, ctx.store.now(), what);
  if (jwt.claims.aud !== TOKEN_EXCHANGE_APP_ID) {
    throw emulatorRule(
      `${what} has audience '${String(jwt.claims.aud)}', not the token-exchange app ${TOKEN_EXCHANGE_APP_ID}: hop 1 and hop 2 must ask for api://AzureADTokenExchange/.default.`,
    );
  }
  return jwt.claims;
}

/** T1, presented by an agent identity on hop 2 or 3: minted for exactly this identity. */
export function checkBlueprintToken(identity: ServicePrincipal, token: string, ctx: EmulatorContext): void {
  const claims = verifyExchangeToken(token, ctx, "client_assertion");
  const target = exchangeSubjectTarget(claims.sub);
  if (target === undefined) {
    throw emulatorRule("client_assertion is not a blueprint token from hop 1 (its sub has no fmi_path): send T1, not T2, as the client assertion.");
  }
  if (target.toLowerCase() !== identity.id) {
    throw emulatorRule(`client_assertion (T1) was minted for agent identity ${target} (fmi_path), not for ${identity.id}.`);
  }
  if (String(claims.azp).toLowerCase() !== identity.agentIdentityBlueprintId?.toLowerCase()) {
    throw emulatorRule(`client_assertion (T1) was minted by blueprint ${String(claims.azp)}, not by ${identity.agentIdentityBlueprintId}, the blueprint of agent identity ${identity.id}.`);
  }
}

/** T2, presented on hop 3 as user_federated_identity_credential: the token of this same identity. */
export function checkIdentityToken(identity: ServicePrincipal, token: string, ctx: EmulatorContext): void {
  const claims = verifyExchangeToken(token, ctx, "user_federated_identity_credential");
  if (exchangeSubjectTarget(claims.sub) !== undefined || claims.xms_par_app_azp === undefined) {
    throw emulatorRule("user_federated_identity_credential is not an agent identity token from hop 2.");
  }
  if (String(claims.sub).toLowerCase() !== identity.id) {
    throw emulatorRule(`user_federated_identity_credential (T2) belongs to agent identity ${String(claims.sub)}, not to ${identity.id}.`);
  }
}
