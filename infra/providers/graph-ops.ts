import { AgentUserError, MalformedAnswerError } from "../../lib/errors";
import { GraphClient, GraphError } from "../../lib/graph-client";
import { DEFAULT_RETRY, lagTolerant, ONE_ATTEMPT, withRetry } from "../../lib/retry";
import { provisionerAppId, provisionerToken } from "../provisioner-credential";
import { DEFAULT_CONSISTENCY_WINDOW_MS, type GraphResourceInputs } from "./inputs";

/** What a session's waits read and wait on: the process clock, or a test's. */
export interface Clock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

const PROCESS_CLOCK: Clock = { now: () => Date.now(), sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };

export interface GraphSession {
  /**
   * Retries throttling and transient failures: for reads, PATCHes and DELETEs,
   * which are safe to repeat. Each call is one operation with one retry budget:
   * the provisioner's token is requested inside it, in one attempt.
   */
  graph: GraphClient;
  /** One attempt per call: what createOrAdopt hands its steps, so its own loop is that operation's only budget. */
  once: GraphClient;
  consistencyWindowMs: number;
  clock: Clock;
  /** The provisioner's appId: what Graph records as createdByAppId of the objects it creates, and so of those it may adopt. */
  provisionerAppId: () => string;
}

export function graphSession(inputs: GraphResourceInputs, clock: Clock = PROCESS_CLOCK): GraphSession {
  const getToken = () => provisionerToken(inputs.authorityUrl, inputs.graphUrl, { explicit: inputs.provisioner });
  return {
    graph: new GraphClient({ baseUrl: inputs.graphUrl, getToken }),
    once: new GraphClient({ baseUrl: inputs.graphUrl, getToken, retry: ONE_ATTEMPT }),
    consistencyWindowMs: inputs.consistencyWindowMs,
    clock,
    provisionerAppId: () => provisionerAppId({ explicit: inputs.provisioner }),
  };
}

/**
 * After an uncertain create, the least time the lookup keeps looking for the
 * object the POST may have made, whatever the consistency window (0
 * included): the longest replication lag commonly observed. Giving up sooner
 * makes a second object, orphaned outside the state, which then blocks every
 * later adoption.
 *
 * The lookups are `$filter` lists, which can lag behind a write. A GET by a
 * key the client chose would be stronger, but none fits the provisioner's
 * least-privileged permissions: a blueprint's `uniqueName` is set and read
 * through the upsert (`PATCH /applications(uniqueName=...)`), which needs
 * AgentIdentityBlueprint.ReadWrite.All rather than AgentIdentityBlueprint.Create
 * (Graph reference, agentidentityblueprint-upsert); an agent user's UPN is a
 * key of `GET /users/{userPrincipalName}`, which needs User.Read.All; a blueprint
 * principal's `servicePrincipals(appId=...)` needs Application.Read.All; an
 * agent identity has no client-chosen key. Least privilege wins, so the
 * lookup polls longer instead.
 */
export const LOST_ANSWER_MIN_SETTLE_MS = DEFAULT_CONSISTENCY_WINDOW_MS;
/** The settling lookup's first pause; each later one doubles, up to the longest, so a long window costs tens of lookups, not hundreds. */
const SETTLE_FIRST_POLL_MS = 2_000;
const SETTLE_LONGEST_POLL_MS = 15_000;

function transient(err: unknown): boolean {
  return err instanceof AgentUserError && err.transient;
}

/**
 * A failure after which the POST may have been committed: the connection
 * dropped or timed out, or a 5xx. A 429 says the request was not processed.
 */
function answerMayBeLost(err: unknown): boolean {
  return transient(err) && !(err instanceof GraphError && err.status === 429);
}

/**
 * Creates an object at most once. Before every POST it looks for an object
 * this resource made earlier (a previous `up` that died, or a POST whose
 * answer was lost after Graph committed it) and adopts it. After a lost
 * answer the lookup keeps polling for the consistency window or
 * LOST_ANSWER_MIN_SETTLE_MS, whichever is longer, since a list can lag behind
 * a fresh write; so does a POST answered with a 2xx it cannot read, which
 * made the object all the same. A not-found answer (a parent not replicated yet) is retried
 * within the consistency window; a 400, 401 or 403 is final.
 *
 * The steps get the one-attempt client, so this loop is the operation's only
 * retry budget: transient failures get DEFAULT_RETRY's attempts and time, as
 * any other request, however many lookups and POSTs an attempt makes.
 * The same rule in words for users: docs/protocol.md, "Create at most once".
 */
export async function createOrAdopt<T>(
  session: GraphSession,
  steps: { lookup: (graph: GraphClient) => Promise<T | undefined>; create: (graph: GraphClient) => Promise<T> },
): Promise<{ object: T; adopted: boolean }> {
  const window = session.consistencyWindowMs;
  const lookup = () => steps.lookup(session.once);
  let answerLost = false;
  const { clock } = session;
  const { policy, classify } = lagTolerant(DEFAULT_RETRY, window, (err) => err instanceof GraphError && err.notFound, clock.now);
  const settled = () => settle(lookup, Math.max(window, LOST_ANSWER_MIN_SETTLE_MS), clock);
  return withRetry(
    async () => {
      const existing = answerLost ? await settled() : await lookup();
      if (existing !== undefined) return { object: existing, adopted: true };
      try {
        return { object: await steps.create(session.once), adopted: false };
      } catch (err) {
        // A 2xx whose body cannot be read made the object all the same: adopt it rather than leave it outside the state.
        const made = err instanceof MalformedAnswerError ? await settled() : undefined;
        if (made !== undefined) return { object: made, adopted: true };
        answerLost = answerMayBeLost(err);
        throw err;
      }
    },
    policy,
    classify,
    { now: clock.now, sleep: clock.sleep },
  );
}

/** Looks until the object shows or `forMs` has passed; the last look is at the end of that time, not before it. */
async function settle<T>(lookup: () => Promise<T | undefined>, forMs: number, clock: Clock): Promise<T | undefined> {
  const deadline = clock.now() + forMs;
  for (let pause = SETTLE_FIRST_POLL_MS; ; pause = Math.min(2 * pause, SETTLE_LONGEST_POLL_MS)) {
    const found = await lookup();
    const left = deadline - clock.now();
    if (found !== undefined || left <= 0) return found;
    await clock.sleep(Math.min(pause, left));
  }
}

/** The creating POST of a typed object, on createOrAdopt's one-attempt client (it handles a lost answer); answers the new object, which must carry its id. */
export async function postOnce<T>(graph: GraphClient, collectionPath: string, body: Record<string, unknown>): Promise<T> {
  return (await graph.call<T>("POST", collectionPath, { agentId: true, body, shape: { id: "string" } })).body;
}

/** Waits, within the consistency window, until a parent object made moments ago is readable. */
export async function awaitReplica(session: GraphSession, path: string): Promise<void> {
  await session.graph.call("GET", `${path}?$select=id`, { agentId: true, consistencyWindowMs: session.consistencyWindowMs });
}

/** DELETE where an object already gone counts as deleted. */
export async function deleteIfExists(session: GraphSession, path: string): Promise<void> {
  try {
    await session.graph.call("DELETE", path, { agentId: true });
  } catch (err) {
    if (!(err instanceof GraphError && err.notFound)) throw err;
  }
}
