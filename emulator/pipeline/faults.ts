import type { IncomingHttpHeaders } from "node:http";
import type { FaultAction, Faults } from "../faults";
import { graphErrorResponse } from "../graph/envelope";
import { GRAPH_ERRORS } from "../graph/errors";
import { aadstsError } from "../idp/aadsts-error";
import type { EmulatorResponse, Surface } from "../router";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The fault stage: the configured latency, then the counted fault this request takes, if any. */
export async function takeFault(faults: Faults, surface: Surface, method: string): Promise<FaultAction> {
  const latency = faults.latencyFor(surface);
  if (latency > 0) await sleep(latency);
  return faults.take(surface, method);
}

/** The throttle and unavailable answers of each surface, in that surface's own error shape. */
export function faultResponse(surface: Surface, kind: "throttle" | "unavailable", retryAfterS: number, req: { headers: IncomingHttpHeaders }): EmulatorResponse {
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
