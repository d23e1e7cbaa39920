/**
 * Every Microsoft Graph operation the kit makes (the dynamic providers, the
 * azuread resources of the stack, doctor, preflight and comments), with the
 * permissions Microsoft's API reference lists for it. One table
 * (graph-operations.json), read by the emulator (which authorizes from it and
 * nothing else), by the provisioner's permission set (derived from it), by
 * preflight and by the Graph client's 403 hint. Nothing here has been checked
 * against a real tenant.
 *
 * Where the reference is unclear or its pages disagree, the row takes the
 * stricter reading and its `note` says so. docs/protocol.md, "The permission
 * table", summarizes it.
 */

import { GRAPH_OPERATIONS, OPERATION_IDS, type Feature, type GraphOperation, type KitOperation, type OperationId } from "./graph-operation-rows";

export { GRAPH_OPERATIONS, OPERATION_IDS } from "./graph-operation-rows";
export type { Feature, GraphOperation, KitOperation, OperationId, PermissionReach } from "./graph-operation-rows";

/** Holding either one makes Entra ignore the Agent ID permissions of a create, update or delete. */
export const AGENT_ID_WRITE_BLOCKERS: readonly string[] = ["Directory.ReadWrite.All", "Directory.AccessAsUser.All"];

/** The path template as a pattern: `{name}` is one segment; a segment that is a type cast is never an id. */
function templatePattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\\$ref/g, "\\$ref");
  return new RegExp(`^${escaped.replace(/\{\w+\}/g, "(?!microsoft\\.graph\\.)[^/]+")}$`);
}

/** The operation a request is, by method and path (no query); undefined for a call the table does not hold. */
export function operationOf(method: string, pathname: string): OperationId | undefined {
  return OPERATION_IDS.find((id) => GRAPH_OPERATIONS[id].method === method && templatePattern(GRAPH_OPERATIONS[id].path).test(pathname));
}

/** Whether `held` holds `permission` as the row counts it: with one of the permissions it needs beside it, when it needs one. */
function counts(op: GraphOperation, permission: string, held: readonly string[]): boolean {
  const others = op.with?.[permission];
  return held.includes(permission) && (others === undefined || others.some((o) => held.includes(o)));
}

/** Whether a holder of `held` (permissions of `kind`) may make the call at all, on some object or on all. */
export function holdsPermission(op: GraphOperation, held: readonly string[], kind: "application" | "delegated"): boolean {
  return op[kind].some((p) => counts(op, p, held));
}

/** Whether a holder of `held` (application permissions) may make the call on every object it reaches tenant-wide. */
export function coversTenantWide(op: GraphOperation, held: readonly string[]): boolean {
  return op.application.some((p) => !op.reach?.[p] && counts(op, p, held));
}

const provisioning = (id: OperationId) => GRAPH_OPERATIONS[id].callers.some((c) => c === "provider" || c === "azuread");

/** The operations `pulumi up`, `refresh` and `destroy` make, as the provisioner, for every stack. */
export const PROVISIONING_OPERATIONS: readonly OperationId[] = OPERATION_IDS.filter((id) => provisioning(id) && GRAPH_OPERATIONS[id].feature === undefined);

/** The operations a stack's opt-in feature adds to `pulumi up`, `refresh` and `destroy`. */
export function featureOperations(feature: Feature): OperationId[] {
  return OPERATION_IDS.filter((id) => provisioning(id) && GRAPH_OPERATIONS[id].feature === feature);
}

/** The reads `agent-user doctor` and `preflight` make, as the provisioner, for every stack (a feature's reads are its own). */
export const CHECK_OPERATIONS: readonly OperationId[] = OPERATION_IDS.filter(
  (id) => GRAPH_OPERATIONS[id].callers.some((c) => c === "doctor" || c === "preflight") && GRAPH_OPERATIONS[id].feature === undefined,
);

/**
 * The least privileged application permissions covering `operations`, on
 * top of `base`: first what an operation allows only one way, then each
 * uncovered operation's least privileged permission, then any permission the
 * others already cover is dropped. Scoped permissions (owners,
 * CreateAsManager) are never chosen: the kit adopts objects an earlier run,
 * or another tool, made.
 */
export function leastPermissions(operations: readonly OperationId[], base: readonly string[] = []): string[] {
  const ops = operations.map((id) => GRAPH_OPERATIONS[id]).filter((op) => op.application.length > 0);
  const chosen: string[] = [];
  const held = () => [...base, ...chosen];
  const tenantWide = (op: GraphOperation) => op.application.filter((p) => !op.reach?.[p] && !AGENT_ID_WRITE_BLOCKERS.includes(p));
  for (const op of ops) {
    const only = tenantWide(op);
    if (only.length === 1 && !held().includes(only[0]!)) chosen.push(only[0]!);
  }
  for (const op of ops) {
    if (!coversTenantWide(op, held())) chosen.push(tenantWide(op)[0]!);
  }
  for (const p of [...chosen].reverse()) {
    const without = held().filter((q) => q !== p);
    if (ops.every((op) => coversTenantWide(op, without))) chosen.splice(chosen.indexOf(p), 1);
  }
  return chosen;
}

/** The provisioner's application permissions: every call of `pulumi up`, `refresh` and `destroy`. */
export const PROVISIONER_PERMISSIONS: readonly string[] = leastPermissions(PROVISIONING_OPERATIONS);

/** The read-only permissions doctor and preflight need beyond the provisioner's. */
export const CHECK_PERMISSIONS: readonly string[] = leastPermissions(CHECK_OPERATIONS, PROVISIONER_PERMISSIONS);

/**
 * What each opt-in feature adds to the provisioner's permissions, asked of
 * it only for a stack that uses the feature: an agent's `appRoles` need
 * AppRoleAssignment.ReadWrite.All, whose holder can grant itself any app
 * role; on-behalf-of's exposed API needs the blueprint's auth properties.
 */
export const FEATURE_PERMISSIONS: Readonly<Record<Feature, readonly string[]>> = {
  appRoles: leastPermissions(featureOperations("appRoles"), PROVISIONER_PERMISSIONS),
  onBehalfOf: leastPermissions(featureOperations("onBehalfOf"), PROVISIONER_PERMISSIONS),
};

/** The operations of `operations` that a holder of `held` cannot make tenant-wide, each with what would allow it. */
export function uncovered(operations: readonly OperationId[], held: readonly string[]): Array<{ id: OperationId; op: KitOperation }> {
  return operations.filter((id) => GRAPH_OPERATIONS[id].application.length > 0 && !coversTenantWide(GRAPH_OPERATIONS[id], held)).map((id) => ({ id, op: GRAPH_OPERATIONS[id] }));
}

/**
 * What a 403 on this call most likely lacks, for an error message: the
 * operation, the permission of the provisioner's set that allows it, and the
 * others the reference lists. Undefined for a call the table does not hold.
 */
export function permissionHint(method: string, pathname: string): string | undefined {
  const id = operationOf(method, pathname);
  if (!id) return undefined;
  const op = GRAPH_OPERATIONS[id];
  if (op.application.length === 0) return `to ${op.summary} the agent user's delegated token needs one of ${op.delegated.join(", ")}`;
  const kit = op.application.find((p) => PROVISIONER_PERMISSIONS.includes(p) || CHECK_PERMISSIONS.includes(p));
  const others = op.application.filter((p) => p !== kit && !op.reach?.[p]);
  const blockers = op.agentIdWrite ? `; and the application must not hold ${AGENT_ID_WRITE_BLOCKERS[0]}, with which Entra ignores the Agent ID permissions` : "";
  return `to ${op.summary} the provisioner needs the application permission ${kit ?? others[0]}${others.length > 0 && kit ? ` (or one of ${others.join(", ")})` : ""}, granted with admin consent${blockers}`;
}
