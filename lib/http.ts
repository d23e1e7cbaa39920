import type { Dispatcher } from "undici";
import { request } from "./undici-request";
import { AbortError, AgentUserError, ExitCode, NetworkError } from "./errors";

/** One HTTP exchange, always with a timeout. */
export interface HttpRequest {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** Wall time of this one attempt. */
  ms: number;
}

/** Transport settings shared by the token client and the Graph client. */
export interface HttpOptions {
  /** Per-attempt timeout covering connect, headers and body. */
  timeoutMs?: number;
  /**
   * undici dispatcher; when absent, the global one (keep-alive pool), with at
   * most MAX_CONNECTIONS_PER_ORIGIN requests of this kit on it per origin at once.
   */
  dispatcher?: Dispatcher;
  /** The largest body read, in bytes; BODY_LIMITS.tokenEndpoint when absent. */
  maxBodyBytes?: number;
  /** The hop of the agent user chain this request is (1, 2 or 3), carried into its errors. */
  hop?: number;
  /** Cancels the request (nobody waits for its answer any more): it fails with AbortError, which is final. */
  signal?: AbortSignal;
}

/**
 * How much of an answer is read, per service, in one place. A token or IMDS
 * answer is a few KiB; a Graph page can be large. Past the limit the answer is
 * a final error: an endless body never grows the process, and is not retried.
 */
export const BODY_LIMITS = {
  tokenEndpoint: 1 << 20,
  imds: 1 << 20,
  graph: 32 << 20,
  /** All the pages of one Graph collection together: what one list may hold in memory. */
  graphList: 64 << 20,
} as const;

/** The answer was larger than the step may read: malformed or hostile, and final. */
export class ResponseTooLargeError extends AgentUserError {
  readonly exitCode = ExitCode.rejected;
  /** `what` was too large: the answer, or e.g. a collection's pages together. */
  constructor(step: string, limit: number, hop?: number, what = "the answer") {
    super(step, `${what} is larger than ${limit} bytes, the most this step reads`, {
      code: "response_too_large",
      hop,
      hint: "the service (or a proxy in front of it) sent far more than this call ever needs; check the URL and any proxy",
    });
  }
}

export const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * Sends one request. Connection failures and timeouts become a NetworkError
 * naming `step`; any HTTP status is returned, not thrown, so callers can read
 * the protocol's own error body.
 */
export async function send(step: string, req: HttpRequest, options: HttpOptions = {}): Promise<HttpResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  const cancel = options.signal;
  if (cancel?.aborted) throw new AbortError(step, options.hop);
  const attempt = attemptSignal(timeoutMs, cancel);
  try {
    const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, signal: attempt.signal, dispatcher: options.dispatcher });
    const body = await readCapped(step, res, options.maxBodyBytes ?? BODY_LIMITS.tokenEndpoint, options.hop);
    return { status: res.statusCode, headers: flattenHeaders(res.headers), body, ms: performance.now() - started };
  } catch (err) {
    if (err instanceof ResponseTooLargeError) throw err;
    if (cancel?.aborted) throw new AbortError(step, options.hop);
    throw toNetworkError(step, err, timeoutMs, options.hop);
  } finally {
    attempt.done();
  }
}

/**
 * The signal of one attempt: it fires when `timeoutMs` have passed (with a
 * TimeoutError, as AbortSignal.timeout's) or when the caller's `cancel`
 * fires, whichever comes first. done() clears the timer and the listener.
 */
function attemptSignal(timeoutMs: number, cancel: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    const reason = new Error(`no answer within ${timeoutMs} ms`);
    reason.name = "TimeoutError";
    controller.abort(reason);
  }, timeoutMs);
  const onCancel = () => controller.abort(cancel!.reason);
  cancel?.addEventListener("abort", onCancel, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      cancel?.removeEventListener("abort", onCancel);
    },
  };
}

/**
 * The body as text, read no further than `limit` bytes; the attempt's
 * timeout covers this read too.
 */
function readCapped(step: string, res: Dispatcher.ResponseData, limit: number, hop: number | undefined): Promise<string> {
  if (Number(res.headers["content-length"]) > limit) {
    res.body.destroy();
    return Promise.reject(new ResponseTooLargeError(step, limit, hop));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      reject(new ResponseTooLargeError(step, limit, hop));
      res.body.destroy();
    });
    res.body.on("end", () => resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")));
    res.body.on("error", reject);
  });
}

/**
 * One string per header. undici already lower-cases the names (every version's
 * parseHeaders does); repeated headers come as arrays. A for-in loop: this runs
 * on every answer, and Object.entries' arrays cost more than the loop itself.
 */
function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value !== undefined) out[name] = typeof value === "string" ? value : value.join(", ");
  }
  return out;
}

function toNetworkError(step: string, err: unknown, timeoutMs: number, hop: number | undefined): NetworkError {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") {
    return new NetworkError(step, "ETIMEDOUT", `no answer within ${timeoutMs} ms`, { hop, cause: err });
  }
  const code = e.code ?? e.cause?.code ?? "ECONNRESET";
  // undici's messages name the peer, never a request body, so they carry no secret.
  return new NetworkError(step, code, e.cause?.message ?? e.message ?? "connection failed", { hop, cause: err });
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
