import type { JwtClaims } from "../../lib/jwt";
import type { EmulatorContext, EmulatorRequest } from "../router";
import { authorizeGraph } from "./auth";
import { graphError } from "./envelope";

/**
 * Who may call the directory routes, after Microsoft's API reference: each
 * Agent ID object family has create permissions, tenant-wide management
 * permissions, and "owned" permissions that manage only objects the caller
 * owns (whoever creates a blueprint, blueprint principal or agent identity
 * becomes its owner). Tokens carrying Directory.AccessAsUser.All are refused
 * on every Agent ID write (reference section 3).
 */

export interface PermissionFamily {
  /** The object kind, for messages. */
  name: string;
  create: readonly string[];
  /** Manage any object of the family. */
  all: readonly string[];
  /** Manage objects the caller owns. */
  owned: readonly string[];
  /** Read-only permissions, on top of the ones above. */
  read: readonly string[];
}

export const BLUEPRINTS: PermissionFamily = {
  name: "agent identity blueprint",
  create: ["AgentIdentityBlueprint.Create", "AgentIdentityBlueprint.ReadWrite.All"],
  all: ["AgentIdentityBlueprint.ReadWrite.All", "Application.ReadWrite.All"],
  owned: ["AgentIdentityBlueprint.Create", "Application.ReadWrite.OwnedBy"],
  read: ["AgentIdentityBlueprint.Read.All", "Application.Read.All", "Directory.Read.All"],
};

export const BLUEPRINT_PRINCIPALS: PermissionFamily = {
  name: "agent identity blueprint principal",
  create: ["AgentIdentityBlueprintPrincipal.Create", "AgentIdentityBlueprintPrincipal.ReadWrite.All"],
  all: ["AgentIdentityBlueprintPrincipal.ReadWrite.All", "Application.ReadWrite.All"],
  owned: ["AgentIdentityBlueprintPrincipal.Create", "Application.ReadWrite.OwnedBy"],
  read: ["AgentIdentityBlueprintPrincipal.Read.All", "Application.Read.All", "Directory.Read.All"],
};

export const AGENT_IDENTITIES: PermissionFamily = {
  name: "agent identity",
  create: ["AgentIdentity.Create.All", "AgentIdentity.CreateAsManager", "AgentIdentity.ReadWrite.All"],
  all: ["AgentIdentity.ReadWrite.All", "Application.ReadWrite.All"],
  owned: ["AgentIdentity.Create.All", "AgentIdentity.CreateAsManager", "Application.ReadWrite.OwnedBy"],
  read: ["AgentIdentity.Read.All", "Application.Read.All", "Directory.Read.All"],
};

/** Agent users have no owners; the emulator does not model IdentityParentedBy's narrower reach. */
export const AGENT_USERS: PermissionFamily = {
  name: "agent user",
  create: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All"],
  all: ["AgentIdUser.ReadWrite.IdentityParentedBy", "AgentIdUser.ReadWrite.All", "User.ReadWrite.All"],
  owned: [],
  // agentuser-get: User.ReadBasic.All is the least privileged read.
  read: ["User.ReadBasic.All", "User.Read.All", "Directory.Read.All"],
};

/** Any service principal, read through the untyped collection (e.g. Microsoft Graph's, for a grant's resourceId). */
export const SERVICE_PRINCIPAL_READERS: readonly string[] = [
  "Application.Read.All",
  "Application.ReadWrite.All",
  "Application.ReadWrite.OwnedBy",
  "Directory.Read.All",
  "Directory.ReadWrite.All",
];

export const GRANT_WRITERS: readonly string[] = ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"];
export const GRANT_READERS: readonly string[] = [...GRANT_WRITERS, "DelegatedPermissionGrant.Read.All", "Directory.Read.All"];

const DENIED = "Authorization_RequestDenied";
const ACCESS_AS_USER = ["Directory.AccessAsUser.All"];

/** A read; any permission of the family will do. */
export function authorizeRead(req: EmulatorRequest, ctx: EmulatorContext, family: PermissionFamily): JwtClaims {
  const accepted = [...family.all, ...family.owned, ...family.create, ...family.read];
  return authorizeGraph(req, ctx, { application: accepted, delegated: accepted, deniedCode: DENIED });
}

/** A create of a family object. */
export function authorizeCreate(req: EmulatorRequest, ctx: EmulatorContext, family: PermissionFamily): JwtClaims {
  return authorizeGraph(req, ctx, { application: family.create, delegated: family.create, refusedScopes: ACCESS_AS_USER, deniedCode: DENIED });
}

/**
 * A change to an object: a tenant-wide permission, or an owned one and
 * ownership. With `object` undefined (it does not exist) only the permission
 * is checked, so the caller answers 404, as Graph does.
 */
export function authorizeManage(
  req: EmulatorRequest,
  ctx: EmulatorContext,
  family: PermissionFamily,
  object: { owners?: readonly string[] } | object | undefined,
): JwtClaims {
  const accepted = [...family.all, ...family.owned];
  const claims = authorizeGraph(req, ctx, { application: accepted, delegated: accepted, refusedScopes: ACCESS_AS_USER, deniedCode: DENIED });
  const held = [...(Array.isArray(claims.roles) ? claims.roles : []), ...(typeof claims.scp === "string" ? claims.scp.split(/\s+/) : [])];
  const owners = object && "owners" in object && Array.isArray(object.owners) ? (object.owners as string[]) : [];
  if (!object || family.all.some((p) => held.includes(p)) || (typeof claims.oid === "string" && owners.includes(claims.oid))) return claims;
  throw graphError(
    403,
    DENIED,
    `Insufficient privileges to complete the operation: the caller does not own this ${family.name} and holds none of ${family.all.join(", ")}.`,
    req.headers,
  );
}

/** The calling principal's object id: the owner of what it creates. */
export function callerId(claims: JwtClaims): string[] {
  return typeof claims.oid === "string" ? [claims.oid] : [];
}
