import { AgentUserError } from "../../lib/errors";
import { GraphClient, GraphError } from "../../lib/graph-client";
import { withRetry, type Classifier } from "../../lib/retry";
import { provisionerToken } from "../provisioner-credential";
import type { GraphResourceInputs } from "./inputs";

export interface GraphSession {
  /** Retries throttling and transient failures: for reads, PATCHes and DELETEs, which are safe to repeat. */
  graph: GraphClient;
  /** One attempt only: for creating POSTs, whose repetition after a lost answer is handled by createOrAdopt. */
  once: GraphClient;
  consistencyWindowMs: number;
}

export function graphSession(inputs: GraphResourceInputs): GraphSession {
  const getToken = () => provisionerToken(inputs.authorityUrl, inputs.graphUrl);
  return {
    graph: new GraphClient({ baseUrl: inputs.graphUrl, getToken }),
    once: new GraphClient({ baseUrl: inputs.graphUrl, getToken, retry: { maxAttempts: 1, maxElapsedMs: 0, baseDelayMs: 0, maxDelayMs: 0 } }),
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
 * Creates an object at most once. Before every POST it looks for an object
 * this resource made earlier (a previous `up` that died, or a POST whose
 * answer was lost after Graph committed it) and adopts it. After a lost
 * answer the lookup keeps polling for a while, since a list can lag behind a
 * fresh write. A not-found answer (a parent not replicated yet) is retried
 * within the consistency window; a 400 or 403 is final.
 */
export async function createOrAdopt<T>(
  session: GraphSession,
  steps: { lookup: () => Promise<T | undefined>; create: () => Promise<T> },
): Promise<{ object: T; adopted: boolean }> {
  const window = session.consistencyWindowMs;
  let answerLost = false;
  const classify: Classifier = (err) => {
    if (transient(err)) return { retry: true, afterMs: (err as { retryAfterMs?: number }).retryAfterMs };
    return { retry: window > 0 && err instanceof GraphError && err.notFound };
  };
  return withRetry(
    async () => {
      const existing = answerLost ? await settle(steps.lookup, Math.min(window, LOST_RESPONSE_SETTLE_MS)) : await steps.lookup();
      if (existing !== undefined) return { object: existing, adopted: true };
      try {
        return { object: await steps.create(), adopted: false };
      } catch (err) {
        answerLost = transient(err);
        throw err;
      }
    },
    { maxAttempts: 10, maxElapsedMs: Math.max(window, 30_000), baseDelayMs: 1_000, maxDelayMs: 10_000 },
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

/** The creating POST of a typed object, in one attempt (createOrAdopt handles a lost answer); answers the new object. */
export async function postOnce<T>(session: GraphSession, collectionPath: string, body: Record<string, unknown>): Promise<T> {
  return (await session.once.call<T>("POST", collectionPath, { agentId: true, body })).body;
}

/** Waits, within the consistency window, until a parent object made moments ago is readable. */
export async function awaitReplica(session: GraphSession, path: string): Promise<void> {
  await session.graph.call("GET", `${path}?$select=id`, { agentId: true, consistencyWindowMs: session.consistencyWindowMs });
}

/** GET that answers undefined for an object that is gone. */
export async function getIfExists<T>(session: GraphSession, path: string): Promise<T | undefined> {
  try {
    return (await session.graph.call<T>("GET", path, { agentId: true })).body;
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
