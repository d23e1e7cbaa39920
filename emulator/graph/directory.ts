import type { EmulatorContext, EmulatorRequest } from "../router";
import { graphError } from "./envelope";

/**
 * What the directory routes share: Entra's replication lag as Graph shows it,
 * and `@odata.bind` references.
 */

/**
 * The object a request names by id. An object written less than the store's
 * replication lag ago is not found yet (reference section 3: right after a
 * create, reads of it fail with Request_ResourceNotFound). Lists and writes
 * see it at once: the emulator plays the lag where clients are known to meet it.
 */
export function visible<T extends { createdAt: number }>(req: EmulatorRequest, ctx: EmulatorContext, object: T | undefined, id: string): T {
  if (!object || !ctx.store.replicated(object.createdAt)) throw resourceNotFound(req, id);
  return object;
}

export function resourceNotFound(req: EmulatorRequest, id: string) {
  const message = `Resource '${id}' does not exist or one of its queried reference-property objects are not present.`;
  return graphError(404, "Request_ResourceNotFound", message, req.headers);
}

/**
 * An object a request body refers to: one that does not exist is a bad
 * request (400, final); one created moments ago and not replicated yet is
 * Request_ResourceNotFound (404), which a client may retry.
 */
export function referenced<T extends { createdAt: number }>(req: EmulatorRequest, ctx: EmulatorContext, object: T | undefined, what: string, id: string): T {
  if (!object) throw graphError(400, "Request_BadRequest", `${what} '${id}' does not exist in the tenant.`, req.headers);
  if (!ctx.store.replicated(object.createdAt)) throw resourceNotFound(req, id);
  return object;
}

/** The user ids of `sponsors@odata.bind`; a blueprint or agent identity needs at least one. */
export function sponsorBinds(req: EmulatorRequest, ctx: EmulatorContext, value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw graphError(400, "Request_BadRequest", `An ${what} needs at least one sponsor: set sponsors@odata.bind to one or more user URLs.`, req.headers);
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
  if (!id) {
    const message = `Invalid object reference ${JSON.stringify(url)}: expected a URL ending /users/{id} or /directoryObjects/{id}.`;
    throw graphError(400, "Request_BadRequest", message, req.headers);
  }
  return id.toLowerCase();
}

/** A sponsor reference to an existing person (not an agent user). */
export function sponsorId(req: EmulatorRequest, ctx: EmulatorContext, url: unknown): string {
  const id = boundId(req, url);
  const user = ctx.store.user(id);
  if (!user || user.kind !== "user") throw graphError(400, "Request_BadRequest", `Sponsor '${id}' is not a user in this tenant.`, req.headers);
  return user.id;
}

/** The caller, who owns what it creates, plus any `owners@odata.bind` users or service principals. */
export function owners(req: EmulatorRequest, ctx: EmulatorContext, caller: readonly string[], value: unknown): string[] {
  if (value !== undefined && !Array.isArray(value)) throw graphError(400, "Request_BadRequest", "owners@odata.bind must be a list of URLs.", req.headers);
  const bound = (value ?? []).map((url: unknown) => {
    const id = boundId(req, url);
    if (!ctx.store.hasDirectoryObject(id)) {
      throw graphError(400, "Request_BadRequest", `Owner '${id}' does not exist in this tenant.`, req.headers);
    }
    return id;
  });
  return [...new Set([...caller, ...bound])];
}
