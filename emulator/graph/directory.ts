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

/** The user ids of `sponsors@odata.bind`; a blueprint or agent identity needs at least one. */
export function sponsorBinds(req: EmulatorRequest, ctx: EmulatorContext, value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw graphError(req, GRAPH_ERRORS.sponsorsMissing(what));
  }
  return [...new Set(value.map((url) => sponsorId(req, ctx, url)))];
}

/** The object id at the end of an `@odata.bind` or `@odata.id` URL, e.g. `{graph}/v1.0/users/{id}`. */
function boundId(req: EmulatorRequest, url: unknown): string {
  const raw = typeof url === "string" ? /\/(?:users|servicePrincipals|directoryObjects)\/([^/?]+)$/.exec(url)?.[1] : undefined;
  let id: string | undefined;
  try {
    id = raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    id = undefined;
  }
  if (!id) throw graphError(req, GRAPH_ERRORS.referenceMalformed(url));
  return id.toLowerCase();
}

/** A sponsor reference to an existing person (not an agent user). */
export function sponsorId(req: EmulatorRequest, ctx: EmulatorContext, url: unknown): string {
  const id = boundId(req, url);
  const user = ctx.store.user(id);
  if (!user || user.kind !== "user") throw graphError(req, GRAPH_ERRORS.sponsorNotPerson(id));
  return user.id;
}

/** The caller, who owns what it creates, plus any `owners@odata.bind` users or service principals. */
export function owners(req: EmulatorRequest, ctx: EmulatorContext, caller: readonly string[], value: unknown): string[] {
  if (value !== undefined && !Array.isArray(value)) throw graphError(req, GRAPH_ERRORS.ownersNotList());
  const bound = (value ?? []).map((url: unknown) => {
    const id = boundId(req, url);
    if (!ctx.store.hasDirectoryObject(id)) {
      throw graphError(req, GRAPH_ERRORS.ownerMissing(id));
    }
    return id;
  });
  return [...new Set([...caller, ...bound])];
}
