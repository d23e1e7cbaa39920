/**
 * Bounded reads: an identity provider (or proxy) that streams an endless
 * answer ends in a named, final error naming the step and the limit, after
 * one request, with memory flat; a slow endless body ends at the timeout.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { BODY_LIMITS } from "../../../lib/http";
import { AgentUserTokenProvider } from "../../../lib/token-provider";

let server: Server;
let base: string;
let requests = 0;
let mode: "endless" | "declared" | "slow" = "endless";

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    if (mode === "declared") {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(BODY_LIMITS.tokenEndpoint + 1) });
      res.write("{");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      if (res.destroyed) return;
      while (mode === "endless" && res.write(chunk));
      if (mode === "slow") setTimeout(() => res.write(" ") && pump(), 50);
      else res.once("drain", pump);
    };
    res.write("{");
    pump();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((done) => server.close(done));
});

function provider(timeoutMs = 15_000): AgentUserTokenProvider {
  return new AgentUserTokenProvider({
    authorityUrl: base,
    tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d",
    blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
    credential: { kind: "secret", secret: "s" },
    agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
    agentUser: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
    timeoutMs,
  });
}

it.each(["endless", "declared"] as const)("a %s body past the limit is a final error naming the step and the limit, after one request", async (m) => {
  mode = m;
  requests = 0;
  const rssBefore = process.memoryUsage().rss;
  const err = (await provider().getToken().catch((e: unknown) => e)) as { message: string; exitCode: number; transient: boolean };
  expect(err.message).toBe(`hop 1 (blueprint token): the answer is larger than ${BODY_LIMITS.tokenEndpoint} bytes, the most this step reads`);
  expect(err.exitCode).toBe(3);
  expect(err.transient).toBe(false);
  expect(requests).toBe(1);
  expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 << 20);
});

it("the timeout covers the body: a body that trickles forever ends at the deadline", async () => {
  mode = "slow";
  const started = Date.now();
  const err = (await provider(500).getToken().catch((e: unknown) => e)) as { message: string; exitCode: number };
  expect(err.message).toMatch(/^hop 1 \(blueprint token\): ETIMEDOUT: no answer within 500 ms/);
  expect(err.exitCode).toBe(4);
  // Five attempts of at most ~0.6 s each, within the 30 s budget.
  expect(Date.now() - started).toBeLessThan(15_000);
});
