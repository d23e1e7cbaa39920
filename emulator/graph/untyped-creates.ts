import { isObject } from "../../lib/json-value";
import { graphTypeName } from "../pipeline/graph-path";
import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { createBlueprint } from "./applications";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { hasODataVersion } from "./request-body";
import { createPrincipal } from "./service-principals";
import { createAgentUser } from "./users";

/**
 * Creates on the untyped collections (`POST /applications`,
 * `/servicePrincipals`, `/users`), which create an Agent ID object when the
 * body says which. Each route names the typed create's row of the
 * permission table, so the same permissions decide. The emulator serves no
 * plain application, service principal or user: anything else is a 400
 * that names the typed URL.
 *
 * - `/applications` with the blueprint's `@odata.type` and `OData-Version: 4.0`
 *   creates the blueprint: "The OData-Version header must be set to 4.0"
 *   (MicrosoftDocs/entra-docs docs/agent-id/create-blueprint.md@05016b20,
 *   the Agent 365 CLI's form). No page says what Graph does without the
 *   header, only that the form requires it: the emulator creates nothing and
 *   answers 400 naming the header, the stricter reading. This is the only
 *   create that needs the header; the typed URLs do not (their pages and
 *   the how-to's PowerShell tab send none).
 * - `/users` with the agentUser `@odata.type` creates the agent user, header
 *   or not: "You can also create agent users through the POST /users ...
 *   `"@odata.type": "microsoft.graph.agentUser"` must be specified in the
 *   request body" (agentuser-post@55f7cfe8; Entra PowerShell's
 *   New-EntraAgentUserForAgentId sends no header).
 * - `/servicePrincipals` with a blueprint's appId and no `@odata.type` (the
 *   Agent 365 CLI's principal create) creates the blueprint principal: no
 *   page documents the answer; a blueprint's principal is its blueprint
 *   principal ("instantiated from" the blueprint,
 *   resources/agentidentityblueprintprincipal.md@557d95ff), so the emulator
 *   answers with that type, under the principal's own permission. The
 *   principal's `@odata.type` in the body is read as on `/applications`.
 */

/** A body property, its name read without regard to case; undefined when the body is not a JSON object (the create then says why). */
function bodyProperty(req: EmulatorRequest, name: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(req.body);
  } catch {
    return undefined;
  }
  if (!isObject(body)) return undefined;
  const key = Object.keys(body).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : body[key];
}

/** The Agent ID type the body's `@odata.type` names (any spelling), the text itself for another, undefined when absent. */
function namedType(req: EmulatorRequest): string | undefined {
  const given = bodyProperty(req, "@odata.type");
  return typeof given === "string" ? (graphTypeName(given) ?? given) : given === undefined ? undefined : String(given);
}

/** A create of `type` named in the body, which this collection's form serves only with the header. */
function typedWithHeader(req: EmulatorRequest, type: string): void {
  if (!hasODataVersion(req)) throw graphError(req, GRAPH_ERRORS.untypedCreateWithoutODataVersion(type, req.url.pathname));
}

function postApplication(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const type = namedType(req);
  if (type !== "microsoft.graph.agentIdentityBlueprint") throw graphError(req, GRAPH_ERRORS.untypedCreateNotServed(type ? `a ${type}` : "a plain application", req.url.pathname));
  typedWithHeader(req, type);
  return createBlueprint(req, ctx);
}

function postServicePrincipal(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const type = namedType(req);
  if (type === "microsoft.graph.agentIdentityBlueprintPrincipal") typedWithHeader(req, type);
  else if (type !== undefined) throw graphError(req, GRAPH_ERRORS.untypedCreateNotServed(`a ${type}`, req.url.pathname));
  const appId = bodyProperty(req, "appId");
  const app = typeof appId === "string" ? ctx.store.applicationByAppId(appId.toLowerCase()) : undefined;
  if (type === undefined && app && app.kind !== "agentIdentityBlueprint") throw graphError(req, GRAPH_ERRORS.untypedCreateNotServed("a plain application's service principal", req.url.pathname));
  return createPrincipal(req, ctx);
}

function postUser(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const type = namedType(req);
  if (type !== "microsoft.graph.agentUser") throw graphError(req, GRAPH_ERRORS.untypedCreateNotServed(type ? `a ${type}` : "a plain user", req.url.pathname));
  return createAgentUser(req, ctx);
}

export const untypedCreateRoutes: Route[] = [
  { method: "POST", pattern: /^\/applications$/, surface: "graph", operation: "blueprint.create", handler: postApplication },
  { method: "POST", pattern: /^\/servicePrincipals$/, surface: "graph", operation: "principal.create", handler: postServicePrincipal },
  { method: "POST", pattern: /^\/users$/, surface: "graph", operation: "agentUser.create", handler: postUser },
];
