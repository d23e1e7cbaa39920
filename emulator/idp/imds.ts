import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import { TOKEN_EXCHANGE_APP_ID, TOKEN_EXCHANGE_AUDIENCE } from "../../lib/entra-rules";
import { times, v2Issuer } from "./claims";

/**
 * The Azure Instance Metadata Service's managed-identity token endpoint, for
 * the managed-identity credential of hop 1. IMDS answers with string numbers.
 */
const MI_LIFETIME_S = 24 * 60 * 60;

function imdsError(status: number, error: string, description: string): EmulatorResponse {
  return { status, body: { error, error_description: description } };
}

function imdsToken(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  if (req.headers["metadata"] !== "true") return imdsError(400, "invalid_request", "Required metadata header not specified");
  const resource = req.url.searchParams.get("resource");
  if (resource !== TOKEN_EXCHANGE_AUDIENCE) {
    return imdsError(400, "invalid_resource", `[emulator rule] this IMDS issues tokens only for ${TOKEN_EXCHANGE_AUDIENCE}`);
  }
  const clientId = req.url.searchParams.get("client_id");
  const identities = ctx.store.managedIdentities;
  const mi = clientId ? identities.find((m) => m.clientId === clientId) : identities.length === 1 ? identities[0] : undefined;
  if (!mi) return imdsError(400, "invalid_request", "Identity not found");
  const t = times(ctx.store.now(), MI_LIFETIME_S);
  const token = ctx.key.sign({
    aud: TOKEN_EXCHANGE_APP_ID,
    iss: v2Issuer(req.origin, ctx.store.tenantId),
    ...t,
    azp: mi.clientId,
    idtyp: "app",
    oid: mi.principalId,
    sub: mi.principalId,
    tid: ctx.store.tenantId,
    ver: "2.0",
  });
  return {
    status: 200,
    body: {
      access_token: token,
      client_id: mi.clientId,
      expires_in: String(MI_LIFETIME_S),
      expires_on: String(t.exp),
      ext_expires_in: String(MI_LIFETIME_S),
      not_before: String(t.nbf),
      resource,
      token_type: "Bearer",
    },
  };
}

export const imdsRoutes: Route[] = [{ method: "GET", pattern: /^\/metadata\/identity\/oauth2\/token$/, surface: "token", handler: imdsToken }];
