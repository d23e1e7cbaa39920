import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { Application } from "../store";
import { callerAppId, callerId, createsAsManager, requireReach } from "./directory-auth";
import { CREATION_READ_ONLY, displayName, owners, resourceNotFound, readSponsorBinds, visible } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, jsonBody, matches, odataType, parseFilter, requireODataVersion } from "./odata";
import { ownerRoute } from "./owners";
import { sponsorRoutes } from "./sponsors";

/**
 * Agent identity blueprints (application subtype
 * microsoft.graph.agentIdentityBlueprint) on their typed URLs: create, list
 * with $filter, get, update, delete, sponsors and owners.
 */

const TYPE = "microsoft.graph.agentIdentityBlueprint";
const COLLECTION = "/v1\\.0/applications/microsoft\\.graph\\.agentIdentityBlueprint";
const OBJECT = "/v1\\.0/applications/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentityBlueprint";
const CONTEXT = `applications/${TYPE}`;

/** A blueprint as Graph serves it; secret values are never served back. */
export function applicationView(app: Application): Record<string, unknown> {
  return {
    "@odata.type": `#${TYPE}`,
    id: app.id,
    appId: app.appId,
    displayName: app.displayName,
    tags: app.tags ?? [],
    createdByAppId: app.createdByAppId ?? null,
    signInAudience: "AzureADMyOrg",
    passwordCredentials: app.passwordCredentials.map(({ keyId, displayName, hint, startDateTime, endDateTime }) => ({
      customKeyIdentifier: null,
      displayName,
      endDateTime,
      hint,
      keyId,
      secretText: null,
      startDateTime,
    })),
    keyCredentials: app.keyCredentials.map((k) => ({ ...k, key: null })),
    createdDateTime: new Date(app.createdAt).toISOString(),
  };
}

function blueprint(ctx: EmulatorContext, id: string): Application | undefined {
  const app = ctx.store.application(id.toLowerCase());
  return app?.kind === "agentIdentityBlueprint" ? app : undefined;
}

function tags(req: EmulatorRequest, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((t) => typeof t === "string")) throw graphError(req, GRAPH_ERRORS.tagsNotStrings());
  return value;
}

function create(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  requireODataVersion(req);
  const body = jsonBody(req, ["@odata.type", "displayName", "tags", "sponsors@odata.bind", "owners@odata.bind"], CREATION_READ_ONLY);
  odataType(req, body, TYPE);
  const app = ctx.store.createApplication({
    id: ctx.store.newId(),
    appId: ctx.store.newId(),
    kind: "agentIdentityBlueprint",
    displayName: displayName(req, body),
    tags: tags(req, body.tags),
    sponsors: readSponsorBinds(req, ctx, body["sponsors@odata.bind"], "agent identity blueprint"),
    owners: owners(req, ctx, callerId(req), body["owners@odata.bind"]),
    createdByAppId: callerAppId(req),
    managerAppId: createsAsManager(req),
    passwordCredentials: [],
    keyCredentials: [],
    federatedIdentityCredentials: [],
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#${CONTEXT}/$entity`, ...applicationView(app) }, req.headers);
}

function list(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const clauses = parseFilter(req, ["displayName", "appId"], ["tags"]);
  const views = ctx.store
    .applications("agentIdentityBlueprint")
    .filter((app) => ctx.store.listed(app.createdAt))
    .map(applicationView);
  return collection(req, views.filter((v) => matches(v, clauses)), TYPE, CONTEXT);
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = visible(req, ctx, blueprint(ctx, req.params.id!), req.params.id!);
  requireReach(req, app);
  return entity(req, applicationView(app), TYPE, CONTEXT);
}

function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = blueprint(ctx, req.params.id!);
  requireReach(req, app);
  if (!app) throw resourceNotFound(req, req.params.id!);
  const body = jsonBody(req, ["@odata.type", "displayName", "tags"], CREATION_READ_ONLY);
  odataType(req, body, TYPE);
  // Every field is validated before any is applied: a refused PATCH changes nothing.
  const name = body.displayName !== undefined ? displayName(req, body) : app.displayName;
  const newTags = body.tags !== undefined ? tags(req, body.tags) : app.tags;
  ctx.store.updateApplication(app.id, { displayName: name, tags: newTags });
  return graphNoContent(req.headers);
}

function remove(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = blueprint(ctx, req.params.id!);
  requireReach(req, app);
  if (!app) throw resourceNotFound(req, req.params.id!);
  ctx.store.deleteApplication(app.id);
  return graphNoContent(req.headers);
}

export const applicationRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", operation: "blueprint.list", handler: list },
  { method: "POST", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", operation: "blueprint.create", handler: create },
  { method: "GET", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.get", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.update", handler: update },
  { method: "DELETE", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.delete", handler: remove },
  ...sponsorRoutes(OBJECT, { list: "blueprint.sponsors.list", add: "blueprint.sponsors.add", remove: "blueprint.sponsors.remove" }, { name: "agent identity blueprint", keepsOne: true }, blueprint),
  ownerRoute(OBJECT, "blueprint.owners.list", blueprint),
];
