/**
 * The shape of a row of the Graph permission table (graph-permissions.ts),
 * and the source locations the rows cite.
 */

/** Whom a permission reaches, when the reference limits it to some objects. */
export type PermissionReach =
  /** Objects whose owners include the caller (Application.ReadWrite.OwnedBy). */
  | "owner"
  /** Blueprints and blueprint principals this same application created while holding AgentIdentityBlueprint.CreateAsManager (matrix, footnotes * and **). */
  | "createdAsManager"
  /** Objects that descend from the calling blueprint: AgentIdentity.CreateAsManager and AgentIdUser.ReadWrite.IdentityParentedBy are held by blueprints. */
  | "ownBlueprint"
  /** The signed-in user alone: User.Read and User.ReadWrite read "the signed-in user only" (user-get). */
  | "self";

export interface GraphOperation {
  /** What a person calls it, e.g. "list agent identity blueprints". */
  summary: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path as sent, with `{name}` for each variable segment. */
  path: string;
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
  /** Where the row comes from. */
  source: string;
  /** What the reference leaves unclear, and what the row chose. */
  note?: string;
}

/** Who makes the call. */
export type Caller = "provider" | "azuread" | "doctor" | "preflight" | "comments" | "agent";

/** A row of the table, with who makes it and when. */
export interface KitOperation extends GraphOperation {
  callers: readonly Caller[];
}

/** Where the rows' sources live in microsoftgraph/microsoft-graph-docs-contrib, and the matrix's name. */
export const V1 = "api-reference/v1.0/includes/permissions";
export const BETA = "api-reference/beta/includes/permissions";
export const MATRIX = "matrix: Agent ID permission matrix";
