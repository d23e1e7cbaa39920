import { request, type Dispatcher } from "undici";
import { NetworkError, UsageError } from "./errors";

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
  /** undici dispatcher; the global one (keep-alive pool) when absent. */
  dispatcher?: Dispatcher;
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
  try {
    const res = await request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(timeoutMs),
      dispatcher: options.dispatcher,
    });
    const body = await res.body.text();
    return { status: res.statusCode, headers: flattenHeaders(res.headers), body, ms: performance.now() - started };
  } catch (err) {
    throw toNetworkError(step, err, timeoutMs);
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function toNetworkError(step: string, err: unknown, timeoutMs: number): NetworkError {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") {
    return new NetworkError(step, "ETIMEDOUT", `no answer within ${timeoutMs} ms`);
  }
  const code = e.code ?? e.cause?.code ?? "ECONNRESET";
  // undici's messages name the peer, never a request body, so they carry no secret.
  return new NetworkError(step, code, e.cause?.message ?? e.message ?? "connection failed");
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Rejects plain-HTTP URLs unless they point at this machine. */
export function assertSecureUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} is not an absolute URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return url;
  throw new UsageError(
    `${name} must use https (plain http is accepted only for loopback hosts such as 127.0.0.1 or localhost): ${JSON.stringify(value)}`,
  );
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
