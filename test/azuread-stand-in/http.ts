/**
 * One HTTP exchange with a time limit and a size limit, on Node's own fetch
 * (TLS trust from NODE_EXTRA_CA_CERTS, which the engine tests set; a test
 * in this process passes a dispatcher that trusts the emulator instead),
 * and the retry schedule of go-azure-sdk's base client
 * (sdk/client/client.go retryableClient: a Retry-After of whole seconds,
 * else 1 s doubling up to 61 s), bounded here by an attempt count.
 */
import { STATUS_CODES } from "node:http";

export interface HttpOptions {
  /** How requests reach the network; Node's default when absent. */
  dispatcher?: RequestInit["dispatcher"];
  /** One attempt's limit, headers and body included. */
  timeoutMs?: number;
  /** The largest answer body read; a larger one is an error, never truncated. */
  maxBodyBytes?: number;
  /** Attempts at one request, the first included. */
  maxAttempts?: number;
  /** Waits between attempts; tests make it instant. */
  sleep?: (ms: number) => Promise<void>;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  /** Go's resp.Status: `400 Bad Request`. */
  statusLine: string;
  headers: Headers;
  text: string;
}

export const DEFAULTS = { timeoutMs: 30_000, maxBodyBytes: 4 * 1024 * 1024, maxAttempts: 6 } as const;
const MAX_WAIT_MS = 61_000;

const sleepFor = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** The body as text, refusing one over `max` bytes as it arrives. */
async function readCapped(response: Response, max: number, url: string): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`the answer of ${url} is over ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Go's status text: the code and the reason phrase the server sent, else the standard one. */
export function statusLine(status: number, reason: string): string {
  const text = reason || STATUS_CODES[status] || "";
  return text ? `${status} ${text}` : String(status);
}

/** One attempt. */
export async function exchange(request: HttpRequest, options: HttpOptions = {}): Promise<HttpAnswer> {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  const init: RequestInit = { method: request.method, headers: request.headers, body: request.body, signal };
  if (options.dispatcher) init.dispatcher = options.dispatcher;
  try {
    const response = await fetch(request.url, init);
    const text = await readCapped(response, options.maxBodyBytes ?? DEFAULTS.maxBodyBytes, request.url);
    return { status: response.status, statusLine: statusLine(response.status, response.statusText), headers: response.headers, text };
  } catch (err) {
    if (signal.aborted) throw new Error(`${request.method} ${request.url} took over ${timeoutMs} ms`);
    throw err;
  }
}

/** How long to wait before attempt `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(answer: HttpAnswer | undefined, attempt: number): number {
  const after = answer?.headers.get("retry-after");
  if (after && /^\d+$/.test(after.trim())) return Math.min(Number(after) * 1000, MAX_WAIT_MS);
  return Math.min(2 ** (attempt - 1) * 1000, MAX_WAIT_MS);
}

/** The methods go-azure-sdk retries after a lost connection: the ones that do the same thing twice. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/**
 * The request, again while `retry` says so and attempts remain; the last
 * answer otherwise. A lost connection is tried again only for an idempotent
 * method, as go-azure-sdk does: a POST may have been carried out.
 */
export async function exchangeWithRetries(request: HttpRequest, retry: (answer: HttpAnswer) => boolean, options: HttpOptions = {}): Promise<HttpAnswer> {
  const attempts = options.maxAttempts ?? DEFAULTS.maxAttempts;
  const sleep = options.sleep ?? sleepFor;
  for (let attempt = 1; ; attempt++) {
    let answer: HttpAnswer;
    try {
      answer = await exchange(request, options);
    } catch (err) {
      if (attempt >= attempts || !IDEMPOTENT.has(request.method)) throw err;
      await sleep(retryDelayMs(undefined, attempt));
      continue;
    }
    if (attempt >= attempts || !retry(answer)) return answer;
    await sleep(retryDelayMs(answer, attempt));
  }
}
