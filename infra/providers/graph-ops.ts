import { AgentUserError } from "../../lib/errors";
import { GraphClient, GraphError } from "../../lib/graph-client";
import { DEFAULT_RETRY, lagTolerant, ONE_ATTEMPT, withRetry } from "../../lib/retry";
import { provisionerToken } from "../provisioner-credential";
import type { GraphResourceInputs } from "./inputs";

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
}

export function graphSession(inputs: GraphResourceInputs): GraphSession {
  const getToken = () => provisionerToken(inputs.authorityUrl, inputs.graphUrl);
  return {
    graph: new GraphClient({ baseUrl: inputs.graphUrl, getToken }),
    once: new GraphClient({ baseUrl: inputs.graphUrl, getToken, retry: ONE_ATTEMPT }),
    consistencyWindowMs: inputs.consistencyWindowMs,
  };
}

/** OData string literal: a quote inside is doubled. */
export function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** After a lost answer, how long a lookup keeps looking for the object the POST may have made. */
const LOST_RESPONSE_SETTLE_MS = 30_000;
const SETTLE_POLL_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
 * answer the lookup keeps polling for a while, since a list can lag behind a
 * fresh write. A not-found answer (a parent not replicated yet) is retried
 * within the consistency window; a 400, 401 or 403 is final.
 *
 * The steps get the one-attempt client, so this loop is the operation's only
 * retry budget: transient failures get DEFAULT_RETRY's attempts and time, as
 * any other request, however many lookups and POSTs an attempt makes.
 */
export async function createOrAdopt<T>(
  session: GraphSession,
  steps: { lookup: (graph: GraphClient) => Promise<T | undefined>; create: (graph: GraphClient) => Promise<T> },
): Promise<{ object: T; adopted: boolean }> {
  const window = session.consistencyWindowMs;
  const lookup = () => steps.lookup(session.once);
  let answerLost = false;
  const { policy, classify } = lagTolerant(DEFAULT_RETRY, window, (err) => err instanceof GraphError && err.notFound);
  return withRetry(
    async () => {
      const existing = answerLost ? await settle(lookup, Math.min(window, LOST_RESPONSE_SETTLE_MS)) : await lookup();
      if (existing !== undefined) return { object: existing, adopted: true };
      try {
        return { object: await steps.create(session.once), adopted: false };
      } catch (err) {
        answerLost = answerMayBeLost(err);
        throw err;
      }
    },
    policy,
    classify,
  );
}

async function settle<T>(lookup: () => Promise<T | undefined>, forMs: number): Promise<T | undefined> {
  const deadline = Date.now() + forMs;
  for (;;) {
    const found = await lookup();
    if (found !== undefined || Date.now() + SETTLE_POLL_MS > deadline) return found;
    await sleep(SETTLE_POLL_MS);
  }
}

/** The creating POST of a typed object, on createOrAdopt's one-attempt client (it handles a lost answer); answers the new object. */
export async function postOnce<T>(graph: GraphClient, collectionPath: string, body: Record<string, unknown>): Promise<T> {
  return (await graph.call<T>("POST", collectionPath, { agentId: true, body })).body;
}

/** Waits, within the consistency window, until a parent object made moments ago is readable. */
export async function awaitReplica(session: GraphSession, path: string): Promise<void> {
  await session.graph.call("GET", `${path}?$select=id`, { agentId: true, consistencyWindowMs: session.consistencyWindowMs });
}

/**
 * GET that answers undefined for an object that is gone (404); any other error is thrown.
 * `agentId` sends the Agent ID APIs' OData-Version header (the default).
 */
export async function getIfExists<T>(graph: GraphClient, path: string, agentId = true): Promise<T | undefined> {
  try {
    return (await graph.call<T>("GET", path, { agentId })).body;
  } catch (err) {
    if (err instanceof GraphError && err.notFound) return undefined;
    throw err;
  }
}

/** DELETE where an object already gone counts as deleted. */
export async function deleteIfExists(session: GraphSession, path: string): Promise<void> {
  try {
    await session.graph.call("DELETE", path, { agentId: true });
  } catch (err) {
    if (!(err instanceof GraphError && err.notFound)) throw err;
  }
}
