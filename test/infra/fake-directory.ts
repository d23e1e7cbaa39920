import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fake server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface FakeAnswer {
  status: number;
  body?: unknown;
}

/**
 * A loopback server standing in for the token endpoint and Graph, for tests
 * that need a real HTTP exchange but not the emulator: it answers token
 * requests with `accessToken` and everything else with `route`.
 */
export async function startFakeDirectory(options: { accessToken: string; route?: (req: SeenRequest) => FakeAnswer }) {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      seen.push(request);
      const answer: FakeAnswer = request.path.endsWith("/oauth2/v2.0/token")
        ? { status: 200, body: { token_type: "Bearer", expires_in: 3600, access_token: options.accessToken } }
        : (options.route?.(request) ?? { status: 404, body: { error: { code: "Request_ResourceNotFound", message: "not here" } } });
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
