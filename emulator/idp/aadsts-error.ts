import { randomUUID } from "node:crypto";
import { Reply } from "../router";

/** Entra's token endpoint error body; `code` null for rules whose real code is unknown. */
export function aadstsError(status: number, error: string, code: number | null, text: string): Reply {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date().toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
  return new Reply({
    status,
    headers: { "cache-control": "no-store, no-cache" },
    body: {
      error,
      // Entra puts each of these on its own line.
      error_description: [`${code === null ? "" : `AADSTS${code}: `}${text}`, `Trace ID: ${traceId}`, `Correlation ID: ${correlationId}`, `Timestamp: ${timestamp}`].join("\r\n"),
      error_codes: code === null ? [] : [code],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
      ...(code === null ? {} : { error_uri: `https://login.microsoftonline.com/error?code=${code}` }),
    },
  });
}

/** A rule whose real Entra code is unconfirmed: the text says the emulator made it. */
export function emulatorRule(text: string): Reply {
  return aadstsError(400, "invalid_grant", null, `[emulator rule] ${text}`);
}

/** AADSTS90002: the token endpoint says `invalid_request`, the discovery document `invalid_tenant`. */
export function tenantNotFound(error: "invalid_request" | "invalid_tenant", tenant: string): Reply {
  return aadstsError(400, error, 90002, `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`);
}
