/**
 * A retry policy is an option like any other: AgentUserTokenProvider refuses
 * one it cannot use, naming the field, and the retry loop stays bounded by
 * attempts and by time whatever policy reaches it. Counted on the wire
 * against a server that answers every request 503, never timed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentUserTokenProvider, UsageError, type AgentUserTokenProviderOptions } from "../../lib";
import { MAX_ATTEMPTS, type RetryPolicy } from "../../lib/retry";
import { requestToken } from "../../lib/token-client";

let server: Server;
let authority: string;
/** Requests the server has received in this test. */
let requests = 0;
/** Called on every request: a test's clock moves here, by the request, never by real time. */
let onRequest: () => void = () => undefined;
/** The server gives up after this many 503s and answers a final 400, so a loop that would never end still ends the test. */
const SAFETY_STOP = 1_000;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    onRequest();
    req.resume();
    const status = requests > SAFETY_STOP ? 400 : 503;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: status === 400 ? "invalid_request" : "temporarily_unavailable", error_codes: status === 400 ? [900144] : [90024] }));
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  authority = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((done) => {
  server.closeAllConnections();
  server.close(done);
}));
beforeEach(() => {
  requests = 0;
  onRequest = () => undefined;
});

const TENANT = "11111111-1111-4111-8111-111111111111";
const APP = "22222222-2222-4222-8222-222222222222";

/** A token request under `retry`, with a clock that moves `msPerRequest` each time the server is asked. */
async function requestsSentUnder(retry: RetryPolicy, msPerRequest: number): Promise<number> {
  let t = 0;
  onRequest = () => void (t += msPerRequest);
  await expect(
    requestToken("hop 1 (blueprint token)", `${authority}/${TENANT}/oauth2/v2.0/token`, { grant_type: "client_credentials" }, { retry, hooks: { now: () => t, random: () => 1, sleep: async () => undefined } }),
  ).rejects.toMatchObject({ status: expect.any(Number) });
  return requests;
}

describe("the retry loop is bounded whatever policy reaches it", () => {
  it("1e9 attempts with no backoff stop at the attempt ceiling, not after as many requests as fit in the time budget", async () => {
    expect(await requestsSentUnder({ maxAttempts: 1e9, baseDelayMs: 0, maxDelayMs: 0, maxElapsedMs: 8_000 }, 1)).toBe(MAX_ATTEMPTS);
  });

  it("1e9 attempts with no backoff stop within the time budget when the budget ends first", async () => {
    // Each request takes 1 s on this clock: attempts start at 0, 1, …, 8 s, and the one at 9 s would be past the budget.
    expect(await requestsSentUnder({ maxAttempts: 1e9, baseDelayMs: 0, maxDelayMs: 0, maxElapsedMs: 8_000 }, 1_000)).toBe(9);
  });

  it.each<[string, RetryPolicy]>([
    ["maxAttempts: NaN", { maxAttempts: NaN, baseDelayMs: 0, maxDelayMs: 0, maxElapsedMs: 8_000 }],
    ["maxElapsedMs: NaN", { maxAttempts: 1e9, baseDelayMs: 0, maxDelayMs: 0, maxElapsedMs: NaN }],
    ["baseDelayMs: NaN (a NaN backoff)", { maxAttempts: 1e9, baseDelayMs: NaN, maxDelayMs: NaN, maxElapsedMs: 8_000 }],
  ])("%s stops after the first attempt instead of looping", async (_what, retry) => {
    expect(await requestsSentUnder(retry, 1)).toBe(1);
  });
});

describe("AgentUserTokenProvider refuses a retry policy, timeout or window it cannot use, naming the option, before any request", () => {
  function options(patch: Record<string, unknown>): AgentUserTokenProviderOptions {
    return {
      tenantId: TENANT,
      blueprintAppId: APP,
      credential: { kind: "secret", secret: "s" },
      authorityUrl: authority,
      agentIdentityId: APP,
      agentUser: "agent@contoso.com",
      ...patch,
    } as AgentUserTokenProviderOptions;
  }

  it.each<[string, unknown, RegExp]>([
    ["maxAttempts: NaN", { maxAttempts: NaN }, /retry\.maxAttempts must be a whole number from 1 to 100, got NaN/],
    ["maxAttempts: 1e9", { maxAttempts: 1e9 }, /retry\.maxAttempts must be a whole number from 1 to 100, got 1000000000/],
    ["maxAttempts: 0", { maxAttempts: 0 }, /retry\.maxAttempts must be a whole number from 1 to 100, got 0/],
    ["maxAttempts: -3", { maxAttempts: -3 }, /retry\.maxAttempts must be a whole number from 1 to 100, got -3/],
    ["maxAttempts: 2.5", { maxAttempts: 2.5 }, /retry\.maxAttempts must be a whole number from 1 to 100, got 2\.5/],
    ["maxAttempts as a string", { maxAttempts: "5" }, /retry\.maxAttempts must be a whole number from 1 to 100, got "5"/],
    ["maxElapsedMs: Infinity", { maxElapsedMs: Infinity }, /retry\.maxElapsedMs must be a number of milliseconds, 0 to 2000000000, got Infinity/],
    ["maxElapsedMs: -1", { maxElapsedMs: -1 }, /retry\.maxElapsedMs must be a number of milliseconds, 0 to 2000000000, got -1/],
    ["maxElapsedMs as a string", { maxElapsedMs: "8000" }, /retry\.maxElapsedMs must be a number of milliseconds, 0 to 2000000000, got "8000"/],
    ["baseDelayMs: NaN", { baseDelayMs: NaN }, /retry\.baseDelayMs must be a number of milliseconds, 0 to 2000000000, got NaN/],
    ["baseDelayMs: -5", { baseDelayMs: -5 }, /retry\.baseDelayMs must be a number of milliseconds, 0 to 2000000000, got -5/],
    ["maxDelayMs past what a timer holds", { maxDelayMs: 2 ** 31 }, /retry\.maxDelayMs must be a number of milliseconds, 0 to 2000000000, got 2147483648/],
    ["no object", "fast", /retry must be an object \{ maxAttempts, maxElapsedMs, baseDelayMs, maxDelayMs \}, got "fast"/],
    ["null", null, /retry must be an object/],
  ])("retry with %s", (_what, retry, message) => {
    expect(() => new AgentUserTokenProvider(options({ retry }))).toThrow(UsageError);
    expect(() => new AgentUserTokenProvider(options({ retry }))).toThrow(message);
    expect(requests).toBe(0);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["replicationWindowMs: 1e300", { replicationWindowMs: 1e300 }, /replicationWindowMs must be a number of milliseconds, 0 to 2000000000, got 1e\+300/],
    ["replicationWindowMs as a string", { replicationWindowMs: "60000" }, /replicationWindowMs must be a number of milliseconds, 0 to 2000000000, got "60000"/],
    ["refreshWindowMs: Infinity", { refreshWindowMs: Infinity }, /refreshWindowMs must be a number of milliseconds, 0 to 2000000000, got Infinity/],
    ["refreshWindowMs: NaN", { refreshWindowMs: NaN }, /refreshWindowMs must be a number of milliseconds, 0 to 2000000000, got NaN/],
    ["timeoutMs: NaN", { timeoutMs: NaN }, /timeoutMs must be a number of milliseconds, more than 0 to 2000000000, got NaN/],
  ])("%s", (_what, patch, message) => {
    expect(() => new AgentUserTokenProvider(options(patch))).toThrow(message);
    expect(requests).toBe(0);
  });

  it("every problem of a policy is named at once", () => {
    expect(() => new AgentUserTokenProvider(options({ retry: { maxAttempts: NaN, maxDelayMs: -1 } }))).toThrow(
      /retry\.maxAttempts must be a whole number from 1 to 100, got NaN; retry\.maxDelayMs must be a number of milliseconds, 0 to 2000000000, got -1/,
    );
  });

  it("a policy at the valid extremes (maxDelayMs left out: its default caps a backoff of 0 anyway) mints bounded: at most 100 requests against a 503", async () => {
    const provider = new AgentUserTokenProvider(options({ retry: { maxAttempts: 100, maxElapsedMs: 2_000_000_000, baseDelayMs: 0 } }));
    await expect(provider.getToken()).rejects.toMatchObject({ status: 503 });
    expect(requests).toBe(100);
  });
});
