import { parseFaultSpec } from "../../../emulator/faults";
import { createOrAdopt, graphSession, LOST_ANSWER_MIN_SETTLE_MS, type Clock } from "../../../infra/providers/graph-ops";
import { DEFAULT_CONSISTENCY_WINDOW_MS } from "../../../infra/providers/inputs";
import { AGENT_USERS, BLUEPRINTS } from "../../../lib/graph-paths";
import {
  agentUserSteps,
  blueprintInputs,
  blueprintSteps,
  createIdentityChain,
  graphCalls,
  startTenant,
  userInputs,
  waitDrivenClock,
  type Tenant,
} from "./tenant";

/**
 * A create whose answer is lost after Graph committed it, while Graph's
 * lists (the lookups' `$filter`) lag behind the write for longer than 30 s:
 * the lookup must keep looking until the object shows, and never POST a
 * second one. The session and the emulator share a clock that moves only
 * when the provider waits, so a minute of lag passes without a minute of test.
 */
describe("a lost create answer while lists lag for a minute", () => {
  const LIST_LAG_MS = parseFaultSpec("list-lag=60").listLagMs!;
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());
  afterEach(() => {
    t.emulator.faults.reset();
    t.emulator.store.listLagMs = 0;
    t.emulator.store.now = Date.now;
  });

  /** From here on, new objects stay out of lists for `lagMs` on a wait-driven clock, and the next POST's answer is lost. */
  function lagAndLoseNextPost(lagMs: number): { clock: Clock; from: number } {
    t.emulator.store.listLagMs = lagMs;
    t.emulator.faults.set({ lose: 1, target: "graph", method: "POST" });
    return { clock: waitDrivenClock(t), from: t.emulator.requests.length };
  }
  const posts = (from: number, path: string) => graphCalls(t, from).filter((c) => c.startsWith(`POST ${path} `));

  it("the lag is the emulator's list-lag fault", () => expect(LIST_LAG_MS).toBe(60_000));

  it.each([
    ["the default consistency window", DEFAULT_CONSISTENCY_WINDOW_MS],
    ["no consistency window", 0],
  ])("blueprint, with %s: exactly one blueprint, adopted once the list shows it", async (_label, consistencyWindowMs) => {
    const inputs = await blueprintInputs(t, { consistencyWindowMs });
    const { clock, from } = lagAndLoseNextPost(LIST_LAG_MS);
    const { object, adopted } = await createOrAdopt(graphSession(inputs, clock), blueprintSteps(inputs));
    expect(adopted).toBe(true);
    const mine = t.emulator.store.applications().filter((a) => a.tags?.includes(inputs.adoptionTag));
    expect(mine.map((a) => a.id)).toEqual([object.id]);
    expect(posts(from, BLUEPRINTS)).toEqual([`POST ${BLUEPRINTS} 201 lost`]);
  });

  it("agent user, with no consistency window: exactly one agent user", async () => {
    const { identity } = await createIdentityChain(t);
    const inputs = await userInputs(t, identity, { consistencyWindowMs: 0 });
    const { clock, from } = lagAndLoseNextPost(LIST_LAG_MS);
    const { object, adopted } = await createOrAdopt(graphSession(inputs, clock), agentUserSteps(inputs));
    expect(adopted).toBe(true);
    expect(t.emulator.store.users().filter((u) => u.identityParentId === identity.identityId).map((u) => u.id)).toEqual([object.id]);
    expect(posts(from, AGENT_USERS)).toEqual([`POST ${AGENT_USERS} 201 lost`]);
  });

  it("a list that lags past the minimum is given up on only after the minimum, then the create is made again", async () => {
    const inputs = await blueprintInputs(t, { consistencyWindowMs: 0 });
    const { clock, from } = lagAndLoseNextPost(10 * LOST_ANSWER_MIN_SETTLE_MS);
    const started = clock.now();
    const { adopted } = await createOrAdopt(graphSession(inputs, clock), blueprintSteps(inputs));
    expect(adopted).toBe(false);
    expect(posts(from, BLUEPRINTS)).toEqual([`POST ${BLUEPRINTS} 201 lost`, `POST ${BLUEPRINTS} 201`]);
    expect(clock.now() - started).toBeGreaterThanOrEqual(LOST_ANSWER_MIN_SETTLE_MS);
  });
});
