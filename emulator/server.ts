import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { FleetAgentOutputs, StackOutputs } from "../lib/stack-outputs";
import { selfSignedCertificate } from "./certificate";
import { breakLinks } from "./breaks";
import { Faults, type BrokenLink, type FaultConfig } from "./faults";
import { graphCaller, RateLimiter } from "./rate-limit";
import { graphErrorResponse } from "./graph/envelope";
import { GRAPH_ERRORS } from "./graph/errors";
import { authorizeRoute } from "./graph/auth";
import { aadstsError } from "./idp/aadsts-error";
import { Reply, matchRoute, type EmulatorContext, type EmulatorResponse, type Surface } from "./router";
import { ROUTES } from "./routes";
import { DEFAULT_IDS, fleetTenant } from "./seed";
import { SigningKey } from "./signing-key";
import { TenantStore, type TenantSeed } from "./store";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../lib/entra-rules";

export interface EmulatorOptions {
  /** HTTP port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** HTTPS port on 127.0.0.1; 0 (the default) picks a free one. */
  httpsPort?: number;
  /** The tenant to serve; the built-in default tenant when absent. */
  tenant?: TenantSeed;
  faults?: Partial<FaultConfig>;
  replicationLagMs?: number;
  /** How long new objects stay out of Graph's lists. */
  listLagMs?: number;
  /** Seed the default tenant with this many agents under its blueprint (`--agents N`); 1 by default. */
  agents?: number;
  /**
   * Host names it answers to besides 127.0.0.1 and localhost on its own ports,
   * e.g. login.microsoftonline.com when a benchmark routes a client that
   * hard-codes it here. Any other Host is refused with 400.
   */
  extraHosts?: string[];
  /** Links of the seeded chain to break (`--faults break=LINK`); the outputs stay those of the chain before. */
  breaks?: readonly BrokenLink[];
  /** The tenant's policy refuses passwords and certificates on blueprints (`--refuse-blueprint-secrets`). */
  refuseBlueprintSecrets?: boolean;
  /** The built-in provisioner's Graph application permissions (`--provisioner-roles`); the kit's set and the check reads by default. */
  provisionerRoles?: readonly string[];
}

/** One request as the emulator saw it, for tests and benchmarks that count round trips. */
export interface RequestRecord {
  method: string;
  path: string;
  surface: Surface;
  /** The answer's status; -1 for a dropped connection. */
  status: number;
  /** Processed, but the answer was never sent (the `lose` fault): `status` is what it would have been. */
  lost?: boolean;
}

export interface Emulator {
  readonly httpUrl: string;
  readonly httpsUrl: string;
  /** The self-signed certificate of the HTTPS listener. */
  readonly caPem: string;
  readonly store: TenantStore;
  readonly faults: Faults;
  readonly key: SigningKey;
  readonly requests: RequestRecord[];
  /** The provisioner application's credential (ARM_* for doctor, preflight and the Pulumi providers); undefined when the tenant has none. */
  provisioner(): ProvisionerSecret | undefined;
  /** The seeded tenant as stack outputs, with URLs on `scheme`. */
  outputs(scheme?: "http" | "https"): StackOutputs;
  close(): Promise<void>;
}

export interface ProvisionerSecret {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** The first plain application with a secret whose service principal holds Graph application permissions. */
function provisionerOf(store: TenantStore): ProvisionerSecret | undefined {
  for (const app of store.applications("application")) {
    const secret = app.passwordCredentials[0]?.secretText;
    if (!secret) continue;
    if ((store.servicePrincipalByAppId(app.appId)?.graphAppRoles.length ?? 0) > 0) return { tenantId: store.tenantId, clientId: app.appId, clientSecret: secret };
  }
  return undefined;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** Past this much, the emulator stops reading an oversized body and drops the connection. */
const MAX_DRAIN_BYTES = 64 * MAX_BODY_BYTES;

/**
 * The request body as text, or `undefined` when it exceeds MAX_BODY_BYTES: the
 * rest is read and discarded so the caller can answer 413 (a final error), not
 * reset the connection, which clients take for a transient failure and retry.
 */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAIN_BYTES) req.destroy(new Error("body too large"));
      else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** 413 for an oversized body, in the shape of the surface the path belongs to. */
function tooLarge(path: string, req: IncomingMessage): EmulatorResponse {
  if (/^\/(v1\.0|beta)\//.test(path)) return graphErrorResponse(req, GRAPH_ERRORS.tooLarge(MAX_BODY_BYTES));
  return { status: 413, body: { error: "invalid_request", error_description: `The request body is larger than ${MAX_BODY_BYTES} bytes.` } };
}

function write(res: ServerResponse, response: EmulatorResponse): void {
  const text = response.body === undefined ? "" : typeof response.body === "string" ? response.body : JSON.stringify(response.body);
  const headers: Record<string, string> = { ...response.headers };
  if (text && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json; charset=utf-8";
  res.writeHead(response.status, headers);
  res.end(text);
}

/** The fault answers each surface gives, in that surface's own error shape. */
function faultResponse(surface: Surface, kind: "throttle" | "unavailable", retryAfterS: number, req: IncomingMessage): EmulatorResponse {
  if (surface === "graph") {
    return graphErrorResponse(req, kind === "throttle" ? GRAPH_ERRORS.throttled(retryAfterS) : GRAPH_ERRORS.unavailable(retryAfterS));
  }
  const retry = { "retry-after": String(retryAfterS) };
  const reply =
    kind === "throttle"
      ? aadstsError(429, "temporarily_unavailable", 90055, "The request was throttled; retry after the interval in Retry-After.")
      : aadstsError(503, "temporarily_unavailable", 90024, "The service is temporarily unavailable.");
  return { ...reply.response, headers: { ...reply.response.headers, ...retry } };
}

function notFound(path: string, req: IncomingMessage, method: boolean): EmulatorResponse {
  if (/^\/(v1\.0|beta)\//.test(path)) {
    return graphErrorResponse(req, method ? GRAPH_ERRORS.methodNotServed(req.method, path) : GRAPH_ERRORS.segmentNotServed(path));
  }
  return { status: method ? 405 : 404, body: { error: "not_found", error_description: `The emulator does not serve ${req.method} ${path}.` } };
}

/** How many Host header lines the request carried (rawHeaders alternates names and values, as sent). */
function hostHeaders(req: IncomingMessage): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === "host") n++;
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the emulated tenant on loopback, over HTTP and HTTPS. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const store = new TenantStore(options.tenant ?? fleetTenant(options.agents ?? 1));
  // A tenant seeded with several agents describes a fleet; agents added later (tests) do not change its outputs' shape.
  const fleet = tenantOutputs(store, "", true).agents !== undefined;
  // The outputs `pulumi up` wrote before the links broke: what a person holds when the tenant drifts.
  const before = options.breaks?.length ? tenantOutputs(store, "", fleet) : undefined;
  if (options.breaks?.length) breakLinks(store, options.breaks);
  if (options.provisionerRoles) store.updateServicePrincipal(DEFAULT_IDS.provisionerPrincipalId, { graphAppRoles: [...options.provisionerRoles] });
  store.replicationLagMs = options.replicationLagMs ?? 0;
  store.listLagMs = options.listLagMs ?? 0;
  store.blueprintSecretsRefused = options.refuseBlueprintSecrets ?? false;
  const faults = new Faults();
  if (options.faults) faults.set(options.faults);
  const key = new SigningKey();
  const tls = selfSignedCertificate({ commonName: "agent-user-kit emulator", hosts: ["localhost", "127.0.0.1"] });
  const requests: RequestRecord[] = [];
  const origins: string[] = [];
  const ctx: EmulatorContext = { store, key, faults, origins };
  // Built lazily from the fault config, so faults set after start (reset, set) apply.
  const limiters = new Map<string, RateLimiter>();
  const limiter = (name: string, rate: number | undefined): RateLimiter | undefined => {
    if (rate === undefined) return undefined;
    const id = `${name}:${rate}`;
    if (!limiters.has(id)) limiters.set(id, new RateLimiter(rate));
    return limiters.get(id);
  };
  /** The `idp-rate`/`graph-rate` answer: per tenant for the token endpoint, per verified calling app for Graph. */
  const rateLimited = (surface: Surface, params: Record<string, string>, req: IncomingMessage): EmulatorResponse | undefined => {
    const config = faults.current();
    const rl = surface === "token" ? limiter("idp", config.idpRate) : surface === "graph" ? limiter("graph", config.graphRate) : undefined;
    if (!rl) return undefined;
    const decision = rl.take(surface === "graph" ? graphCaller(req.headers.authorization, key) : (params.tenant ?? "imds").toLowerCase());
    return decision.ok ? undefined : faultResponse(surface, "throttle", decision.retryAfterS, req);
  };

  const handle = (scheme: "http" | "https") => async (req: IncomingMessage, res: ServerResponse) => {
    // Only its own loopback names and ports: a page that rebinds a DNS name to 127.0.0.1 sends its own Host,
    // and a Host is reflected into issuers and @odata.context, so a foreign or malformed one is refused, never echoed.
    // A second Host is refused as a strict HTTP/1.1 server refuses it: Node keeps the first and drops the rest,
    // so a proxy that routes on the last one and this emulator would each see a different target.
    const hosts = hostHeaders(req);
    if (hosts > 1) {
      requests.push({ method: req.method ?? "GET", path: "(several Host headers)", surface: "other", status: 400 });
      req.resume();
      return write(res, { status: 400, body: { error: "invalid_request", error_description: `[emulator] the request has ${hosts} Host headers; HTTP/1.1 allows exactly one` } });
    }
    const origin = `${scheme}://${req.headers.host ?? ""}`;
    if (!origins.includes(origin) && !(options.extraHosts ?? []).includes(String(req.headers.host))) {
      requests.push({ method: req.method ?? "GET", path: "(foreign Host)", surface: "other", status: 400 });
      req.resume();
      return write(res, { status: 400, body: { error: "invalid_request", error_description: "[emulator] the Host header does not name this emulator (127.0.0.1 or localhost, on its own port)" } });
    }
    const url = new URL(req.url ?? "/", origin);
    const method = req.method ?? "GET";
    let body: string | undefined;
    try {
      body = await readBody(req);
    } catch {
      return;
    }
    if (body === undefined) {
      const response = tooLarge(url.pathname, req);
      requests.push({ method, path: url.pathname, surface: "other", status: response.status });
      return write(res, response);
    }
    const match = matchRoute(ROUTES, method, url.pathname);
    if (typeof match !== "object") {
      const response = notFound(url.pathname, req, match === "method");
      requests.push({ method, path: url.pathname, surface: "other", status: response.status });
      return write(res, response);
    }
    const surface = match.route.surface;
    const record: RequestRecord = { method, path: url.pathname, surface, status: 0 };
    requests.push(record);
    const latency = faults.latencyFor(surface);
    if (latency > 0) await sleep(latency);
    const fault = faults.take(surface, method);
    if (fault.kind === "drop") {
      record.status = -1;
      req.socket.destroy();
      return;
    }
    let response: EmulatorResponse;
    const limited = fault.kind === "none" ? rateLimited(surface, match.params, req) : undefined;
    if (fault.kind === "throttle" || fault.kind === "unavailable") {
      response = faultResponse(surface, fault.kind, fault.retryAfterS, req);
    } else if (limited) {
      response = limited;
    } else {
      try {
        const request = { method, url, headers: req.headers, body, params: match.params, origin };
        authorizeRoute(match.route, request, ctx);
        response = await match.route.handler(request, ctx);
      } catch (err) {
        if (!(err instanceof Reply)) throw err;
        response = err.response;
      }
    }
    record.status = response.status;
    if (fault.kind === "lose") {
      record.lost = true;
      req.socket.destroy();
      return;
    }
    write(res, response);
  };

  const onError = (res: ServerResponse) => (err: unknown) => {
    if (!res.headersSent) write(res, { status: 500, body: { error: "server_error", error_description: `[emulator] ${(err as Error).message}` } });
  };
  const http = createHttpServer((req, res) => void handle("http")(req, res).catch(onError(res)));
  const https = createHttpsServer({ key: tls.privateKeyPem, cert: tls.certificatePem }, (req, res) => void handle("https")(req, res).catch(onError(res)));
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
  const httpPort = await listen(http, options.port ?? 0);
  // A busy HTTPS port must not leave the HTTP listener open behind the error.
  const httpsPort = await listen(https, options.httpsPort ?? 0).catch(async (err: unknown) => {
    await new Promise((closed) => http.close(closed));
    throw err;
  });
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const httpsUrl = `https://127.0.0.1:${httpsPort}`;
  origins.push(httpUrl, `http://localhost:${httpPort}`, httpsUrl, `https://localhost:${httpsPort}`);

  return {
    httpUrl,
    httpsUrl,
    caPem: tls.certificatePem,
    store,
    faults,
    key,
    requests,
    provisioner: () => provisionerOf(store),
    outputs: (scheme = "http") => {
      const baseUrl = scheme === "http" ? httpUrl : httpsUrl;
      return before ? { ...structuredClone(before), authorityUrl: baseUrl, graphUrl: baseUrl } : tenantOutputs(store, baseUrl, fleet);
    },
    close: async () => {
      for (const server of [http, https]) server.closeAllConnections();
      await Promise.all([http, https].map((s) => new Promise((r) => s.close(r))));
    },
  };
}

/**
 * The stack outputs `pulumi up` would print for this tenant's first blueprint:
 * the top-level agent keys for its first agent and, when it has several, the
 * `agents` map (each agent named by its agent user's mail nickname).
 */
export function tenantOutputs(store: TenantStore, baseUrl: string, fleet: boolean): StackOutputs {
  const outputs: StackOutputs = { tenantId: store.tenantId, authorityUrl: baseUrl, graphUrl: baseUrl, resourceUrl: PUBLIC_CLOUD.resourceUrl };
  const blueprint = store.applications("agentIdentityBlueprint")[0];
  if (!blueprint) return outputs;
  const principal = store.servicePrincipalByAppId(blueprint.appId);
  const graph = store.servicePrincipalByAppId(MICROSOFT_GRAPH_APP_ID);
  const agents: Array<{ name: string } & FleetAgentOutputs> = [];
  for (const identity of store.agentIdentitiesOf(blueprint.appId)) {
    const user = store.agentUserOf(identity.id);
    if (!user) continue;
    const grant = store.grantFor(identity.id, user.id, graph?.id);
    agents.push({ name: user.mailNickname, agentIdentityId: identity.id, agentUserId: user.id, agentUserPrincipalName: user.userPrincipalName, grantId: grant?.id, grantScopes: grant?.scope });
  }
  const first = agents[0];
  return {
    ...outputs,
    blueprintAppId: blueprint.appId,
    blueprintObjectId: blueprint.id,
    blueprintPrincipalId: principal?.id,
    blueprintClientSecret: blueprint.passwordCredentials[0]?.secretText,
    managedIdentityClientId: store.managedIdentities[0]?.clientId,
    agentIdentityId: first?.agentIdentityId,
    agentUserId: first?.agentUserId,
    agentUserPrincipalName: first?.agentUserPrincipalName,
    grantId: first?.grantId,
    grantScopes: first?.grantScopes,
    ...(fleet && agents.length > 1 ? { agents: Object.fromEntries(agents.map(({ name, ...agent }) => [name, agent])) } : {}),
  };
}
