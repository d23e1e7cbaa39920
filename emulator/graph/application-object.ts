import { keySegment } from "../pipeline/graph-path";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { Application } from "../store";
import { requireReach } from "./directory-auth";
import { visible } from "./directory";
import { applicationView, updateBlueprint } from "./applications";
import { entity } from "./odata";

/**
 * A blueprint through its base type's URL, `/applications/{id}`, as azuread
 * reaches it (ApplicationPassword and ApplicationCertificate read it until
 * their key shows up, and ApplicationCertificate writes its certificate with
 * a PATCH of `keyCredentials`) and as Entra's create-blueprint how-to, the
 * Agent 365 CLI, Entra PowerShell and MSIdentityTools PATCH its identifier
 * URI and scope. An entity set serves instances of the types derived from
 * its own (agentidentityblueprint: "Inherits from application"). The kit
 * changes no plain application, so a plain one is 404 here, as on the
 * untyped credential URLs.
 */

const OBJECT = `/applications/${keySegment("id")}`;
const APPLICATION_TYPE = "microsoft.graph.application";

function blueprint(req: EmulatorRequest, ctx: EmulatorContext): Application | undefined {
  const app = ctx.store.application(req.params.id!.toLowerCase());
  return app?.kind === "agentIdentityBlueprint" ? app : undefined;
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = visible(req, ctx, blueprint(req, ctx), req.params.id!);
  requireReach(req, app);
  return entity(req, applicationView(app), APPLICATION_TYPE, "applications");
}

export const applicationObjectRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.read", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${OBJECT}$`), surface: "graph", operation: "blueprint.certificate.update", handler: (req, ctx) => updateBlueprint(req, ctx, "base") },
];
