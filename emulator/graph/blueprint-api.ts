import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { Application } from "../store";
import { visible } from "./directory";
import { requireReach } from "./directory-auth";
import { applicationView, updateBlueprint } from "./applications";
import { entity } from "./odata";

/**
 * A blueprint on the application's appId alternate key
 * (application-update: `PATCH /applications(appId='{appId}')`), as the kit's
 * exposed-API resource reaches it: the same read and update as on the
 * blueprint's base type's URL, `/applications/{id}` (application-object.ts),
 * each property under its category's permission (exposed-api.ts for the
 * identifier URIs and scopes).
 */

const BY_APP_ID = "/applications\\(appId='(?<appId>[^/]+)'\\)";

function blueprintByAppId(req: EmulatorRequest, ctx: EmulatorContext): Application {
  const app = ctx.store.applicationByAppId(req.params.appId!.toLowerCase());
  return visible(req, ctx, app?.kind === "agentIdentityBlueprint" ? app : undefined, req.params.appId!);
}

function get(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = blueprintByAppId(req, ctx);
  requireReach(req, app);
  return entity(req, applicationView(app), "microsoft.graph.application", "applications");
}

function update(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const app = blueprintByAppId(req, ctx);
  return updateBlueprint({ ...req, params: { ...req.params, id: app.id } }, ctx, "base");
}

export const blueprintApiRoutes: Route[] = [
  { method: "GET", pattern: new RegExp(`^${BY_APP_ID}$`), surface: "graph", operation: "blueprint.api.get", handler: get },
  { method: "PATCH", pattern: new RegExp(`^${BY_APP_ID}$`), surface: "graph", operation: "blueprint.api.update", handler: update },
];
