import { GRAPH_OPERATIONS, type GraphOperation, type PermissionReach } from "../../lib/graph-permissions";
import { BLUEPRINT_ALL_UPDATES, BLUEPRINT_PROPERTY_PERMISSIONS } from "./agent-id-types";
import { appIdOf } from "../pipeline/authenticate";
import type { EmulatorRequest } from "../router";
import { callerOf, heldBy } from "./auth";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

/**
 * The part of an operation's row that depends on the object: a permission
 * that reaches only the caller's own objects (Application.ReadWrite.OwnedBy),
 * the blueprints this same application created holding
 * AgentIdentityBlueprint.CreateAsManager, or what descends from the calling
 * blueprint (AgentIdentity.CreateAsManager, AgentIdUser.ReadWrite.IdentityParentedBy).
 */

/** What the reach of a permission is judged on. */
export interface ReachTarget {
  owners?: readonly string[];
  /** The appId that created the object holding AgentIdentityBlueprint.CreateAsManager. */
  managerAppId?: string;
  /** The appId of the blueprint the object descends from. */
  blueprintAppId?: string;
  /** The user the object is, for a permission that reaches the signed-in user alone. */
  userId?: string;
}

/** The calling application's appId: azp in v2 tokens, appid in v1 ones. */
export function callerAppId(req: EmulatorRequest): string | undefined {
  return appIdOf(callerOf(req));
}

/** The calling principal's object id: the owner of what it creates. */
export function callerId(req: EmulatorRequest): string[] {
  const { oid } = callerOf(req);
  return typeof oid === "string" ? [oid] : [];
}

function reaches(req: EmulatorRequest, reach: PermissionReach, target: ReachTarget): boolean {
  const { oid } = callerOf(req);
  const appId = callerAppId(req);
  switch (reach) {
    case "owner":
      return typeof oid === "string" && (target.owners ?? []).includes(oid);
    case "createdAsManager":
      return !!appId && target.managerAppId === appId;
    case "ownBlueprint":
      return !!appId && target.blueprintAppId?.toLowerCase() === appId;
    case "self":
      return callerOf(req).idtyp === "user" && typeof oid === "string" && target.userId?.toLowerCase() === oid.toLowerCase();
    case "otherProperties":
      // Which properties: requirePropertyPermissions.
      return true;
  }
}

/**
 * The reach check of the request's operation, after `authorizeRoute`: a
 * caller whose only accepted permissions reach some objects must reach this
 * one. With `target` undefined (the object does not exist) nothing is
 * checked, so the handler answers 404, as Graph does.
 */
export function requireReach(req: EmulatorRequest, target: ReachTarget | undefined): void {
  if (!target || !req.operation || isReached(req, target)) return;
  const op: GraphOperation = GRAPH_OPERATIONS[req.operation];
  throw graphError(req, GRAPH_ERRORS.notReached(op.summary, acceptedHeld(req, op), accepted(req, op).filter((p) => !op.reach?.[p])));
}

/** Whether one of the caller's accepted permissions for the request's operation reaches `target`. */
export function isReached(req: EmulatorRequest, target: ReachTarget): boolean {
  if (!req.operation) return true;
  const op: GraphOperation = GRAPH_OPERATIONS[req.operation];
  return acceptedHeld(req, op).some((p) => !op.reach?.[p] || reaches(req, op.reach[p]!, target));
}

function accepted(req: EmulatorRequest, op: GraphOperation): readonly string[] {
  return callerOf(req).idtyp === "user" ? op.delegated : op.application;
}

function acceptedHeld(req: EmulatorRequest, op: GraphOperation): string[] {
  const ok = accepted(req, op);
  return heldBy(callerOf(req)).filter((p) => ok.includes(p));
}

/** Whether the caller holds AgentIdentityBlueprint.CreateAsManager: what it creates then records it as its manager. */
export function createsAsManager(req: EmulatorRequest): string | undefined {
  return heldBy(callerOf(req)).includes("AgentIdentityBlueprint.CreateAsManager") ? callerAppId(req) : undefined;
}

/**
 * A blueprint update's second check, once the caller holds one of the row's
 * permissions: each property it changes needs the permission of its
 * category, unless the caller holds AgentIdentityBlueprint.ReadWrite.All or
 * created the blueprint holding AgentIdentityBlueprint.CreateAsManager (which
 * "will allow subsequent updates ... implicitly", the matrix's footnote).
 */
export function requirePropertyPermissions(req: EmulatorRequest, target: ReachTarget, names: readonly string[]): void {
  const held = heldBy(callerOf(req));
  if (held.includes(BLUEPRINT_ALL_UPDATES)) return;
  if (held.includes("AgentIdentityBlueprint.CreateAsManager") && reaches(req, "createdAsManager", target)) return;
  const missing = names.find((name) => !held.includes(BLUEPRINT_PROPERTY_PERMISSIONS[name] ?? BLUEPRINT_ALL_UPDATES));
  if (missing !== undefined) throw graphError(req, GRAPH_ERRORS.propertyPermissionMissing(missing, BLUEPRINT_PROPERTY_PERMISSIONS[missing], BLUEPRINT_ALL_UPDATES));
}
