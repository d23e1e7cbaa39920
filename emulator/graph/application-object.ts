import { randomUUID, X509Certificate } from "node:crypto";
import { isObject } from "../../lib/json-value";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { Application, KeyCredential } from "../store";
import { credentialDate } from "./application-credentials";
import { requireReach } from "./directory-auth";
import { resourceNotFound, visible } from "./directory";
import { graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { applicationView } from "./applications";
import { entity, jsonBody } from "./odata";

/**
 * A blueprint through its base type's URL, `/applications/{id}`, as azuread
 * reaches it: ApplicationPassword and ApplicationCertificate read it until
 * their key shows up, and ApplicationCertificate writes its certificate with a
 * PATCH of `keyCredentials`. An entity set serves instances of the types
 * derived from its own (agentidentityblueprint: "Inherits from application"),
 * and Entra's create-blueprint how-to PATCHes a blueprint at
 * `/v1.0/applications/{id}`. The kit changes no plain application, so a plain
 * one is 404 here, as on the untyped credential URLs.
 */

const OBJECT = "/v1\\.0/applications/(?<id>[^/]+)";
const APPLICATION_TYPE = "microsoft.graph.application";
const BLUEPRINT_TYPE = "microsoft.graph.agentIdentityBlueprint";

function blueprint(req: EmulatorRequest, ctx: EmulatorContext): Application | undefined {
  const app = ctx.store.application(req.params.id!.toLowerCase());
  return app?.kind === "agentIdentityBlueprint" ? app : undefined;
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = visible(req, ctx, blueprint(req, ctx), req.params.id!);
  requireReach(req, app);
  return entity(req, applicationView(app), APPLICATION_TYPE, "applications");
}

/**
 * The body's `@odata.type`: the URL's declared type (what HashiCorp's Graph
 * client writes on every application PATCH) or the blueprint's own
 * (application-update: "can also update an agentIdentityBlueprint object when
 * the @odata.type property is set to #microsoft.graph.agentIdentityBlueprint").
 */
function bodyType(req: EmulatorRequest, body: Record<string, unknown>): void {
  const given = body["@odata.type"];
  if (given !== undefined && given !== `#${APPLICATION_TYPE}` && given !== `#${BLUEPRINT_TYPE}`) throw graphError(req, GRAPH_ERRORS.odataTypeMismatch(given, BLUEPRINT_TYPE));
}

/**
 * A certificate as keyCredential.key carries it: base64 of its bytes, DER or
 * PEM (azuread sends the PEM text, `credentials.go` KeyCredentialForResource);
 * kept as base64 DER, which the token endpoint matches `x5t` against.
 */
function certificate(req: EmulatorRequest, key: unknown): X509Certificate {
  const bytes = typeof key === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(key) ? Buffer.from(key, "base64") : undefined;
  try {
    if (bytes && bytes.length > 0) return new X509Certificate(bytes);
  } catch {
    // Refused below, as any other value that is no certificate.
  }
  throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("key"));
}

/**
 * One entry of a `keyCredentials` PATCH, which replaces the whole collection
 * (application-update). An entry whose keyId the blueprint holds and whose
 * `key` is null keeps that certificate: reads never return `key` (keyCredential:
 * "otherwise, it's always null"), so a client sends the ones it read back
 * that way. The emulator models the one kind the kit uploads, an
 * AsymmetricX509Cert used to Verify a client assertion.
 */
function keyCredential(req: EmulatorRequest, app: Application, given: unknown): { credential: KeyCredential; added: boolean } {
  if (!isObject(given)) throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("keyCredentials"));
  const fields = given as Record<string, unknown>;
  const keyId = fields.keyId === undefined || fields.keyId === null ? randomUUID() : String(fields.keyId).toLowerCase();
  const held = app.keyCredentials.find((k) => k.keyId === keyId);
  if (held && (fields.key === null || fields.key === undefined)) return { credential: held, added: false };
  if (fields.type !== "AsymmetricX509Cert") throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("type"));
  if (fields.usage !== "Verify") throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("usage"));
  const cert = certificate(req, fields.key);
  return {
    credential: {
      keyId,
      displayName: typeof fields.displayName === "string" ? fields.displayName : null,
      type: "AsymmetricX509Cert",
      usage: "Verify",
      key: cert.raw.toString("base64"),
      startDateTime: credentialDate(req, fields.startDateTime, "startDateTime", new Date(cert.validFrom)),
      endDateTime: credentialDate(req, fields.endDateTime, "endDateTime", new Date(cert.validTo)),
    },
    added: held === undefined,
  };
}

/** The keyCredentials PATCH: every entry is checked before any is stored, so a refused PATCH changes nothing. */
function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = blueprint(req, ctx);
  requireReach(req, app);
  if (!app) throw resourceNotFound(req, req.params.id!);
  const body = jsonBody(req, ["@odata.type", "id", "keyCredentials"]);
  bodyType(req, body);
  if (body.id !== undefined && String(body.id).toLowerCase() !== app.id) throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("id"));
  if (body.keyCredentials === undefined) return graphNoContent(req.headers);
  if (!Array.isArray(body.keyCredentials)) throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("keyCredentials"));
  const entries = body.keyCredentials.map((given) => keyCredential(req, app, given));
  if (entries.some((e) => e.added) && ctx.store.blueprintSecretsRefused) throw graphError(req, GRAPH_ERRORS.blueprintSecretsRefused());
  ctx.store.updateApplication(app.id, { keyCredentials: entries.map((e) => e.credential) });
  return graphNoContent(req.headers);
}

export const applicationObjectRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.read", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.certificate.update", handler: update },
];
