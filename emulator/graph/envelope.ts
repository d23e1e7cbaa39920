import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Reply, type EmulatorResponse } from "../router";

/** Graph's error envelope, with the request ids Graph puts in every answer. */
export function graphErrorResponse(status: number, code: string, message: string, headers: IncomingHttpHeaders = {}, extra: Record<string, string> = {}): EmulatorResponse {
  const requestId = randomUUID();
  const clientRequestId = String(headers["client-request-id"] ?? requestId);
  return {
    status,
    headers: { "request-id": requestId, "client-request-id": clientRequestId, ...extra },
    body: { error: { code, message, innerError: { date: new Date().toISOString().replace(/\.\d+Z$/, ""), "request-id": requestId, "client-request-id": clientRequestId } } },
  };
}

export function graphError(status: number, code: string, message: string, headers?: IncomingHttpHeaders): Reply {
  return new Reply(graphErrorResponse(status, code, message, headers));
}
