/**
 * The Graph permission table's rows (graph-operations.json), their shape, and
 * the one check each row passes as the table loads. The rows are data: one
 * per Graph operation, keyed by the name the emulator's routes use. A row
 * with no application permissions is served to a delegated token only (the
 * files `comments` reads; `/me`, which "requires a signed-in user and
 * therefore a delegated permission", user-get).
 *
 * Named apart from the JSON on purpose: where TypeScript runs through a
 * require hook (Pulumi's Node.js host runs infra/stack.ts with ts-node),
 * `require("./graph-operations")` resolves `.json` before `.ts`.
 */

import { AgentUserError, ExitCode } from "./errors";
import rows from "./graph-operations.json";
import { shapeProblem, type Shape } from "./graph-shape";
import { isObject, jsonKind } from "./json-value";

/** Whom a permission reaches, when the reference limits it to some objects. */
export type PermissionReach =
  /** Objects whose owners include the caller (Application.ReadWrite.OwnedBy). */
  | "owner"
  /** Blueprints and blueprint principals this same application created while holding AgentIdentityBlueprint.CreateAsManager (matrix, footnotes * and **). */
  | "createdAsManager"
  /** Objects that descend from the calling blueprint: AgentIdentity.CreateAsManager and AgentIdUser.ReadWrite.IdentityParentedBy are held by blueprints. */
  | "ownBlueprint"
  /** The signed-in user alone: User.Read and User.ReadWrite read "the signed-in user only" (user-get). */
  | "self"
  /**
   * A change of the properties of its own category only, where an update's
   * properties each need their category's permission (a blueprint's, by
   * the Agent ID permission matrix): the emulator checks each property
   * (emulator/graph/agent-id-types.ts), and the kit never chooses it.
   */
  | "otherProperties";

export interface GraphOperation {
  /** What a person calls it, e.g. "list agent identity blueprints". */
  summary: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path as sent, with `{name}` for each variable segment. */
  path: string;
  /**
   * Other paths Graph serves the operation at, under the same permissions:
   * an untyped collection whose body names the type (a create of
   * `POST /v1.0/applications` with the blueprint's `@odata.type`).
   */
  aliases?: readonly string[];
  /** Application permissions the reference lists, least privileged first. */
  application: readonly string[];
  /** Delegated permissions the reference lists, least privileged first. */
  delegated: readonly string[];
  /** Permissions of `application` or `delegated` that reach only some objects. */
  reach?: Readonly<Record<string, PermissionReach>>;
  /**
   * An Agent ID create, update or delete: Entra ignores the caller's Agent ID
   * permissions when it also holds Directory.ReadWrite.All or
   * Directory.AccessAsUser.All, which "can cause" a 403 (learn: entra/agent-id
   * known issues). The emulator refuses such a caller.
   */
  agentIdWrite?: boolean;
  /**
   * Permissions that count only together with one of the listed others, as
   * a page's "AppRoleAssignment.ReadWrite.All and Application.Read.All".
   */
  with?: Readonly<Record<string, readonly string[]>>;
  /**
   * The opt-in feature of a stack that makes the call (an agent's app
   * roles; on-behalf-of): its permissions are asked of the provisioner only
   * for a stack that uses the feature.
   */
  feature?: Feature;
  /**
   * Where the row comes from: `docs:` is a path in
   * microsoftgraph/microsoft-graph-docs-contrib, `learn:` a page under
   * learn.microsoft.com/graph/api, `matrix:` Microsoft's Agent ID permission
   * matrix (microsoft/Agent365-devTools, docs/plans/agent-id-permissions-reference.md).
   */
  source: string;
  /** What the reference leaves unclear, and what the row chose. */
  note?: string;
}

/** The stack features whose calls need permissions beyond the provisioner's set. */
export type Feature = "appRoles" | "onBehalfOf";

/** Who makes the call. */
export type Caller = "provider" | "azuread" | "doctor" | "preflight" | "comments" | "agent";

/** A row of the table, with who makes it and when. */
export interface KitOperation extends GraphOperation {
  callers: readonly Caller[];
}

/** The table shipped with the kit is not a table of rows: a fault of the package, not of its caller. */
export class PermissionTableError extends AgentUserError {
  readonly exitCode = ExitCode.internal;
  constructor(detail: string) {
    super("the Graph permission table (lib/graph-operations.json)", detail, {
      code: "permission_table",
      hint: "the installed agent-user-kit is damaged or was edited; reinstall it",
    });
  }
}

// Records, not arrays, so that the compiler holds each list to its type, both ways.
const METHODS: Record<GraphOperation["method"], true> = { GET: true, POST: true, PATCH: true, DELETE: true };
const REACHES: Record<PermissionReach, true> = { owner: true, createdAsManager: true, ownBlueprint: true, self: true, otherProperties: true };
const CALLERS: Record<Caller, true> = { provider: true, azuread: true, doctor: true, preflight: true, comments: true, agent: true };
const FEATURES: Record<Feature, true> = { appRoles: true, onBehalfOf: true };

const ROW: Shape = {
  summary: "string",
  method: "string",
  path: "string",
  aliases: "string[]?",
  application: "string[]",
  delegated: "string[]",
  agentIdWrite: "boolean?",
  feature: "string?",
  source: "string",
  note: "string?",
  callers: "string[]",
};

function reachProblem(reach: unknown, permissions: readonly string[], where: string): string | undefined {
  if (!isObject(reach)) return `${where} is ${jsonKind(reach)}, not an object`;
  for (const [permission, whom] of Object.entries(reach)) {
    if (!permissions.includes(permission)) return `${where} names ${permission}, which the row's application and delegated lists do not hold`;
    if (typeof whom !== "string" || !Object.hasOwn(REACHES, whom)) return `${where}.${permission} is not one of ${Object.keys(REACHES).join(", ")}`;
  }
  return undefined;
}

function withProblem(together: unknown, permissions: readonly string[], where: string): string | undefined {
  if (!isObject(together)) return `${where} is ${jsonKind(together)}, not an object`;
  for (const [permission, others] of Object.entries(together)) {
    if (!permissions.includes(permission)) return `${where} names ${permission}, which the row's application and delegated lists do not hold`;
    if (!Array.isArray(others) || others.length === 0 || !others.every((o) => typeof o === "string")) return `${where}.${permission} is not a non-empty list of permissions`;
  }
  return undefined;
}

/** Why `row` is not a row of the table (naming its key and the field), or undefined when it is. */
function rowProblem(row: unknown, where: string): string | undefined {
  const shape = shapeProblem(row, ROW, where);
  if (shape || !isObject(row)) return shape;
  for (const [field, value] of Object.entries(row)) {
    if (!Object.hasOwn(ROW, field) && field !== "reach" && field !== "with") return `${where}.${field} is not a field of a row`;
    if (value === null) return `${where}.${field} is null; leave an absent field out`;
  }
  const op = row as unknown as KitOperation;
  if (!Object.hasOwn(METHODS, op.method)) return `${where}.method is not one of ${Object.keys(METHODS).join(", ")}`;
  if (!op.path.startsWith("/")) return `${where}.path does not start with /`;
  const alias = op.aliases?.find((p) => !p.startsWith("/"));
  if (alias !== undefined) return `${where}.aliases holds ${alias}, which does not start with /`;
  if (!op.source.trim()) return `${where}.source is empty: every row names the page it comes from`;
  const caller = op.callers.find((c) => !Object.hasOwn(CALLERS, c));
  if (caller !== undefined) return `${where}.callers holds ${caller}, not one of ${Object.keys(CALLERS).join(", ")}`;
  if (op.feature !== undefined && !Object.hasOwn(FEATURES, op.feature)) return `${where}.feature is not one of ${Object.keys(FEATURES).join(", ")}`;
  if (op.with !== undefined) {
    const problem = withProblem(op.with, [...op.application, ...op.delegated], `${where}.with`);
    if (problem) return problem;
  }
  return op.reach === undefined ? undefined : reachProblem(op.reach, [...op.application, ...op.delegated], `${where}.reach`);
}

/** `table` as rows of the permission table, each checked once; a malformed one throws PermissionTableError. */
export function checkedTable(table: unknown): Record<string, KitOperation> {
  if (!isObject(table)) throw new PermissionTableError(`the table is ${jsonKind(table)}, not an object of rows`);
  for (const [key, row] of Object.entries(table)) {
    const problem = rowProblem(row, JSON.stringify(key));
    if (problem) throw new PermissionTableError(problem);
  }
  return table as Record<string, KitOperation>;
}

/** Each key names one operation; the emulator's routes name the key they serve. */
export type OperationId = keyof typeof rows;

/** The table. */
export const GRAPH_OPERATIONS = checkedTable(rows) as Readonly<Record<OperationId, KitOperation>>;

export const OPERATION_IDS = Object.keys(GRAPH_OPERATIONS) as OperationId[];
