/**
 * The signed-in client the provider builds once (terraform-provider-azuread
 * internal/clients/builder.go and client.go): the cloud from its metadata,
 * a token asked for up front so that a wrong secret fails at once, and who
 * the provider is from that token's claims: the tenant and client ids as
 * configured, the object id from `oid`, else the one service principal
 * whose appId is the client id.
 */
import { discoverCloud, tokenClaims, TokenSource } from "./cloud";
import { Graph } from "./graph";
import type { HttpOptions } from "./http";
import { settingsFromEnvironment, standInRefusal, type StandInSettings } from "./settings";

export interface SessionOptions {
  /** Where ARM_* come from; the process's environment by default. */
  env?: NodeJS.ProcessEnv;
  http?: HttpOptions;
  now?: () => number;
}

export interface Session {
  settings: StandInSettings;
  graph: Graph;
  /** The signed-in principal's object id. */
  objectId: string;
  now: () => number;
}

/** client.go: the oid claim, else a lookup by appId for an application (a user's token would need /me, which the stand-in does not serve). */
async function objectIdOf(graph: Graph, claims: Record<string, unknown>, clientId: string): Promise<string> {
  if (typeof claims.oid === "string" && claims.oid !== "") return claims.oid;
  if (typeof claims.scp === "string" && claims.scp.toLowerCase().includes("openid")) {
    throw standInRefusal("signs in as an application only; this token is a user's, whose object id azuread would read from /me");
  }
  const found = await graph.list("/servicePrincipals", { $filter: `appId eq '${clientId.replace(/'/g, "''")}'` });
  if (found.length !== 1) {
    throw new Error(`attempting to discover object ID for authenticated service principal: unexpected number of results, expected 1, received ${found.length}`);
  }
  const id = (found[0] as { id?: unknown }).id;
  if (typeof id !== "string") throw new Error("attempting to discover object ID for authenticated service principal: returned object ID was nil");
  return id;
}

export async function connect(options: SessionOptions = {}): Promise<Session> {
  const settings = settingsFromEnvironment(options.env ?? process.env);
  const http = options.http ?? {};
  const cloud = await discoverCloud(settings.metadataHost, http);
  const tokens = new TokenSource(settings, cloud, http, options.now);
  let token: string;
  try {
    token = await tokens.token();
  } catch (err) {
    throw new Error(`building client: unable to obtain access token: ${(err as Error).message}`);
  }
  const graph = new Graph(cloud.graph, () => tokens.token(), http);
  const objectId = await objectIdOf(graph, tokenClaims(token), settings.clientId);
  return { settings, graph, objectId, now: options.now ?? Date.now };
}
