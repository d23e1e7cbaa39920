import { LIMITS, upnLocalPartProblem } from "../../lib/entra-rules";
import { keySegment } from "../pipeline/graph-path";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { User } from "../store";
import { requireReach, type ReachTarget } from "./directory-auth";
import { callerOf } from "./auth";
import { referenced, resourceNotFound, visible } from "./directory";
import { graphCreated, graphError, graphNoContent, graphOk } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { sponsorRoutes } from "./sponsors";
import { AGENT_USER } from "./agent-id-types";
import { collection, entity, matches, metadataUrl, parseFilter, requiredString, boundedString } from "./odata";
import { mergeProperties, odataType, typedBody } from "./request-body";

/**
 * Agent users (user subtype microsoft.graph.agentUser) on their typed URLs
 * (the provider puts the cast before the key; the path grammar reads either
 * place, and matches it after the key). One agent user per agent
 * identity, a UPN on one of the tenant's domains, no password (reference
 * section 3).
 */

const TYPE = AGENT_USER.type;
const COLLECTION = "/users/microsoft\\.graph\\.agentUser";
const OBJECT = "/users/(?<id>[^/]+)/microsoft\\.graph\\.agentUser";
const CONTEXT = `users/${TYPE}`;
/** The properties the store keeps apart from `properties`. */
const APART: readonly string[] = ["accountEnabled", "displayName", "mailNickname", "userPrincipalName", "identityParentId"];

function view(user: User): Record<string, unknown> {
  return {
    "@odata.type": `#${TYPE}`,
    id: user.id,
    accountEnabled: user.accountEnabled,
    displayName: user.displayName,
    mailNickname: user.mailNickname,
    userPrincipalName: user.userPrincipalName,
    identityParentId: user.identityParentId ?? null,
    ...user.properties,
    createdDateTime: new Date(user.createdAt).toISOString(),
  };
}


/**
 * user-get's default property set, in its order: without `$select`,
 * `GET /users/{id}` and `GET /me` answer only these (no accountEnabled,
 * createdDateTime or identityParentId). The emulator's users hold no phone,
 * name parts, job, mailbox, office or language: those are null, and
 * businessPhones empty, as Graph answers for a user without them.
 */
const USER_DEFAULT_PROPERTIES = ["businessPhones", "displayName", "givenName", "id", "jobTitle", "mail", "mobilePhone", "officeLocation", "preferredLanguage", "surname", "userPrincipalName"];

/** A user, a person or an agent user, as the user type: an agent user's own properties (identityParentId) are read on its typed URL. */
function asUser(req: EmulatorRequest, user: User): EmulatorResponse {
  const view: Record<string, unknown> = {
    ...(user.kind === "agentUser" ? { "@odata.type": `#${TYPE}` } : {}),
    id: user.id,
    businessPhones: [],
    displayName: user.displayName,
    givenName: null,
    jobTitle: null,
    mail: null,
    mobilePhone: null,
    officeLocation: null,
    preferredLanguage: null,
    surname: null,
    userPrincipalName: user.userPrincipalName,
    accountEnabled: user.accountEnabled,
    mailNickname: user.mailNickname,
    createdDateTime: new Date(user.createdAt).toISOString(),
  };
  return entity(req, view, "microsoft.graph.user", "users", USER_DEFAULT_PROPERTIES);
}

/**
 * `GET /v1.0/users/{id | userPrincipalName}` (user-get). A caller holding
 * only User.Read or User.ReadWrite reaches the signed-in user alone.
 */
function getAny(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const user = visible(req, ctx, ctx.store.userByIdOrUpn(req.params.id!), req.params.id!);
  requireReach(req, { userId: user.id });
  return asUser(req, user);
}

/** `GET /v1.0/me`: the signed-in user of a delegated token (user-get, "Signed-in user request"). */
function getMe(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const { oid } = callerOf(req);
  return asUser(req, visible(req, ctx, typeof oid === "string" ? ctx.store.userByIdOrUpn(oid) : undefined, String(oid)));
}

function agentUser(ctx: EmulatorContext, id: string): User | undefined {
  const user = ctx.store.user(id.toLowerCase());
  return user?.kind === "agentUser" ? user : undefined;
}

/** An agent user descends from the blueprint of its agent identity. */
function reachOf(ctx: EmulatorContext, parentId: string | undefined): ReachTarget {
  const parent = parentId ? ctx.store.agentIdentity(parentId) : undefined;
  return { blueprintAppId: parent?.agentIdentityBlueprintId };
}

/** Entra's length limits (lib/entra-rules.ts), refused as Graph refuses a user's property. */
const displayName = (req: EmulatorRequest, body: Record<string, unknown>) =>
  boundedString(req, body, "displayName", LIMITS.displayName, () => GRAPH_ERRORS.invalidUserValue("displayName"));
const mailNickname = (req: EmulatorRequest, body: Record<string, unknown>) =>
  boundedString(req, body, "mailNickname", LIMITS.mailNickname, () => GRAPH_ERRORS.invalidUserValue("mailNickname"));

/** A UPN by Entra's username policy, on a tenant domain that no other user holds. */
function userPrincipalName(req: EmulatorRequest, ctx: EmulatorContext, body: Record<string, unknown>, self?: User): string {
  const upn = requiredString(req, body, "userPrincipalName");
  if (upn.includes("@") && upnLocalPartProblem(upn.slice(0, upn.lastIndexOf("@")))) throw graphError(req, GRAPH_ERRORS.invalidUserValue("userPrincipalName"));
  const domain = upn.slice(upn.lastIndexOf("@") + 1).toLowerCase();
  if (!upn.includes("@") || !ctx.store.domain(domain)) throw graphError(req, GRAPH_ERRORS.upnDomainUnverified(ctx.store.domains));
  const holder = ctx.store.userByUpn(upn);
  if (holder && holder !== self) throw graphError(req, GRAPH_ERRORS.upnTaken());
  return upn;
}

function accountEnabled(req: EmulatorRequest, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw graphError(req, GRAPH_ERRORS.accountEnabledNotBoolean());
  return value;
}

/** An agent user create: on its typed URL, or on the untyped users collection when the body names the type (untyped-creates.ts). */
export function createAgentUser(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const typed = typedBody(req, AGENT_USER, ["@odata.type"], true);
  const body = typed.values;
  odataType(req, body["@odata.type"], TYPE);
  const parentId = requiredString(req, body, "identityParentId").toLowerCase();
  const parent = ctx.store.agentIdentity(parentId);
  referenced(req, ctx, parent, "The agent identity", parentId);
  requireReach(req, reachOf(ctx, parentId));
  const sibling = ctx.store.agentUserOf(parentId);
  if (sibling) throw graphError(req, GRAPH_ERRORS.identityHasAgentUser(parentId, sibling.id));
  const user = ctx.store.createUser({
    id: ctx.store.newId(),
    kind: "agentUser",
    displayName: displayName(req, body),
    mailNickname: mailNickname(req, body),
    userPrincipalName: userPrincipalName(req, ctx, body),
    accountEnabled: accountEnabled(req, body.accountEnabled, true),
    identityParentId: parentId,
    properties: mergeProperties(typed, APART),
    createdAt: ctx.store.stamp(),
  });
  return graphCreated({ "@odata.context": metadataUrl(req, `${CONTEXT}/$entity`), ...view(user) }, req.headers);
}

function list(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const clauses = parseFilter(req, ["userPrincipalName", "displayName", "identityParentId", "mailNickname"]);
  const views = ctx.store
    .users("agentUser")
    .filter((user) => ctx.store.listed(user.createdAt))
    .map(view);
  return collection(req, views.filter((v) => matches(v, clauses)), TYPE, CONTEXT);
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const user = visible(req, ctx, agentUser(ctx, req.params.id!), req.params.id!);
  requireReach(req, reachOf(ctx, user.identityParentId));
  return entity(req, view(user), TYPE, CONTEXT);
}

function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const user = agentUser(ctx, req.params.id!);
  requireReach(req, user && reachOf(ctx, user.identityParentId));
  if (!user) throw resourceNotFound(req, req.params.id!);
  const typed = typedBody(req, AGENT_USER, ["@odata.type"], false);
  const body = typed.values;
  // agentuser-update: the body must name the type, and the answer is the updated object.
  odataType(req, body["@odata.type"], TYPE, true);
  // Every field is validated before any is applied: a refused PATCH changes nothing.
  ctx.store.updateUser(user.id, {
    displayName: body.displayName !== undefined ? displayName(req, body) : user.displayName,
    mailNickname: body.mailNickname !== undefined ? mailNickname(req, body) : user.mailNickname,
    userPrincipalName: body.userPrincipalName !== undefined ? userPrincipalName(req, ctx, body, user) : user.userPrincipalName,
    accountEnabled: accountEnabled(req, body.accountEnabled, user.accountEnabled),
    properties: mergeProperties(typed, APART, user.properties),
  });
  return graphOk({ "@odata.context": metadataUrl(req, `${CONTEXT}/$entity`), ...view(ctx.store.user(user.id)!) }, req.headers);
}

function remove(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const user = agentUser(ctx, req.params.id!);
  requireReach(req, user && reachOf(ctx, user.identityParentId));
  if (!user) throw resourceNotFound(req, req.params.id!);
  ctx.store.deleteUser(user.id);
  return graphNoContent(req.headers);
}

export const userRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", operation: "agentUser.list", handler: list },
  { method: "POST", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", operation: "agentUser.create", handler: createAgentUser },
  { method: "GET", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "agentUser.get", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "agentUser.update", handler: update },
  { method: "DELETE", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "agentUser.delete", handler: remove },
  // agentuser-post-sponsors and its list and remove pages: the untyped user URL, for agent users (the emulator's other users have no sponsors).
  ...sponsorRoutes<User>(
    "/users/(?<id>[^/]+)",
    { list: "agentUser.sponsors.list", add: "agentUser.sponsors.add", remove: "agentUser.sponsors.remove" },
    { name: "agent user", keepsOne: false, reach: (ctx, user) => reachOf(ctx, user.identityParentId) },
    (ctx, id) => {
      const user = ctx.store.userByIdOrUpn(id);
      return user?.kind === "agentUser" ? user : undefined;
    },
  ),
  { method: "GET", pattern: /^\/me$/, surface: "graph", operation: "me.get", handler: getMe },
  // After the typed collection, whose path this pattern would match too.
  { method: "GET", pattern: new RegExp(`^/users/${keySegment("id")}$`), surface: "graph", operation: "user.get", handler: getAny },
];
