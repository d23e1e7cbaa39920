import { LIMITS } from "../../lib/entra-rules";
import type { EmulatorContext, EmulatorRequest } from "../router";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { boundedString } from "./odata";

/**
 * What the directory routes share: Entra's replication lag as Graph shows it,
 * and `@odata.bind` references.
 */

/** The body's displayName, as blueprint and agent identity create and PATCH take it: a non-empty string within Entra's length limit. */
export function displayName(req: EmulatorRequest, body: Record<string, unknown>): string {
  return boundedString(req, body, "displayName", LIMITS.displayName, (length) => GRAPH_ERRORS.displayNameTooLong(length, LIMITS.displayName));
}

/**
 * The object a request names by id. An object written less than the store's
 * replication lag ago is not found yet (right after a
 * create, reads of it fail with Request_ResourceNotFound). Lists and writes
 * see it at once: the emulator plays the lag where clients are known to meet it.
 */
export function visible<T extends { createdAt: number }>(req: EmulatorRequest, ctx: EmulatorContext, object: T | undefined, id: string): T {
  if (!object || !ctx.store.replicated(object.createdAt)) throw resourceNotFound(req, id);
  return object;
}

export function resourceNotFound(req: EmulatorRequest, id: string) {
  return graphError(req, GRAPH_ERRORS.resourceNotFound(id));
}

/**
 * An object a request body refers to: one that does not exist is a bad
 * request (400, final); one created moments ago and not replicated yet is
 * Request_ResourceNotFound (404), which a client may retry.
 */
export function referenced<T extends { createdAt: number }>(req: EmulatorRequest, ctx: EmulatorContext, object: T | undefined, what: string, id: string): T {
  if (!object) throw graphError(req, GRAPH_ERRORS.referenceMissing(what, id));
  if (!ctx.store.replicated(object.createdAt)) throw resourceNotFound(req, id);
  return object;
}

/**
 * The sponsor ids of `sponsors@odata.bind`: users or groups, at least one
 * (agentidentityblueprint-post, agentidentity-post), within the sponsor limits.
 */
export function readSponsorBinds(req: EmulatorRequest, ctx: EmulatorContext, value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw graphError(req, GRAPH_ERRORS.sponsorsMissing(what));
  }
  const ids = [...new Set(value.map((url) => sponsorId(req, ctx, url, "body")))];
  checkSponsorLimits(req, ctx, ids);
  return ids;
}

/** The collection an `@odata.bind` or `@odata.id` URL names, e.g. `{graph}/v1.0/users/{id}`, and the object id at its end. */
function boundRef(req: EmulatorRequest, url: unknown): { collection: string; id: string } {
  const m = typeof url === "string" ? /\/(users|groups|servicePrincipals|directoryObjects)\/([^/?]+)$/.exec(url) : null;
  let id: string | undefined;
  try {
    id = m ? decodeURIComponent(m[2]!) : undefined;
  } catch {
    id = undefined;
  }
  if (!m || !id) throw graphError(req, GRAPH_ERRORS.referenceMalformed(url));
  return { collection: m[1]!, id: id.toLowerCase() };
}

/**
 * A sponsor reference: a person or a group that may sponsor. "Sponsors can
 * include users or groups. Sponsors may not include service principals or
 * agent users" (agentidentity-post-sponsors). A typed URL names only its
 * type: `/users/{id}` of a group is no object. An object that does not exist
 * is a 400 in a create body (no page documents that case; the emulator keeps
 * Graph's generic code) and a 404 `Request_ResourceNotFound` on a `$ref` add,
 * as group-post-members documents for the same `$ref` call on groups.
 */
export function sponsorId(req: EmulatorRequest, ctx: EmulatorContext, url: unknown, from: "body" | "ref"): string {
  const { collection, id } = boundRef(req, url);
  const user = collection === "users" || collection === "directoryObjects" ? ctx.store.user(id) : undefined;
  if (user) {
    if (user.kind !== "user") throw graphError(req, GRAPH_ERRORS.sponsorNotPerson(id));
    return user.id;
  }
  const group = collection === "groups" || collection === "directoryObjects" ? ctx.store.group(id) : undefined;
  if (group) {
    if (group.isAssignableToRole) throw graphError(req, GRAPH_ERRORS.sponsorGroupRoleAssignable(id));
    if (!group.groupTypes.some((t) => t === "Unified" || t === "DynamicMembership")) throw graphError(req, GRAPH_ERRORS.sponsorGroupKind(id));
    return group.id;
  }
  if (ctx.store.servicePrincipal(id) && (collection === "servicePrincipals" || collection === "directoryObjects")) {
    throw graphError(req, GRAPH_ERRORS.sponsorNotPerson(id));
  }
  throw from === "ref" ? resourceNotFound(req, id) : graphError(req, GRAPH_ERRORS.sponsorMissing(id));
}

/** At most 100 sponsors, of which at most 5 groups (agentidentity-post-sponsors, agentidentityblueprint-post-sponsors). */
export function checkSponsorLimits(req: EmulatorRequest, ctx: EmulatorContext, ids: readonly string[]): void {
  if (ids.length > LIMITS.sponsors) throw graphError(req, GRAPH_ERRORS.sponsorsTooMany(LIMITS.sponsors));
  if (ids.filter((id) => ctx.store.group(id)).length > LIMITS.sponsorGroups) throw graphError(req, GRAPH_ERRORS.sponsorGroupsTooMany(LIMITS.sponsorGroups));
}

/** The caller, who owns what it creates, plus any `owners@odata.bind` users or service principals. */
export function owners(req: EmulatorRequest, ctx: EmulatorContext, caller: readonly string[], value: unknown): string[] {
  if (value !== undefined && !Array.isArray(value)) throw graphError(req, GRAPH_ERRORS.ownersNotList());
  const bound = (value ?? []).map((url: unknown) => {
    const { id } = boundRef(req, url);
    if (!ctx.store.hasDirectoryObject(id)) {
      throw graphError(req, GRAPH_ERRORS.ownerMissing(id));
    }
    return id;
  });
  return [...new Set([...caller, ...bound])];
}
