import type { IncomingMessage, ServerResponse } from "node:http";
import type { EmulatorContext, EmulatorResponse } from "../router";
import { authenticate, type AuthenticatedCaller } from "./authenticate";
import { serveBatch, type BatchedRequest } from "./batch";
import { faultResponse, takeFault } from "./faults";
import { readGraphPath } from "./graph-path";
import { parseRequest } from "./parse";
import { RateLimits } from "./rate-limit";
import { respond, type RequestRecord } from "./respond";
import { findRoute, runRoute } from "./route";

/** What the pipeline serves: the tenant, and the log it appends each request to. */
export interface PipelineSettings {
  ctx: EmulatorContext;
  requests: RequestRecord[];
}

/** What a listener calls with each request. */
export type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Every request goes through the same stages, as in Azurite: parse (Host,
 * URL, body), route lookup, faults, authenticate (a Graph caller's token,
 * verified once), rate limit (charged to that verified caller), authorize
 * and the route's handler, then the answer, unless a fault loses it. A JSON
 * batch (`POST /{version}/$batch`, batch.ts) takes the faults stage as one
 * request, then sends each of its requests through route, authenticate,
 * rate limit, authorize and handler.
 */
export function requestPipeline(settings: PipelineSettings): (scheme: "http" | "https") => Listener {
  const { ctx, requests } = settings;
  const limits = new RateLimits(ctx.faults, ctx.store);

  /** One request of a batch: route, authenticate with the batch's token, rate limit, authorize, handler. */
  const serveBatched = async (sub: BatchedRequest, origin: string): Promise<EmulatorResponse> => {
    const match = findRoute(sub.method, sub.url.pathname, sub);
    const record: RequestRecord = { method: sub.method, path: sub.url.pathname, surface: "graph", status: 0 };
    requests.push(record);
    let response: EmulatorResponse;
    if ("notServed" in match) response = match.notServed;
    else {
      const caller = authenticate(sub.headers, ctx.key);
      const decision = limits.charge("graph", match.params, caller);
      response = decision.ok
        ? await runRoute(match, { ...sub, params: match.params, origin, version: match.version }, caller, ctx)
        : faultResponse("graph", "throttle", decision.retryAfterS, sub);
    }
    record.status = response.status;
    return response;
  };

  const handle = async (scheme: "http" | "https", req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parsed = await parseRequest(req, scheme, ctx.origins);
    if (parsed === undefined) return;
    if ("refused" in parsed) {
      requests.push(parsed.record);
      return respond(res, parsed.refused);
    }
    const { method, url, origin, body } = parsed.request;
    const graph = readGraphPath(url.pathname);
    const batch = method === "POST" && graph?.path === "/$batch" ? graph.version : undefined;
    const match = batch ? undefined : findRoute(method, url.pathname, req);
    if (match && "notServed" in match) {
      requests.push({ method, path: url.pathname, surface: "other", status: match.notServed.status });
      return respond(res, match.notServed);
    }
    const surface = match ? match.route.surface : "graph";
    const record: RequestRecord = { method, path: url.pathname, surface, status: 0 };
    requests.push(record);
    const fault = await takeFault(ctx.faults, surface, method);
    if (fault.kind === "drop") {
      record.status = -1;
      req.socket.destroy();
      return;
    }
    const caller: AuthenticatedCaller = surface === "graph" ? authenticate(req.headers, ctx.key) : {};
    let response: EmulatorResponse;
    if (fault.kind === "throttle" || fault.kind === "unavailable") {
      response = faultResponse(surface, fault.kind, fault.retryAfterS, req);
    } else if (!match) {
      // Each request of the batch is charged on its own ("Requests in a batch are evaluated individually against the applicable throttling limits").
      response = await serveBatch(batch!, origin, { headers: req.headers, body }, (sub) => serveBatched(sub, origin));
    } else {
      // A counted fault stands in for the rate limit: a request that takes one (here `lose`) is not charged.
      const decision = fault.kind === "none" ? limits.charge(surface, match.params, caller) : { ok: true as const };
      response = decision.ok
        ? await runRoute(match, { method, url, headers: req.headers, body, params: match.params, origin, version: match.version }, caller, ctx)
        : faultResponse(surface, "throttle", decision.retryAfterS, req);
    }
    record.status = response.status;
    if (fault.kind === "lose") {
      record.lost = true;
      req.socket.destroy();
      return;
    }
    respond(res, response);
  };

  return (scheme) => (req, res) =>
    void handle(scheme, req, res).catch((err: unknown) => {
      if (!res.headersSent) respond(res, { status: 500, body: { error: "server_error", error_description: `[emulator] ${(err as Error).message}` } });
    });
}
