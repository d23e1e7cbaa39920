import { randomBytes } from "node:crypto";

/**
 * App role assignments (Graph's appRoleAssignment): an application
 * permission of a resource API given to a principal, such as User.Read.All
 * of Microsoft Graph given to an agent identity. The token endpoint puts the
 * values of a client's assignments on a resource in its app token's `roles`.
 */

export interface AppRoleAssignment {
  /** Graph's ids are 43 base64url characters (servicePrincipal-post-approleassignedto's example). */
  id: string;
  appRoleId: string;
  principalId: string;
  principalType: "ServicePrincipal" | "User" | "Group";
  principalDisplayName: string;
  resourceId: string;
  resourceDisplayName: string;
  /** When it was written: the token endpoint sees it only after the replication lag. */
  createdAt: number;
}

export function newAssignmentId(): string {
  return randomBytes(32).toString("base64url");
}

/** The tenant's assignments, behind the store: one collection, reached through these methods. */
export class AppRoleAssignmentStore {
  readonly #assignments = new Map<string, AppRoleAssignment>();

  constructor(seed: ReadonlyArray<Omit<AppRoleAssignment, "createdAt">> = [], seededAt = 0) {
    for (const assignment of seed) this.#assignments.set(assignment.id, { ...assignment, createdAt: seededAt });
  }

  get(id: string): AppRoleAssignment | undefined {
    return this.#assignments.get(id);
  }

  /** The assignments given to a principal, or given on a resource. */
  of(side: "principalId" | "resourceId", id: string): AppRoleAssignment[] {
    return [...this.#assignments.values()].filter((a) => a[side] === id);
  }

  create(assignment: AppRoleAssignment): AppRoleAssignment {
    this.#assignments.set(assignment.id, assignment);
    return assignment;
  }

  delete(id: string): boolean {
    return this.#assignments.delete(id);
  }

  /** Deleting a service principal removes the assignments it holds and those on it. */
  removeFor(servicePrincipalId: string): void {
    for (const [id, a] of this.#assignments) if (a.principalId === servicePrincipalId || a.resourceId === servicePrincipalId) this.#assignments.delete(id);
  }
}
