import type { IncomingMessage } from "node:http";
import { PUBLIC_CLOUD } from "../../lib/entra-rules";
import { graphErrorResponse } from "../graph/envelope";
import { GRAPH_ERRORS } from "../graph/errors";
import type { EmulatorResponse } from "../router";
import { readGraphPath } from "./graph-path";
import type { RequestRecord } from "./respond";

/** A request the emulator will route: its method, URL, the origin the client used, and its whole body. */
export interface ParsedRequest {
  method: string;
  url: URL;
  /** scheme://host:port the client used. */
  origin: string;
  body: string;
}

/** What parsing gives: the request, or the answer that refuses it (and its record); undefined when the connection failed while the body was read. */
export type ParseResult = { request: ParsedRequest } | { refused: EmulatorResponse; record: RequestRecord } | undefined;

const MAX_BODY_BYTES = 1024 * 1024;
/** Past this much, the emulator stops reading an oversized body and drops the connection. */
const MAX_DRAIN_BYTES = 64 * MAX_BODY_BYTES;

/**
 * Microsoft's public-cloud host names, answered too: a client that hard-codes
 * them (MSAL under @microsoft/agents-hosting, the benchmarks' SDK clients)
 * reaches the emulator through a connector that dials it, and finds the names
 * it expects in issuers and @odata.context. A DNS-rebinding page cannot send
 * them to a local server: their DNS is Microsoft's.
 */
const PUBLIC_CLOUD_HOSTS: readonly string[] = [...new Set([PUBLIC_CLOUD.authorityUrl, PUBLIC_CLOUD.graphUrl, PUBLIC_CLOUD.resourceUrl].map((url) => new URL(url).host))];

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

/** Whether a path belongs to the emulated Graph, whose errors have their own envelope. */
export function isGraphPath(path: string): boolean {
  return readGraphPath(path) !== undefined;
}

/** 413 for an oversized body, in the shape of the surface the path belongs to. */
function tooLarge(path: string, req: IncomingMessage): EmulatorResponse {
  if (isGraphPath(path)) return graphErrorResponse(req, GRAPH_ERRORS.tooLarge(MAX_BODY_BYTES));
  return { status: 413, body: { error: "invalid_request", error_description: `The request body is larger than ${MAX_BODY_BYTES} bytes.` } };
}

/** How many Host header lines the request carried (rawHeaders alternates names and values, as sent). */
function hostHeaders(req: IncomingMessage): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === "host") n++;
  return n;
}

/** A refusal before routing: the body is left unread, and the request counts on no surface. */
function refuse(req: IncomingMessage, path: string, description: string): ParseResult {
  req.resume();
  return { refused: { status: 400, body: { error: "invalid_request", error_description: description } }, record: { method: req.method ?? "GET", path, surface: "other", status: 400 } };
}

/**
 * The first stage: the Host the request names, its URL and its body, read
 * whole up to MAX_BODY_BYTES.
 *
 * Only its own loopback names and ports: a page that rebinds a DNS name to
 * 127.0.0.1 sends its own Host, and a Host is reflected into issuers and
 * @odata.context, so a foreign or malformed one is refused, never echoed. A
 * second Host is refused as a strict HTTP/1.1 server refuses it: Node keeps
 * the first and drops the rest, so a proxy that routes on the last one and
 * this emulator would each see a different target.
 */
export async function parseRequest(req: IncomingMessage, scheme: "http" | "https", origins: readonly string[]): Promise<ParseResult> {
  const count = hostHeaders(req);
  if (count > 1) return refuse(req, "(several Host headers)", `[emulator] the request has ${count} Host headers; HTTP/1.1 allows exactly one`);
  const origin = `${scheme}://${req.headers.host ?? ""}`;
  if (!origins.includes(origin) && !PUBLIC_CLOUD_HOSTS.includes(String(req.headers.host))) {
    return refuse(req, "(foreign Host)", "[emulator] the Host header does not name this emulator (127.0.0.1 or localhost, on its own port)");
  }
  const url = new URL(req.url ?? "/", origin);
  const method = req.method ?? "GET";
  let body: string | undefined;
  try {
    body = await readBody(req);
  } catch {
    return undefined;
  }
  if (body === undefined) {
    const refused = tooLarge(url.pathname, req);
    return { refused, record: { method, path: url.pathname, surface: "other", status: refused.status } };
  }
  return { request: { method, url, origin, body } };
}
