import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Reply, type EmulatorResponse } from "../router";
import type { GraphErrorSpec } from "./errors";

/** The ids Graph puts on every answer; client-request-id echoes the caller's when it sent one. */
function requestIds(headers: IncomingHttpHeaders): { "request-id": string; "client-request-id": string } {
  const requestId = randomUUID();
  return { "request-id": requestId, "client-request-id": String(headers["client-request-id"] ?? requestId) };
}

/** A catalogue error (errors.ts) in Graph's envelope, with the request ids Graph puts in every answer. */
export function graphErrorResponse(req: { headers: IncomingHttpHeaders }, spec: GraphErrorSpec): EmulatorResponse {
  const ids = requestIds(req.headers);
  return {
    status: spec.status,
    headers: { ...ids, ...spec.headers },
    body: { error: { code: spec.code, message: spec.message, innerError: { date: new Date().toISOString().replace(/\.\d+Z$/, ""), ...ids } } },
  };
}

/** The same, as a Reply a handler throws. */
export function graphError(req: { headers: IncomingHttpHeaders }, spec: GraphErrorSpec): Reply {
  return new Reply(graphErrorResponse(req, spec));
}

/** A successful Graph answer: an OData JSON body with Graph's request ids. */
export function graphOk(body: unknown, headers: IncomingHttpHeaders = {}): EmulatorResponse {
  return {
    status: 200,
    headers: { ...requestIds(headers), "content-type": "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8" },
    body,
  };
}

/** 201 Created with the new object, as Graph answers a create. */
export function graphCreated(body: unknown, headers: IncomingHttpHeaders = {}): EmulatorResponse {
  return { ...graphOk(body, headers), status: 201 };
}

/** 204 No Content, as Graph answers a PATCH, a DELETE or a $ref change. */
export function graphNoContent(headers: IncomingHttpHeaders = {}): EmulatorResponse {
  return { status: 204, headers: requestIds(headers) };
}
