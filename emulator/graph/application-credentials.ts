import { randomUUID } from "node:crypto";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { newSecret } from "../seed";
import type { Application, FederatedIdentityCredential } from "../store";
import { BLUEPRINTS, managePermission, readPermission, requireOwner, type PermissionFamily } from "./directory-auth";
import { resourceNotFound, visible } from "./directory";
import { graphCreated, graphError, graphNoContent, graphOk } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, jsonBody, requiredString } from "./odata";

/**
 * An application's credentials, as azuread's ApplicationPassword and
 * ApplicationFederatedIdentityCredential manage them: addPassword and
 * removePassword, and federatedIdentityCredentials (reference section 3).
 */

const APP = "/v1\\.0/applications/(?<id>[^/]+)";
const FIC_TYPE = "microsoft.graph.federatedIdentityCredential";
const MAX_FEDERATED = 20;
/** Graph's default lifetime of a password added without endDateTime. */
const DEFAULT_PASSWORD_DAYS = 2 * 365;

const BLUEPRINT_CREDENTIALS: PermissionFamily = { ...BLUEPRINTS, all: [...BLUEPRINTS.all, "AgentIdentityBlueprint.AddRemoveCreds.All"] };
const PLAIN_APPLICATIONS: PermissionFamily = {
  name: "application",
  create: ["Application.ReadWrite.All"],
  all: ["Application.ReadWrite.All"],
  owned: ["Application.ReadWrite.OwnedBy"],
  read: ["Application.Read.All", "Directory.Read.All"],
};

const familyOf = (app: Application | undefined) => (app?.kind === "application" ? PLAIN_APPLICATIONS : BLUEPRINT_CREDENTIALS);

function application(req: EmulatorRequest, ctx: EmulatorContext): Application | undefined {
  return ctx.store.application(req.params.id!.toLowerCase());
}

/** The application a credential change is for, once the caller may change it. */
function managed(req: EmulatorRequest, ctx: EmulatorContext): Application {
  const app = application(req, ctx);
  requireOwner(req, familyOf(app), app);
  if (!app) throw resourceNotFound(req, req.params.id!);
  return app;
}

function date(req: EmulatorRequest, value: unknown, name: string, fallback: Date): string {
  if (value === undefined || value === null) return fallback.toISOString();
  const parsed = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime())) throw graphError(req, GRAPH_ERRORS.dateInvalid(name));
  return parsed.toISOString();
}

/** secretText is answered here once and never again (reference section 3). */
function addPassword(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = managed(req, ctx);
  const body = jsonBody(req, ["passwordCredential"]);
  const given = body.passwordCredential ?? {};
  if (typeof given !== "object" || Array.isArray(given)) throw graphError(req, GRAPH_ERRORS.passwordCredentialNotObject());
  const fields = given as Record<string, unknown>;
  const now = new Date(ctx.store.now());
  const secretText = newSecret();
  const credential = {
    keyId: randomUUID(),
    displayName: typeof fields.displayName === "string" ? fields.displayName : null,
    hint: secretText.slice(0, 3),
    secretText,
    startDateTime: date(req, fields.startDateTime, "startDateTime", now),
    endDateTime: date(req, fields.endDateTime, "endDateTime", new Date(now.getTime() + DEFAULT_PASSWORD_DAYS * 86_400_000)),
  };
  ctx.store.addPassword(app.id, credential);
  return graphOk({ "@odata.context": `${req.origin}/v1.0/$metadata#microsoft.graph.passwordCredential`, customKeyIdentifier: null, ...credential }, req.headers);
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
  const body = jsonBody(req, ["name", "issuer", "subject", "audiences", "description"]);
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
  const context = `${req.origin}/v1.0/$metadata#applications('${app.id}')/federatedIdentityCredentials/$entity`;
  return graphCreated({ "@odata.context": context, ...ficView(fic) }, req.headers);
}

function readable(req: EmulatorRequest, ctx: EmulatorContext): Application {
  return visible(req, ctx, application(req, ctx), req.params.id!);
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

/** Which permissions apply depends on the kind of application the URL names. */
const manage = (req: EmulatorRequest, ctx: EmulatorContext) => managePermission(familyOf(application(req, ctx)));
const read = (req: EmulatorRequest, ctx: EmulatorContext) => readPermission(familyOf(application(req, ctx)));

export const applicationCredentialRoutes: Route[] = [
  { method: "POST", pattern: new RegExp(`^${APP}/addPassword$`), surface: "graph", permission: manage, handler: addPassword },
  { method: "POST", pattern: new RegExp(`^${APP}/removePassword$`), surface: "graph", permission: manage, handler: removePassword },
  { method: "GET", pattern: new RegExp(`^${APP}/federatedIdentityCredentials$`), surface: "graph", permission: read, handler: listFederated },
  { method: "POST", pattern: new RegExp(`^${APP}/federatedIdentityCredentials$`), surface: "graph", permission: manage, handler: addFederated },
  { method: "GET", pattern: new RegExp(`^${APP}/federatedIdentityCredentials/(?<ficId>[^/]+)$`), surface: "graph", permission: read, handler: getFederated },
  { method: "DELETE", pattern: new RegExp(`^${APP}/federatedIdentityCredentials/(?<ficId>[^/]+)$`), surface: "graph", permission: manage, handler: removeFederated },
];
