import type { ServerResponse } from "node:http";
import type { EmulatorResponse, Surface } from "../router";

/** One request as the emulator saw it, for tests and benchmarks that count round trips. */
export interface RequestRecord {
  method: string;
  path: string;
  surface: Surface;
  /** The answer's status; -1 for a dropped connection. */
  status: number;
  /** Processed, but the answer was never sent (the `lose` fault): `status` is what it would have been. */
  lost?: boolean;
}

/** The last stage: the answer on the wire, its body as JSON unless it is a string. */
export function respond(res: ServerResponse, response: EmulatorResponse): void {
  const text = response.body === undefined ? "" : typeof response.body === "string" ? response.body : JSON.stringify(response.body);
  const headers: Record<string, string> = { ...response.headers };
  if (text && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json; charset=utf-8";
  res.writeHead(response.status, headers);
  res.end(text);
}
