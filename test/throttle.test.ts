/**
 * Throttle-aware clients: when one caller is told to wait, every caller of
 * the same endpoint waits, and they converge on the allowed rate instead of
 * each finding the limit on its own.
 */
import { parseFaultSpec } from "../emulator/faults";
import { DEFAULT_IDS } from "../emulator/seed";
import { startEmulator, type Emulator } from "../emulator/server";
import { GraphClient } from "../lib/graph-client";
import { holdThrottleGate, throttleGate } from "../lib/throttle";
import { requestToken, tokenEndpoint } from "../lib/token-client";

describe("the shared gate", () => {
  /** A clock that moves only when a sleeper wakes, after every caller of the same turn has taken its slot. */
  function clock() {
    let t = 1_000_000;
    const slept: number[] = [];
    return {
      now: () => t,
      sleep: (ms: number) => {
        slept.push(ms);
        const wake = t + ms;
        return Promise.resolve().then(() => void (t = Math.max(t, wake)));
      },
      random: () => 0.5,
      slept,
      advance: (ms: number) => void (t += ms),
    };
  }

  it("lets callers through at once when nobody was told to wait", async () => {
    const c = clock();
    await Promise.all([throttleGate("gate-open", c), throttleGate("gate-open", c)]);
    expect(c.slept).toEqual([]);
  });

  it("holds every caller until the same moment, then lets them through one by one, a quarter round trip apart with jitter", async () => {
    const c = clock();
    holdThrottleGate("gate-held", 1_000, 8, c.now);
    await Promise.all([1, 2, 3].map(() => throttleGate("gate-held", c)));
    // A throttled answer that took 8 ms: slots at 1000, 1002 and 1004 ms, each plus random() 0.5 of the 2 ms step.
    expect(c.slept).toEqual([1_001, 1_003, 1_005]);
  });

  it("spaces callers by the round trip of the throttled answer, within 2 and 250 ms", async () => {
    const c = clock();
    holdThrottleGate("gate-far", 1_000, 400, c.now);
    await Promise.all([1, 2, 3].map(() => throttleGate("gate-far", c)));
    expect(c.slept).toEqual([1_050, 1_150, 1_250]);
    holdThrottleGate("gate-very-far", 1_000, 4_000, c.now);
    await Promise.all([1, 2].map(() => throttleGate("gate-very-far", c)));
    expect(c.slept.slice(3)).toEqual([1_125, 1_375]);
  });

  it("sends a caller back to the queue when the wait is extended while it slept", async () => {
    const c = clock();
    holdThrottleGate("gate-again", 1_000, 8, c.now);
    const waiting = throttleGate("gate-again", c);
    holdThrottleGate("gate-again", 3_000, 8, c.now);
    await waiting;
    expect(c.slept).toEqual([1_001, 2_000]);
  });

  it("keeps the later of two holds, shares no wait longer than the retry budget's 30 s, and is forgotten a second after", async () => {
    const c = clock();
    holdThrottleGate("gate-two", 5_000, 8, c.now);
    holdThrottleGate("gate-two", 1_000, 8, c.now);
    holdThrottleGate("gate-long", 3_600_000, 8, c.now);
    await throttleGate("gate-two", c);
    await throttleGate("gate-long", c);
    expect(c.slept).toEqual([5_001]);
    c.advance(1_001);
    await Promise.all([throttleGate("gate-two", c), throttleGate("gate-two", c)]);
    expect(c.slept).toHaveLength(1);
  });
});

describe("against the emulator's rate limits", () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  const secret = (e: Emulator) => e.store.applications.get(DEFAULT_IDS.provisionerObjectId)?.passwordCredentials[0]?.secretText ?? "";

  it("60 concurrent token requests at idp-rate=10 all succeed, with a few 429s per refill instead of a storm", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("idp-rate=10").faults });
    const endpoint = tokenEndpoint(emulator.httpUrl, emulator.outputs().tenantId);
    const params = { grant_type: "client_credentials", client_id: DEFAULT_IDS.provisionerAppId, client_secret: secret(emulator), scope: `${emulator.httpUrl}/.default` };
    const results = await Promise.allSettled(Array.from({ length: 60 }, () => requestToken("provisioner token", endpoint, params)));
    // Each caller on its own (Retry-After honoured, no shared wait): about 20 of the 60 lost five races in a row and failed.
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const statuses = emulator.requests.filter((r) => r.surface === "token").map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    // The first wave finds the limit all at once (50 429s); after that each refill sees a few (about 5 in all
    // on an idle machine), not 50 again: the bound leaves room for a loaded one.
    expect(statuses.filter((s) => s === 429).length).toBeLessThan(50 + 5 * 10);
  }, 30_000);

  it("Graph clients of one base URL share the wait: 60 concurrent reads from four clients at graph-rate=10, none failed", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("graph-rate=10").faults });
    const endpoint = tokenEndpoint(emulator.httpUrl, emulator.outputs().tenantId);
    const params = { grant_type: "client_credentials", client_id: DEFAULT_IDS.provisionerAppId, client_secret: secret(emulator), scope: `${emulator.httpUrl}/.default` };
    const token = (await requestToken("provisioner token", endpoint, params)).response.access_token;
    // Separate clients, as separate resources in one provider process have: one view of the limit all the same.
    const clients = Array.from({ length: 4 }, () => new GraphClient({ baseUrl: emulator.httpUrl, getToken: async () => token }));
    const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => clients[i % 4]!.call("GET", "/v1.0/oauth2PermissionGrants")));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const throttled = emulator.requests.filter((r) => r.surface === "graph" && r.status === 429).length;
    expect(throttled).toBeLessThan(50 + 5 * 10);
  }, 30_000);
});
