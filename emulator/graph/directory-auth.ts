import type { EmulatorRequest } from "../router";
import { callerOf, type GraphPermission } from "./auth";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

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

const DENIED = "Authorization_RequestDenied";
const ACCESS_AS_USER = ["Directory.AccessAsUser.All"];

/** A directory API that accepts any of these permissions, as an application or for a user. */
export function directoryPermission(accepted: readonly string[]): GraphPermission {
  return { application: accepted, delegated: accepted, deniedCode: DENIED };
}

/** A read; any permission of the family will do. */
export function readPermission(family: PermissionFamily): GraphPermission {
  return directoryPermission([...family.all, ...family.owned, ...family.create, ...family.read]);
}

/** A create of a family object. */
export function createPermission(family: PermissionFamily): GraphPermission {
  return { ...directoryPermission(family.create), refusedScopes: ACCESS_AS_USER };
}

/** A change to an object: a tenant-wide permission, or an owned one (then `requireOwner` in the handler). */
export function managePermission(family: PermissionFamily): GraphPermission {
  return { ...directoryPermission([...family.all, ...family.owned]), refusedScopes: ACCESS_AS_USER };
}

/**
 * The owner check of a change, after `managePermission`: a caller holding
 * only an "owned" permission reaches only objects it owns. With `object`
 * undefined (it does not exist) nothing is checked, so the handler answers
 * 404, as Graph does.
 */
export function requireOwner(req: EmulatorRequest, family: PermissionFamily, object: { owners?: readonly string[] } | object | undefined): void {
  const claims = callerOf(req);
  const held = [...(Array.isArray(claims.roles) ? claims.roles : []), ...(typeof claims.scp === "string" ? claims.scp.split(/\s+/) : [])];
  const owners = object && "owners" in object && Array.isArray(object.owners) ? (object.owners as string[]) : [];
  if (!object || family.all.some((p) => held.includes(p)) || (typeof claims.oid === "string" && owners.includes(claims.oid))) return;
  throw graphError(req, GRAPH_ERRORS.notOwner(family.name, family.all));
}

/** The calling principal's object id: the owner of what it creates. */
export function callerId(req: EmulatorRequest): string[] {
  const { oid } = callerOf(req);
  return typeof oid === "string" ? [oid] : [];
}

/** Any service principal, read through the untyped collection (e.g. Microsoft Graph's, for a grant's resourceId). */
export const READ_SERVICE_PRINCIPALS = directoryPermission([
  "Application.Read.All",
  "Application.ReadWrite.All",
  "Application.ReadWrite.OwnedBy",
  "Directory.Read.All",
  "Directory.ReadWrite.All",
]);

const GRANT_WRITERS: readonly string[] = ["DelegatedPermissionGrant.ReadWrite.All", "Directory.ReadWrite.All"];
export const WRITE_GRANTS = directoryPermission(GRANT_WRITERS);
export const READ_GRANTS = directoryPermission([...GRANT_WRITERS, "DelegatedPermissionGrant.Read.All", "Directory.Read.All"]);
