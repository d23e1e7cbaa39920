/**
 * Bounded work under aborts: a token request that no caller waits for any
 * more is cancelled, and the kit never has more than
 * MAX_CONNECTIONS_PER_ORIGIN requests on the wire to one origin. Watched at a
 * slow identity provider, a local server that holds every request until the
 * test says otherwise; every wait is on its events, never on time.
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AbortError, AgentUserTokenProvider, TokenEndpointError } from "../../../lib";
import type { RetryHooks } from "../../../lib/retry";
import { MAX_CONNECTIONS_PER_ORIGIN } from "../../../lib/undici-request";

const TENANT = "11111111-1111-4111-8111-111111111111";
const BLUEPRINT = "22222222-2222-4222-8222-222222222222";

/** An identity provider that holds every request (or, once `refuse` is set, answers each with a final 400) and counts what it sees. */
class HoldingIdp {
  readonly events = new EventEmitter();
  /** When set, the next request is answered with a 429 carrying this Retry-After (seconds), once. */
  throttleNextFor: number | undefined;
  /** Requests received in all. */
  received = 0;
  /** Requests received whose connection is still open, unanswered. */
  inFlight = 0;
  peakInFlight = 0;
  openSockets = 0;
  refuse = false;
  private readonly held: ServerResponse[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      this.received++;
      req.resume();
      if (this.throttleNextFor !== undefined) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": String(this.throttleNextFor) });
        res.end(JSON.stringify({ error: "temporarily_unavailable", error_codes: [50196] }));
        this.throttleNextFor = undefined;
      } else if (this.refuse) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "invalid_client", error_codes: [7000215] }));
      } else {
        this.inFlight++;
        this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
        this.held.push(res);
        res.on("close", () => {
          this.inFlight--;
          this.events.emit("change");
        });
      }
      this.events.emit("change");
    });
    this.server.on("connection", (socket) => {
      this.openSockets++;
      socket.on("close", () => {
        this.openSockets--;
        this.events.emit("change");
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((ready) => this.server.listen(0, "127.0.0.1", ready));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `condition` holds, checked at every request and every closed connection. */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        this.events.off("change", check);
        resolve();
      };
      this.events.on("change", check);
      check();
    });
  }

  /** Answers every held request that is still open with the final 400. */
  answerHeld(): void {
    for (const res of this.held.splice(0)) {
      if (res.destroyed) continue;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_client", error_codes: [7000215] }));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

let idp: HoldingIdp;
let authority: string;
beforeEach(async () => {
  idp = new HoldingIdp();
  authority = await idp.start();
});
afterEach(() => idp.close());

function provider(hooks?: RetryHooks): AgentUserTokenProvider {
  // A timeout far past the test's own: a request that is still held at the end was never cancelled, not timed out.
  return new AgentUserTokenProvider({ tenantId: TENANT, blueprintAppId: BLUEPRINT, credential: { kind: "secret", secret: "s" }, authorityUrl: authority, timeoutMs: 600_000, hooks });
}

/** A full garbage collection, with the flag Node needs for it set from inside the process. */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/**
 * Tracks objects, and counts those not yet collected. A FinalizationRegistry's
 * callbacks say what was collected; each of up to GC_ROUNDS turns of the
 * event loop runs a full collection so that they come (one or two turns do
 * on an idle or a loaded machine alike: it is rounds, not time). A WeakRef
 * would not do: reading one keeps its object alive until the turn ends.
 */
function collectionWatch(): { track(object: object): void; stillHeld(): Promise<number> } {
  let tracked = 0;
  let collected = 0;
  const registry = new FinalizationRegistry<undefined>(() => void collected++);
  return {
    track(object) {
      tracked++;
      registry.register(object, undefined);
    },
    async stillHeld() {
      for (let round = 0; round < GC_ROUNDS && collected < tracked; round++) {
        collectGarbage();
        await new Promise((turn) => setImmediate(turn));
      }
      return tracked - collected;
    },
  };
}

const GC_ROUNDS = 20;

/** One more caller, not aborted, once the provider answers with a final 400: the requests it sees after this one are all the rest. */
async function sentinel(tokens: AgentUserTokenProvider): Promise<void> {
  idp.refuse = true;
  await expect(tokens.getToken({ agentIdentityId: randomUUID(), agentUser: "sentinel@contoso.com" })).rejects.toBeInstanceOf(TokenEndpointError);
}

/** Aborts every caller; whether each then failed with AbortError. */
async function abortAll(callers: Array<{ controller: AbortController; outcome: Promise<unknown> }>): Promise<boolean> {
  callers.forEach((caller) => caller.controller.abort());
  return (await Promise.all(callers.map((caller) => caller.outcome))).every((outcome) => outcome instanceof AbortError);
}

it("2,000 aborted callers for distinct agent users: at most MAX_CONNECTIONS_PER_ORIGIN requests in flight, then every one is cancelled, no other is sent, and nothing of theirs is kept", async () => {
  expect(MAX_CONNECTIONS_PER_ORIGIN).toBe(64);
  const tokens = provider();
  // What each caller hands the kit: once the callers are gone, the kit must hold none of it (no queued work, no listener, no cache entry).
  const handedOver = collectionWatch();
  const callers = Array.from({ length: 2_000 }, (_, i) => {
    const controller = new AbortController();
    const request = { agentIdentityId: randomUUID(), agentUser: `agent-${i}@contoso.com` };
    const pending = tokens.getToken(request, { abortSignal: controller.signal });
    for (const object of [request, controller.signal, pending]) handedOver.track(object);
    return { controller, outcome: pending.then(() => "minted", (err: unknown) => err) };
  });
  await idp.until(() => idp.inFlight === MAX_CONNECTIONS_PER_ORIGIN);
  // The outcomes are not kept: an error's stack trace holds the frames it was made in, and with them the caller's signal.
  expect(await abortAll(callers.splice(0))).toBe(true);
  // Every held request is cancelled: its connection closes, with nobody left to answer.
  await idp.until(() => idp.inFlight === 0 && idp.openSockets === 0);
  expect(await handedOver.stillHeld()).toBe(0);
  expect(idp.peakInFlight).toBe(MAX_CONNECTIONS_PER_ORIGIN);
  expect(idp.received).toBe(MAX_CONNECTIONS_PER_ORIGIN);
  await sentinel(tokens);
  expect(idp.received).toBe(MAX_CONNECTIONS_PER_ORIGIN + 1);
});

it("callers waiting out a 429's Retry-After settle as soon as they abort, and send nothing", async () => {
  let throttled!: () => void;
  const retrying = new Promise<void>((resolve) => (throttled = resolve));
  // A sleep that never ends on its own: only an abort can end a wait here.
  const tokens = provider({ sleep: () => new Promise<void>(() => undefined), onRetry: () => throttled() });
  const start = () => {
    const controller = new AbortController();
    const pending = tokens.getToken({ agentIdentityId: randomUUID(), agentUser: "agent@contoso.com" }, { abortSignal: controller.signal });
    return { controller, outcome: pending.then(() => "minted", (err: unknown) => err) };
  };
  idp.throttleNextFor = 20;
  const first = start();
  // The 429 is in and the shared wait is set: every caller from here on waits in the gate before sending.
  await retrying;
  const waiting = Array.from({ length: 50 }, start);
  for (const { controller } of [first, ...waiting]) controller.abort();
  const outcomes = await Promise.all([first, ...waiting].map((c) => c.outcome));
  expect(outcomes.every((o) => o instanceof AbortError)).toBe(true);
  expect(idp.received).toBe(1);
});

it("fresh: true, every caller aborted: each caller's own request is cancelled, and nothing is sent after they are gone", async () => {
  const tokens = provider();
  const agentIdentityId = randomUUID();
  const callers = Array.from({ length: 20 }, () => {
    const controller = new AbortController();
    const pending = tokens.getToken({ agentIdentityId, agentUser: "agent@contoso.com", fresh: true }, { abortSignal: controller.signal });
    return { controller, outcome: pending.then(() => "minted", (err: unknown) => err) };
  });
  // fresh shares nothing: 20 callers are 20 hop 1 requests.
  await idp.until(() => idp.inFlight === 20);
  for (const { controller } of callers) controller.abort();
  expect((await Promise.all(callers.map((c) => c.outcome))).every((o) => o instanceof AbortError)).toBe(true);
  await idp.until(() => idp.inFlight === 0 && idp.openSockets === 0);
  expect(idp.received).toBe(20);
  await sentinel(tokens);
  expect(idp.received).toBe(21);
});

it("a request another caller still waits for goes on when one caller aborts, and its answer reaches that caller", async () => {
  const tokens = provider();
  const agentIdentityId = randomUUID();
  const leaving = new AbortController();
  const left = tokens.getToken({ agentIdentityId, agentUser: "agent@contoso.com" }, { abortSignal: leaving.signal });
  const staying = tokens.getToken({ agentIdentityId, agentUser: "agent@contoso.com" }).catch((err: unknown) => err);
  await idp.until(() => idp.inFlight === 1);
  leaving.abort();
  await expect(left).rejects.toBeInstanceOf(AbortError);
  // The shared hop 1 request is still held, not cancelled: the staying caller gets its answer.
  expect(idp.inFlight).toBe(1);
  idp.refuse = true;
  idp.answerHeld();
  expect(await staying).toBeInstanceOf(TokenEndpointError);
  expect(idp.received).toBe(1);
});
