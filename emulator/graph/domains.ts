import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { resourceNotFound } from "./directory";
import { entity } from "./odata";

/**
 * `GET /v1.0/domains/{id}` (learn.microsoft.com/graph/api/domain-get): the
 * tenant's domains, each verified and managed; the first is the default and
 * initial one. `agent-user preflight` reads it for the UPN domain.
 */

const TYPE = "microsoft.graph.domain";

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const domain = ctx.store.domain(req.params.id!);
  if (!domain) throw resourceNotFound(req, req.params.id!);
  const index = ctx.store.domains.indexOf(domain);
  const view = {
    id: domain,
    authenticationType: "Managed",
    isAdminManaged: true,
    isDefault: index === 0,
    isInitial: index === 0,
    isRoot: true,
    isVerified: true,
    supportedServices: ["Email", "OfficeCommunicationsOnline"],
  };
  return entity(req, view, TYPE, "domains");
}

export const domainRoutes: Route[] = [{ method: "GET", pattern: /^\/domains\/(?<id>[^/]+)$/, surface: "graph", operation: "domain.get", handler: get }];
