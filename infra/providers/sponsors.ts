import { GraphError } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import { getIfExists } from "./graph-helpers";
import type { GraphSession } from "./graph-ops";

/*
 * Sponsors of a blueprint or agent identity, and the reads and updates those
 * sponsored objects share. `objectPath` is the typed object URL, e.g.
 * /v1.0/servicePrincipals/{id}/microsoft.graph.agentIdentity.
 */

/** The `sponsors@odata.bind` value of a create: each sponsor as a user URL. */
export function sponsorBinds(graphUrl: string, sponsors: readonly string[]): string[] {
  return sponsors.map((id) => `${graphUrl}/v1.0/users/${id}`);
}

/**
 * The sponsors Graph holds now, lower-cased and sorted like the inputs. With
 * a window, not-found is retried that long: for an object just created or
 * adopted, which may not have replicated yet.
 */
export async function readSponsors(session: GraphSession, objectPath: string, consistencyWindowMs = 0): Promise<string[]> {
  // learn.microsoft.com/graph/api/agentidentity-list-sponsors (and agentidentityblueprint-list-sponsors)
  const sponsors = await session.graph.list<{ id: string }>(`${objectPath}/sponsors?$select=id`, { agentId: true, consistencyWindowMs, shape: { id: "string" } });
  return sponsors.map((s) => s.id.toLowerCase()).sort();
}

/**
 * Makes the sponsor set equal to `desired`: adds first, then removes, so the
 * object never drops to no sponsor (which Entra refuses). `consistencyWindowMs`
 * as for readSponsors: pass the session's window right after a create or an adoption.
 */
export async function syncSponsors(
  session: GraphSession,
  graphUrl: string,
  objectPath: string,
  desired: readonly string[],
  consistencyWindowMs = 0,
): Promise<void> {
  const current = await readSponsors(session, objectPath, consistencyWindowMs);
  for (const id of desired.filter((d) => !current.includes(d))) {
    try {
      // learn.microsoft.com/graph/api/agentidentity-post-sponsors (and agentidentityblueprint-post-sponsors)
      await session.graph.call("POST", `${objectPath}/sponsors/$ref`, {
        agentId: true,
        body: { "@odata.id": `${graphUrl}/v1.0/directoryObjects/${id}` },
      });
    } catch (err) {
      // A retried POST whose first answer was lost meets "already exists" (400): fine if the sponsor is there.
      if (!(err instanceof GraphError && err.status === 400 && (await readSponsors(session, objectPath)).includes(id))) throw err;
    }
  }
  for (const id of current.filter((c) => !desired.includes(c))) {
    try {
      // learn.microsoft.com/graph/api/agentidentity-delete-sponsors (and agentidentityblueprint-delete-sponsors)
      await session.graph.call("DELETE", `${objectPath}/sponsors/${id}/$ref`, { agentId: true });
    } catch (err) {
      if (!(err instanceof GraphError && err.notFound)) throw err;
    }
  }
}

/** A sponsored object as Graph holds it now (GET with `select`), with its sponsors; undefined when it is gone. */
export async function readSponsoredObject<T>(session: GraphSession, objectPath: string, select: string, shape: Shape): Promise<{ live: T; sponsors: string[] } | undefined> {
  const live = await getIfExists<T>(session.graph, `${objectPath}?${select}`, { shape });
  if (live === undefined) return undefined;
  return { live, sponsors: await readSponsors(session, objectPath) };
}

/**
 * Brings a sponsored object to `desired`: PATCHes the display name if it is
 * not `currentName`, then syncs the sponsors. `consistencyWindowMs` as for syncSponsors.
 */
export async function updateSponsoredObject(
  session: GraphSession,
  objectPath: string,
  currentName: string,
  desired: { graphUrl: string; displayName: string; sponsors: readonly string[] },
  consistencyWindowMs = 0,
): Promise<void> {
  if (currentName !== desired.displayName) {
    await session.graph.call("PATCH", objectPath, { agentId: true, body: { displayName: desired.displayName } });
  }
  await syncSponsors(session, desired.graphUrl, objectPath, desired.sponsors, consistencyWindowMs);
}
