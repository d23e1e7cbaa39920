import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { namesType } from "../pipeline/graph-path";
import type { Application } from "../store";
import { BLUEPRINT } from "./agent-id-types";
import { callerAppId, callerId, createsAsManager, requirePropertyPermissions, requireReach } from "./directory-auth";
import { displayName, owners, resourceNotFound, readSponsorBinds, visible } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection, entity, matches, metadataUrl, parseFilter } from "./odata";
import { mergeProperties, odataType, typedBody, type TypedBody } from "./request-body";
import { exposedApi } from "./exposed-api";
import { keyCredentialsFrom } from "./key-credentials";
import { ownerRoute } from "./owners";
import { sponsorRoutes } from "./sponsors";

/**
 * Agent identity blueprints (application subtype
 * microsoft.graph.agentIdentityBlueprint) on their typed URLs: create, list
 * with $filter, get, update, delete, sponsors and owners. A blueprint holds the
 * properties its resource page documents, inherited ones included, and (the
 * type is open) any other a body gives.
 */

const TYPE = BLUEPRINT.type;
const COLLECTION = "/applications/microsoft\\.graph\\.agentIdentityBlueprint";
const OBJECT = "/applications/(?<id>[^/]+)/microsoft\\.graph\\.agentIdentityBlueprint";
const CONTEXT = `applications/${TYPE}`;

/**
 * What a blueprint answers for a documented property it was never given:
 * the not-nullable collections empty, signInAudience its documented default
 * "AzureADMyOrg", the others null (resources/agentidentityblueprint.md@282406a4).
 */
const UNSET: Readonly<Record<string, unknown>> = {
  api: null,
  appRoles: [],
  certification: null,
  description: null,
  groupMembershipClaims: null,
  identifierUris: [],
  info: null,
  optionalClaims: null,
  requiredResourceAccess: [],
  serviceManagementReference: null,
  signInAudience: "AzureADMyOrg",
  tokenEncryptionKeyId: null,
  verifiedPublisher: null,
  web: null,
};

/** The accounts a blueprint may sign in (resources/agentidentityblueprint.md@282406a4, signInAudience). */
const SIGN_IN_AUDIENCES: readonly string[] = ["AzureADMyOrg", "AzureADMultipleOrgs", "AzureADandPersonalMicrosoftAccount", "PersonalMicrosoftAccount"];
/** "The maximum allowed size is 1,024 characters" (resources/agentidentityblueprint.md@282406a4, description). */
const MAX_DESCRIPTION = 1024;

/** A blueprint as Graph serves it; secret values are never served back. */
export function applicationView(app: Application): Record<string, unknown> {
  return {
    "@odata.type": `#${TYPE}`,
    id: app.id,
    appId: app.appId,
    displayName: app.displayName,
    createdByAppId: app.createdByAppId ?? null,
    ...UNSET,
    ...app.properties,
    identifierUris: app.identifierUris ?? [],
    api: app.api ?? null,
    tags: app.tags ?? [],
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

/**
 * The properties a body sets besides displayName and tags, each checked by
 * its page's rule, merged over `current`: null leaves a property unset.
 * Every field is checked before any is stored, so a refused body changes nothing.
 */
function properties(req: EmulatorRequest, body: TypedBody, current: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const { description, signInAudience } = body.values;
  if (typeof description === "string" && description.length > MAX_DESCRIPTION) throw graphError(req, GRAPH_ERRORS.descriptionTooLong(description.length, MAX_DESCRIPTION));
  if (typeof signInAudience === "string" && !SIGN_IN_AUDIENCES.includes(signInAudience)) throw graphError(req, GRAPH_ERRORS.invalidApplicationValue("signInAudience"));
  return mergeProperties(body, ["displayName", "tags", "keyCredentials", "identifierUris", "api"], current);
}

function tags(value: unknown, fallback: string[] = []): string[] {
  return Array.isArray(value) ? (value as string[]) : fallback;
}

/** A blueprint create: on its typed URL, or on the untyped collection when the body names the type (untyped-creates.ts). */
export function createBlueprint(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const body = typedBody(req, BLUEPRINT, ["@odata.type", "sponsors@odata.bind", "owners@odata.bind"], true);
  odataType(req, body.values["@odata.type"], TYPE);
  const ids = { id: ctx.store.newId(), appId: ctx.store.newId() };
  const app = ctx.store.createApplication({
    ...ids,
    ...exposedApi(req, ctx, ids, body.values),
    kind: "agentIdentityBlueprint",
    displayName: displayName(req, body.values),
    tags: tags(body.values.tags),
    properties: properties(req, body),
    sponsors: readSponsorBinds(req, ctx, body.values["sponsors@odata.bind"], "agent identity blueprint"),
    owners: owners(req, ctx, callerId(req), body.values["owners@odata.bind"]),
    createdByAppId: callerAppId(req),
    managerAppId: createsAsManager(req),
    passwordCredentials: [],
    keyCredentials: body.values.keyCredentials === undefined ? [] : keyCredentialsFrom(req, ctx, [], body.values.keyCredentials),
    federatedIdentityCredentials: [],
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": metadataUrl(req, `${CONTEXT}/$entity`), ...applicationView(app) }, req.headers);
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

/**
 * A blueprint update, on its typed URL or its base type's
 * (application-object.ts), each property under the permission of its
 * category (agent-id-types.ts, BLUEPRINT_PROPERTY_PERMISSIONS). On the base
 * type's URL the body may name that type (HashiCorp's Graph client writes
 * `#microsoft.graph.application` on every PATCH) or the blueprint's
 * (application-update: "can also update an agentIdentityBlueprint object
 * when the @odata.type property is set to #microsoft.graph.agentIdentityBlueprint").
 * Every field is checked before any is stored, so a refused PATCH changes nothing.
 */
export function updateBlueprint(req: EmulatorRequest, ctx: EmulatorContext, url: "typed" | "base" = "typed"): EmulatorResponse {
  const app = blueprint(ctx, req.params.id!);
  requireReach(req, app);
  if (!app) throw resourceNotFound(req, req.params.id!);
  const body = typedBody(req, BLUEPRINT, ["@odata.type"], false, app.id);
  const given = body.values["@odata.type"];
  if (!(url === "base" && typeof given === "string" && namesType(given, "microsoft.graph.application"))) odataType(req, given, TYPE);
  requirePropertyPermissions(req, app, [...Object.keys(body.values), ...Object.keys(body.dynamic)].filter((n) => !n.includes("@")));
  const { keyCredentials } = body.values;
  ctx.store.updateApplication(app.id, {
    ...exposedApi(req, ctx, app, body.values),
    displayName: body.values.displayName !== undefined ? displayName(req, body.values) : app.displayName,
    tags: tags(body.values.tags, app.tags),
    properties: properties(req, body, app.properties),
    keyCredentials: keyCredentials === undefined ? app.keyCredentials : keyCredentialsFrom(req, ctx, app.keyCredentials, keyCredentials),
  });
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
  { method: "POST", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", operation: "blueprint.create", handler: createBlueprint },
  { method: "GET", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.get", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.update", handler: (req, ctx) => updateBlueprint(req, ctx) },
  { method: "DELETE", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.delete", handler: remove },
  ...sponsorRoutes(OBJECT, { list: "blueprint.sponsors.list", add: "blueprint.sponsors.add", remove: "blueprint.sponsors.remove" }, { name: "agent identity blueprint", keepsOne: true }, blueprint),
  ownerRoute(OBJECT, "blueprint.owners.list", blueprint),
];
