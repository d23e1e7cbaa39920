/**
 * Throttle-aware clients: when one caller is told to wait, every caller of
 * the same endpoint waits, and they converge on the allowed rate instead of
 * each finding the limit on its own.
 */
import { parseFaultSpec } from "../../emulator/faults";
import { DEFAULT_IDS } from "../../emulator/seed";
import { startEmulator, type Emulator } from "../../emulator/server";
import { GraphClient } from "../../lib/graph-client";
import { holdThrottleGate, throttleGate } from "../../lib/throttle";
import { requestToken, tokenEndpoint } from "../../lib/token-client";

describe("the shared gate", () => {
  /** A clock that moves only when a sleeper wakes, after every caller of the same turn has run. */
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
  /** Lets pending promise callbacks run. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("has nothing to await while nobody was told to wait", () => {
    expect(throttleGate("gate-open", clock())).toBeUndefined();
  });

  it("holds every caller until the same moment (plus jitter), then lets four at a time through, the next as an answer comes in", async () => {
    const c = clock();
    holdThrottleGate("gate-held", 1_000, c.now);
    const admitted: number[] = [];
    const releases: Array<() => void> = [];
    for (let i = 0; i < 6; i++) void throttleGate("gate-held", c)!.then((release) => (admitted.push(i), releases.push(release)));
    await settle();
    // 1000 ms plus random() 0.5 of a 50 ms jitter.
    expect(c.slept).toEqual(Array(6).fill(1_025));
    expect(admitted).toEqual([0, 1, 2, 3]);
    releases[0]!();
    releases[0]!(); // twice is once
    await settle();
    expect(admitted).toEqual([0, 1, 2, 3, 4]);
  });

  it("sends callers still queued back to wait when one that went through is told to wait again", async () => {
    const c = clock();
    holdThrottleGate("gate-again", 1_000, c.now);
    const admitted: number[] = [];
    const releases: Array<() => void> = [];
    for (let i = 0; i < 5; i++) void throttleGate("gate-again", c)!.then((release) => (admitted.push(i), releases.push(release)));
    await settle();
    expect(admitted).toEqual([0, 1, 2, 3]);
    // The first answer is another 429: the wait is set before the next caller is let through, which waits it out first.
    holdThrottleGate("gate-again", 2_000, c.now);
    releases[0]!();
    await settle();
    expect(admitted).toEqual([0, 1, 2, 3, 4]);
    expect(c.slept.slice(5)).toEqual([2_000 + 50 * 0.5]);
  });

  it("lets a caller go at once when its signal fires during the wait: it takes no place on the wire and the others are unchanged", async () => {
    const c = clock();
    // A sleep that never ends on its own: only the abort can end this wait.
    const hooks = { ...c, sleep: () => new Promise<void>(() => undefined) };
    holdThrottleGate("gate-abort-wait", 20_000, c.now);
    const leaving = new AbortController();
    const left = throttleGate("gate-abort-wait", hooks, leaving.signal)!;
    leaving.abort();
    const release = await left;
    release();
    c.advance(20_050);
    // All four places are still free for the callers that stayed.
    const admitted: number[] = [];
    for (let i = 0; i < 5; i++) void throttleGate("gate-abort-wait", c)!.then(() => admitted.push(i));
    await settle();
    expect(admitted).toEqual([0, 1, 2, 3]);
  });

  it("takes a queued caller whose signal fires out of the queue: the next answer lets the next caller through, not the one that left", async () => {
    const c = clock();
    holdThrottleGate("gate-abort-queue", 1_000, c.now);
    const releases: Array<() => void> = [];
    for (let i = 0; i < 4; i++) void throttleGate("gate-abort-queue", c)!.then((release) => releases.push(release));
    const leaving = new AbortController();
    let leftWith: (() => void) | undefined;
    void throttleGate("gate-abort-queue", c, leaving.signal)!.then((release) => (leftWith = release));
    let stayedAdmitted = false;
    void throttleGate("gate-abort-queue", c)!.then(() => (stayedAdmitted = true));
    await settle();
    expect(releases).toHaveLength(4);
    leaving.abort();
    await settle();
    expect(leftWith).toBeDefined();
    expect(stayedAdmitted).toBe(false);
    releases[0]!();
    await settle();
    expect(stayedAdmitted).toBe(true);
  });

  it("passes a place on when the caller woken for it leaves before taking it: the queue behind it still moves", async () => {
    const c = clock();
    holdThrottleGate("gate-abort-woken", 1_000, c.now);
    const releases: Array<() => void> = [];
    for (let i = 0; i < 4; i++) void throttleGate("gate-abort-woken", c)!.then((release) => releases.push(release));
    const leaving = new AbortController();
    void throttleGate("gate-abort-woken", c, leaving.signal);
    let stayedAdmitted = false;
    // With a signal too, so that it queues behind the leaving caller, in the order they came.
    void throttleGate("gate-abort-woken", c, new AbortController().signal)!.then(() => (stayedAdmitted = true));
    await settle();
    expect(releases).toHaveLength(4);
    // An answer comes in and wakes the first in the queue, whose caller aborts before its turn runs.
    releases[0]!();
    leaving.abort();
    await settle();
    expect(stayedAdmitted).toBe(true);
  });

  it("keeps the later of two holds, shares no wait longer than the retry budget's 30 s, and is forgotten a second after", async () => {
    const c = clock();
    holdThrottleGate("gate-two", 5_000, c.now);
    holdThrottleGate("gate-two", 1_000, c.now);
    holdThrottleGate("gate-long", 3_600_000, c.now);
    expect(throttleGate("gate-long", c)).toBeUndefined();
    (await throttleGate("gate-two", c))!();
    expect(c.slept).toEqual([5_025]);
    c.advance(1_001);
    (await throttleGate("gate-two", c))!();
    expect(throttleGate("gate-two", c)).toBeUndefined();
    expect(c.slept).toHaveLength(1);
  });
});

describe("against the emulator's rate limits", () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  const secret = (e: Emulator) => e.store.application(DEFAULT_IDS.provisionerObjectId)?.passwordCredentials[0]?.secretText ?? "";

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
