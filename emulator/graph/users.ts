import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { User } from "../store";
import { authorizeGraph } from "./auth";
import { AGENT_USERS, authorizeCreate, authorizeManage, authorizeRead } from "./directory-auth";
import { deleteUser, referenced, resourceNotFound, visible } from "./directory";
import { graphCreated, graphError, graphNoContent } from "./envelope";
import { collection, entity, jsonBody, matches, parseFilter, requireODataVersion, requiredString } from "./odata";

/**
 * Agent users (user subtype microsoft.graph.agentUser) on the typed URLs the
 * provider uses, the type cast before the key. One agent user per agent
 * identity, a UPN on one of the tenant's domains, no password (reference
 * section 3).
 */

const TYPE = "microsoft.graph.agentUser";
const COLLECTION = "/v1\\.0/users/microsoft\\.graph\\.agentUser";
const OBJECT = `${COLLECTION}/(?<id>[^/]+)`;
const CONTEXT = `users/${TYPE}`;
const WRITABLE = ["@odata.type", "accountEnabled", "displayName", "mailNickname", "userPrincipalName"];

function view(user: User): Record<string, unknown> {
  return {
    "@odata.type": `#${TYPE}`,
    id: user.id,
    accountEnabled: user.accountEnabled,
    displayName: user.displayName,
    mailNickname: user.mailNickname,
    userPrincipalName: user.userPrincipalName,
    identityParentId: user.identityParentId ?? null,
    createdDateTime: new Date(user.createdAt).toISOString(),
  };
}

/** Application and delegated permissions of user-get (learn.microsoft.com/graph/api/user-get). */
const USER_READERS: readonly string[] = ["User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"];

/** `GET /v1.0/users/{id | userPrincipalName}`: any user, a person or an agent user (user-get); e.g. whether a sponsor still exists. */
function getAny(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorizeGraph(req, ctx, { application: USER_READERS, delegated: USER_READERS, deniedCode: "Authorization_RequestDenied" });
  const user = visible(req, ctx, ctx.store.userByIdOrUpn(req.params.id!), req.params.id!);
  if (user.kind === "agentUser") return entity(req, view(user), TYPE, CONTEXT);
  const person = { id: user.id, displayName: user.displayName, userPrincipalName: user.userPrincipalName, accountEnabled: user.accountEnabled };
  return entity(req, person, "microsoft.graph.user", "users");
}

function agentUser(ctx: EmulatorContext, id: string): User | undefined {
  const user = ctx.store.users.get(id.toLowerCase());
  return user?.kind === "agentUser" ? user : undefined;
}

/** A UPN on a tenant domain that no other user holds. */
function userPrincipalName(req: EmulatorRequest, ctx: EmulatorContext, body: Record<string, unknown>, self?: User): string {
  const upn = requiredString(req, body, "userPrincipalName");
  const domain = upn.slice(upn.lastIndexOf("@") + 1).toLowerCase();
  if (!upn.includes("@") || !ctx.store.domains.some((d) => d.toLowerCase() === domain)) {
    throw graphError(
      400,
      "Request_BadRequest",
      "The domain portion of the userPrincipalName property is invalid. " +
        `You must use one of the verified domain names in your organization (${ctx.store.domains.join(", ")}).`,
      req.headers,
    );
  }
  const holder = [...ctx.store.users.values()].find((u) => u.userPrincipalName.toLowerCase() === upn.toLowerCase());
  if (holder && holder !== self) {
    throw graphError(400, "Request_BadRequest", "Another object with the same value for property userPrincipalName already exists.", req.headers);
  }
  return upn;
}

function accountEnabled(req: EmulatorRequest, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw graphError(400, "Request_BadRequest", "accountEnabled must be true or false.", req.headers);
  return value;
}

function create(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorizeCreate(req, ctx, AGENT_USERS);
  requireODataVersion(req);
  const body = jsonBody(req, [...WRITABLE, "identityParentId", "passwordProfile"]);
  if (body.passwordProfile !== undefined) throw graphError(400, "Request_BadRequest", "Agent users cannot have a password: remove passwordProfile.", req.headers);
  const parentId = requiredString(req, body, "identityParentId").toLowerCase();
  const parent = ctx.store.agentIdentity(parentId);
  referenced(req, ctx, parent, "The agent identity", parentId);
  const sibling = [...ctx.store.users.values()].find((u) => u.kind === "agentUser" && u.identityParentId === parentId);
  if (sibling) {
    const message = `Agent identity ${parentId} already has an agent user (${sibling.id}); an agent identity holds at most one.`;
    throw graphError(400, "Request_BadRequest", message, req.headers);
  }
  const user: User = {
    id: ctx.store.newId(),
    kind: "agentUser",
    displayName: requiredString(req, body, "displayName"),
    mailNickname: requiredString(req, body, "mailNickname"),
    userPrincipalName: userPrincipalName(req, ctx, body),
    accountEnabled: accountEnabled(req, body.accountEnabled, true),
    identityParentId: parentId,
    createdAt: ctx.store.stamp(),
  };
  ctx.store.users.set(user.id, user);
  return graphCreated({ "@odata.context": `${req.origin}/v1.0/$metadata#${CONTEXT}/$entity`, ...view(user) }, req.headers);
}

function list(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorizeRead(req, ctx, AGENT_USERS);
  const clauses = parseFilter(req, ["userPrincipalName", "displayName", "identityParentId", "mailNickname"]);
  const views = [...ctx.store.users.values()].filter((u) => u.kind === "agentUser").map(view);
  return collection(req, views.filter((v) => matches(v, clauses)), TYPE, CONTEXT);
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  authorizeRead(req, ctx, AGENT_USERS);
  return entity(req, view(visible(req, ctx, agentUser(ctx, req.params.id!), req.params.id!)), TYPE, CONTEXT);
}

function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const user = agentUser(ctx, req.params.id!);
  authorizeManage(req, ctx, AGENT_USERS, user);
  if (!user) throw resourceNotFound(req, req.params.id!);
  const body = jsonBody(req, WRITABLE);
  // Every field is validated before any is applied: a refused PATCH changes nothing.
  const changes: Pick<User, "displayName" | "mailNickname" | "userPrincipalName" | "accountEnabled"> = {
    displayName: body.displayName !== undefined ? requiredString(req, body, "displayName") : user.displayName,
    mailNickname: body.mailNickname !== undefined ? requiredString(req, body, "mailNickname") : user.mailNickname,
    userPrincipalName: body.userPrincipalName !== undefined ? userPrincipalName(req, ctx, body, user) : user.userPrincipalName,
    accountEnabled: accountEnabled(req, body.accountEnabled, user.accountEnabled),
  };
  Object.assign(user, changes);
  return graphNoContent(req.headers);
}

function remove(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const user = agentUser(ctx, req.params.id!);
  authorizeManage(req, ctx, AGENT_USERS, user);
  if (!user) throw resourceNotFound(req, req.params.id!);
  deleteUser(ctx.store, user.id);
  return graphNoContent(req.headers);
}

export const userRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", handler: list },
  { method: "POST", pattern: new RegExp(`^${COLLECTION}$`), surface: "graph", handler: create },
  { method: "GET", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", handler: update },
  { method: "DELETE", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", handler: remove },
  // After the typed collection, whose path this pattern would match too.
  { method: "GET", pattern: /^\/v1\.0\/users\/(?<id>[^/]+)$/, surface: "graph", handler: getAny },
];
