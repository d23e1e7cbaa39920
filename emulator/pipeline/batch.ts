import type { IncomingHttpHeaders } from "node:http";
import { isObject } from "../../lib/json-value";
import { graphErrorResponse, graphOk } from "../graph/envelope";
import { GRAPH_ERRORS } from "../graph/errors";
import type { EmulatorResponse } from "../router";
import type { GraphVersion } from "./graph-path";

/**
 * JSON batching (microsoftgraph/microsoft-graph-docs-contrib
 * concepts/json-batching.md@028b8e35): `POST /{version}/$batch` with
 * `{"requests": [...]}`, each request `id`, `method`, a `url` relative to
 * the version, optional `headers`, `body` and `dependsOn`. Each request runs
 * through the same stages as a request of its own (route, authentication
 * with the batch's token, rate limit, permission, handler), in the order
 * given, and the answer is 200 with one entry per request. A malformed batch
 * is a 400 for the whole: no `requests`, more than 20 of them, an `id` given
 * twice ("not case-sensitive"), a body without a Content-Type header.
 * `dependsOn` must name earlier requests of the batch, the stricter reading
 * of a page whose example lists them in their order; a request whose
 * dependency failed answers 424.
 */

/** "JSON batch requests are currently limited to 20 individual requests." */
const MAX_REQUESTS = 20;

/** One request of a batch, as the pipeline serves it. */
export interface BatchedRequest {
  method: string;
  /** The path and query under the version, e.g. `/users/{id}/sponsors/$ref`. */
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Serves one batched request through the pipeline's stages. */
export type ServeOne = (request: BatchedRequest) => Promise<EmulatorResponse>;

interface Entry {
  id: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  dependsOn: string[];
}

/** The batch's entries, or why the batch is malformed. */
function entries(text: string): Entry[] | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "the body is not JSON";
  }
  if (!isObject(body) || !Array.isArray(body.requests)) return 'the body has no "requests" list';
  if (body.requests.length > MAX_REQUESTS) return `it holds ${body.requests.length} requests; a batch holds at most ${MAX_REQUESTS}`;
  const out: Entry[] = [];
  for (const [i, r] of body.requests.entries()) {
    if (!isObject(r) || typeof r.id !== "string" || typeof r.method !== "string" || typeof r.url !== "string") return `request ${i} needs an id, a method and a url, each a string`;
    if (out.some((e) => e.id.toLowerCase() === (r.id as string).toLowerCase())) return `the id ${JSON.stringify(r.id)} is given twice`;
    const headers = isObject(r.headers) ? Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), String(v)])) : {};
    if (r.body !== undefined && headers["content-type"] === undefined) return `request ${JSON.stringify(r.id)} has a body and no Content-Type header`;
    const dependsOn = Array.isArray(r.dependsOn) ? r.dependsOn.map(String) : [];
    const unknown = dependsOn.find((d) => !out.some((e) => e.id.toLowerCase() === d.toLowerCase()));
    if (unknown !== undefined) return `request ${JSON.stringify(r.id)} depends on ${JSON.stringify(unknown)}, which is not an earlier request of the batch`;
    out.push({ id: r.id, method: r.method.toUpperCase(), url: r.url, headers, body: r.body, dependsOn });
  }
  return out;
}

/** The answer to `POST /{version}/$batch`: each request served by `serveOne`, with the batch's Authorization. */
export async function serveBatch(
  version: GraphVersion,
  origin: string,
  batch: { headers: IncomingHttpHeaders; body: string },
  serveOne: ServeOne,
): Promise<EmulatorResponse> {
  const list = entries(batch.body);
  if (typeof list === "string") return graphErrorResponse(batch, GRAPH_ERRORS.batchMalformed(list));
  const statuses = new Map<string, number>();
  const responses: Array<Record<string, unknown>> = [];
  for (const e of list) {
    const failed = e.dependsOn.find((d) => (statuses.get(d.toLowerCase()) ?? 0) >= 400);
    const response: EmulatorResponse =
      failed !== undefined
        ? graphErrorResponse(batch, GRAPH_ERRORS.batchDependencyFailed(failed))
        : await serveOne({
            method: e.method,
            url: new URL(`/${version}/${e.url.replace(/^\//, "")}`, origin),
            headers: { ...e.headers, ...(batch.headers.authorization ? { authorization: batch.headers.authorization } : {}) },
            body: e.body === undefined ? "" : typeof e.body === "string" ? e.body : JSON.stringify(e.body),
          });
    statuses.set(e.id.toLowerCase(), response.status);
    responses.push({ id: e.id, status: response.status, headers: response.headers ?? {}, ...(response.body === undefined ? {} : { body: response.body }) });
  }
  return graphOk({ responses }, batch.headers);
}
