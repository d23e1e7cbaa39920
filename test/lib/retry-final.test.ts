/**
 * What is final stays final, and a zero Retry-After never turns retries into
 * a tight loop: counted on the wire, against a small hostile server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { requestToken } from "../../lib/token-client";

let server: Server;
let base: string;
let reply: { status: number; headers: Record<string, string>; body: unknown };
const arrivals: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    arrivals.push(Date.now());
    req.resume();
    res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    res.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/t/oauth2/v2.0/token`;
});
afterAll(() => new Promise((done) => server.close(done)));
beforeEach(() => void arrivals.splice(0));

const ask = () => requestToken("hop 1 (blueprint token)", base, { grant_type: "client_credentials" }, { retry: { maxAttempts: 5, maxElapsedMs: 30_000, baseDelayMs: 50, maxDelayMs: 200 }, hooks: { random: () => 1 } });

it.each([400, 401, 403])("HTTP %i is final even with a transient AADSTS code: one request", async (status) => {
  reply = { status, headers: {}, body: { error: "temporarily_unavailable", error_description: "AADSTS90024: x", error_codes: [90024] } };
  await expect(ask()).rejects.toMatchObject({ status, codes: [90024] });
  expect(arrivals).toHaveLength(1);
});

it("Retry-After: 0 does not replace the backoff: attempts are spread, not back to back", async () => {
  reply = { status: 503, headers: { "retry-after": "0" }, body: { error: "temporarily_unavailable", error_codes: [90024] } };
  await expect(ask()).rejects.toMatchObject({ status: 503 });
  expect(arrivals).toHaveLength(5);
  // random() = 1: the backoff is 50, 100, 200, 200 ms.
  const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
  expect(gaps.every((gap, i) => gap >= [50, 100, 200, 200][i]! - 5)).toBe(true);
});
