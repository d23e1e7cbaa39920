import type { OperationId } from "../../lib/graph-permissions";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { requireReach } from "./directory-auth";
import { visible } from "./directory";
import { collection } from "./odata";

/**
 * `{object}/owners` of a blueprint, a blueprint principal or an agent identity
 * (agentidentityblueprint-list-owners, agentidentityblueprintprincipal-list-owners,
 * agentidentity-list-owners): a directoryObject collection whose entries name
 * their own type, a user or a service principal. Whoever creates one of them
 * is an owner; `owners@odata.bind` on a create adds others (directory.ts `owners`).
 */

/** An owner as a directoryObject entry: a user with its UPN, a service principal with its appId. */
function ownerView(ctx: EmulatorContext, id: string): Array<Record<string, unknown>> {
  const user = ctx.store.user(id);
  if (user) return [{ "@odata.type": "#microsoft.graph.user", id: user.id, displayName: user.displayName, userPrincipalName: user.userPrincipalName }];
  const sp = ctx.store.servicePrincipal(id);
  return sp ? [{ "@odata.type": `#microsoft.graph.${sp.kind}`, id: sp.id, displayName: sp.displayName, appId: sp.appId }] : [];
}

/** The owners list of the objects `find` finds under `objectPath`. */
export function ownerRoute<T extends { owners?: string[]; createdAt: number }>(
  objectPath: string,
  operation: OperationId,
  find: (ctx: EmulatorContext, id: string) => T | undefined,
): Route {
  const handler = (req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse => {
    const object = visible(req, ctx, find(ctx, req.params.id!), req.params.id!);
    requireReach(req, { owners: object.owners });
    return collection(req, (object.owners ?? []).flatMap((id) => ownerView(ctx, id)), "microsoft.graph.directoryObject", "directoryObjects");
  };
  return { method: "GET", pattern: new RegExp(`^${objectPath}/owners$`), surface: "graph", operation, handler };
}
