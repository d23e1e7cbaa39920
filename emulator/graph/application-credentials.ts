import { randomUUID } from "node:crypto";
import { isObject } from "../../lib/json-value";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { newSecret } from "../seed";
import type { Application, FederatedIdentityCredential } from "../store";
import { requireReach } from "./directory-auth";
import { resourceNotFound, visible } from "./directory";
import { graphCreated, graphError, graphNoContent, graphOk } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, metadataUrl, requiredString } from "./odata";
import { jsonBody, odataType } from "./request-body";

/**
 * A blueprint's credentials on the untyped application URLs, as azuread's
 * ApplicationPassword and ApplicationFederatedIdentityCredential manage them:
 * addPassword and removePassword, and federatedIdentityCredentials. The kit
 * never changes a plain application's credentials, so these routes serve
 * blueprints only.
 */

/**
 * A blueprint, addressed on the base type or through its own cast: the
 * blueprint pages document both (`POST /applications/{id}/microsoft.graph.agentIdentityBlueprint/addPassword`,
 * agentidentityblueprint-addpassword; `/applications/{id}/federatedIdentityCredentials`,
 * the Entra how-to), and the Agent 365 CLI falls back from one to the other.
 */
const APP = "/applications/(?<id>[^/]+)(?:/microsoft\\.graph\\.agentIdentityBlueprint)?";
const FIC_TYPE = "microsoft.graph.federatedIdentityCredential";
const MAX_FEDERATED = 20;
/** Graph's default lifetime of a password added without endDateTime. */
const DEFAULT_PASSWORD_DAYS = 2 * 365;

function application(req: EmulatorRequest, ctx: EmulatorContext): Application | undefined {
  const app = ctx.store.application(req.params.id!.toLowerCase());
  return app?.kind === "agentIdentityBlueprint" ? app : undefined;
}

/** The application a credential change is for, once the caller may change it. */
function managed(req: EmulatorRequest, ctx: EmulatorContext): Application {
  const app = application(req, ctx);
  requireReach(req, app);
  if (!app) throw resourceNotFound(req, req.params.id!);
  return app;
}

/** A credential's start or end date as a body gives it, else `fallback`; anything but a date is a 400. */
export function credentialDate(req: EmulatorRequest, value: unknown, name: string, fallback: Date): string {
  if (value === undefined || value === null) return fallback.toISOString();
  const parsed = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime())) throw graphError(req, GRAPH_ERRORS.dateInvalid(name));
  return parsed.toISOString();
}

/** secretText is answered here once and never again. */
function addPassword(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = managed(req, ctx);
  if (ctx.store.blueprintSecretsRefused) throw graphError(req, GRAPH_ERRORS.blueprintSecretsRefused());
  const body = jsonBody(req, ["passwordCredential"]);
  const given = body.passwordCredential ?? {};
  if (!isObject(given)) throw graphError(req, GRAPH_ERRORS.passwordCredentialNotObject());
  const fields = given as Record<string, unknown>;
  const now = new Date(ctx.store.now());
  const secretText = newSecret();
  const credential = {
    keyId: randomUUID(),
    displayName: typeof fields.displayName === "string" ? fields.displayName : null,
    hint: secretText.slice(0, 3),
    secretText,
    startDateTime: credentialDate(req, fields.startDateTime, "startDateTime", now),
    endDateTime: credentialDate(req, fields.endDateTime, "endDateTime", new Date(now.getTime() + DEFAULT_PASSWORD_DAYS * 86_400_000)),
  };
  ctx.store.addPassword(app.id, credential);
  return graphOk({ "@odata.context": metadataUrl(req, "microsoft.graph.passwordCredential"), customKeyIdentifier: null, ...credential }, req.headers);
}

function removePassword(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = managed(req, ctx);
  const keyId = requiredString(req, jsonBody(req, ["keyId"]), "keyId").toLowerCase();
  if (!ctx.store.removePassword(app.id, keyId)) throw resourceNotFound(req, keyId);
  return graphNoContent(req.headers);
}

const ficView = (fic: FederatedIdentityCredential): Record<string, unknown> => ({ description: null, ...fic });

function addFederated(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = managed(req, ctx);
  // A body may name its own type, as HashiCorp's Graph client does on every write (OData's type annotation).
  const body = jsonBody(req, ["@odata.type", "name", "issuer", "subject", "audiences", "description"]);
  odataType(req, body["@odata.type"], FIC_TYPE);
  const name = requiredString(req, body, "name");
  if (app.federatedIdentityCredentials.some((f) => f.name === name)) throw graphError(req, GRAPH_ERRORS.federatedNameTaken(name));
  if (app.federatedIdentityCredentials.length >= MAX_FEDERATED) throw graphError(req, GRAPH_ERRORS.federatedLimit(MAX_FEDERATED));
  const audiences = body.audiences;
  if (!Array.isArray(audiences) || audiences.length !== 1 || typeof audiences[0] !== "string") {
    throw graphError(req, GRAPH_ERRORS.audiencesNotOne());
  }
  const fic: FederatedIdentityCredential = {
    id: randomUUID(),
    name,
    issuer: requiredString(req, body, "issuer"),
    subject: requiredString(req, body, "subject"),
    audiences: [audiences[0]],
    description: typeof body.description === "string" ? body.description : null,
  };
  ctx.store.addFederatedCredential(app.id, fic);
  const context = metadataUrl(req, `applications('${app.id}')/federatedIdentityCredentials/$entity`);
  return graphCreated({ "@odata.context": context, ...ficView(fic) }, req.headers);
}

function readable(req: EmulatorRequest, ctx: EmulatorContext): Application {
  const app = visible(req, ctx, application(req, ctx), req.params.id!);
  requireReach(req, app);
  return app;
}

/** A credential is addressed by its id or its name. */
function federated(req: EmulatorRequest, app: Application): FederatedIdentityCredential {
  const key = req.params.ficId!;
  const fic = app.federatedIdentityCredentials.find((f) => f.id === key.toLowerCase() || f.name === key);
  if (!fic) throw resourceNotFound(req, key);
  return fic;
}

function listFederated(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = readable(req, ctx);
  return collection(req, app.federatedIdentityCredentials.map(ficView), FIC_TYPE, `applications('${app.id}')/federatedIdentityCredentials`);
}

function getFederated(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = readable(req, ctx);
  return entity(req, ficView(federated(req, app)), FIC_TYPE, `applications('${app.id}')/federatedIdentityCredentials`);
}

function removeFederated(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = managed(req, ctx);
  ctx.store.removeFederatedCredential(app.id, federated(req, app).id);
  return graphNoContent(req.headers);
}

export const applicationCredentialRoutes: Route[] = [
  { method: "POST", pattern: new RegExp(`^${APP}/addPassword$`), surface: "graph", operation: "blueprint.password.add", handler: addPassword },
  { method: "POST", pattern: new RegExp(`^${APP}/removePassword$`), surface: "graph", operation: "blueprint.password.remove", handler: removePassword },
  { method: "GET", pattern: new RegExp(`^${APP}/federatedIdentityCredentials$`), surface: "graph", operation: "blueprint.federated.list", handler: listFederated },
  { method: "POST", pattern: new RegExp(`^${APP}/federatedIdentityCredentials$`), surface: "graph", operation: "blueprint.federated.add", handler: addFederated },
  { method: "GET", pattern: new RegExp(`^${APP}/federatedIdentityCredentials/(?<ficId>[^/]+)$`), surface: "graph", operation: "blueprint.federated.get", handler: getFederated },
  { method: "DELETE", pattern: new RegExp(`^${APP}/federatedIdentityCredentials/(?<ficId>[^/]+)$`), surface: "graph", operation: "blueprint.federated.remove", handler: removeFederated },
];
