import type { OperationId } from "../../lib/graph-permissions";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { requireReach, type ReachTarget } from "./directory-auth";
import { checkSponsorLimits, resourceNotFound, sponsorId, visible } from "./directory";
import { graphError, graphNoContent } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { collection } from "./odata";
import { jsonBody } from "./request-body";

/**
 * `{object}/sponsors`, `{object}/sponsors/$ref` and
 * `{object}/sponsors/{id}/$ref` of a blueprint, an agent identity or an
 * agent user. A blueprint or agent identity keeps at least one sponsor
 * (its create requires one): removing the last one is refused.
 */

/** What the sponsor routes need to know about the object they hang off. */
export interface Sponsored {
  id: string;
  /** Absent on an agent user no sponsor was added to. */
  sponsors?: string[];
  createdAt: number;
}

/** How one kind of object holds its sponsors. */
export interface SponsoredKind<T extends Sponsored> {
  /** As errors name it: "agent identity". */
  name: string;
  /** Whether its last sponsor stays: an object its create gave a sponsor it must keep. */
  keepsOne: boolean;
  /** What a scoped permission's reach is judged on; absent when every permission of the rows is tenant-wide. */
  reach?: (ctx: EmulatorContext, object: T) => ReachTarget;
}

export function sponsorRoutes<T extends Sponsored>(
  objectPath: string,
  operations: { list: OperationId; add: OperationId; remove: OperationId },
  kind: SponsoredKind<T>,
  find: (ctx: EmulatorContext, id: string) => T | undefined,
): Route[] {
  const found = (req: EmulatorRequest, ctx: EmulatorContext) => find(ctx, req.params.id!.toLowerCase());
  const object = (req: EmulatorRequest, ctx: EmulatorContext) => {
    const sponsored = found(req, ctx);
    if (sponsored && kind.reach) requireReach(req, kind.reach(ctx, sponsored));
    return sponsored;
  };

  // A directoryObject collection: each entry names its own type, user or group.
  const list = (req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse => {
    const sponsored = visible(req, ctx, object(req, ctx), req.params.id!);
    const sponsors = (sponsored.sponsors ?? []).flatMap((id): Array<Record<string, unknown>> => {
      const user = ctx.store.user(id);
      if (user) return [{ "@odata.type": "#microsoft.graph.user", id: user.id, displayName: user.displayName, userPrincipalName: user.userPrincipalName }];
      const group = ctx.store.group(id);
      return group ? [{ "@odata.type": "#microsoft.graph.group", id: group.id, displayName: group.displayName, groupTypes: group.groupTypes }] : [];
    });
    return collection(req, sponsors, "microsoft.graph.directoryObject", "directoryObjects");
  };

  const add = (req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse => {
    const sponsored = object(req, ctx);
    if (!sponsored) throw resourceNotFound(req, req.params.id!);
    const id = sponsorId(req, ctx, jsonBody(req, ["@odata.id"])["@odata.id"], "ref");
    const current = sponsored.sponsors ?? [];
    if (current.includes(id)) throw graphError(req, GRAPH_ERRORS.sponsorAlreadyThere());
    checkSponsorLimits(req, ctx, [...current, id]);
    ctx.store.addSponsor(sponsored.id, id);
    return graphNoContent(req.headers);
  };

  const remove = (req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse => {
    const sponsored = object(req, ctx);
    const id = req.params.sponsorId!.toLowerCase();
    if (!sponsored?.sponsors?.includes(id)) throw resourceNotFound(req, req.params.sponsorId!);
    if (kind.keepsOne && sponsored.sponsors.length === 1) throw graphError(req, GRAPH_ERRORS.lastSponsor(kind.name));
    ctx.store.removeSponsor(sponsored.id, id);
    return graphNoContent(req.headers);
  };

  return [
    { method: "GET", pattern: new RegExp(`^${objectPath}/sponsors$`), surface: "graph", operation: operations.list, handler: list },
    { method: "POST", pattern: new RegExp(`^${objectPath}/sponsors/\\$ref$`), surface: "graph", operation: operations.add, handler: add },
    { method: "DELETE", pattern: new RegExp(`^${objectPath}/sponsors/(?<sponsorId>[^/]+)/\\$ref$`), surface: "graph", operation: operations.remove, handler: remove },
  ];
}
