import { sample, timed, type Timing } from "./stats";
import type { AgentPair } from "./tenant";

/**
 * What the bench asks of each client, and the measurements it takes. Nothing
 * here loads either client, so a child process measuring one client's memory
 * never loads the other.
 */
export interface TokenClient {
  readonly name: string;
  /** A delegated token of `pair.user` for `resource` (e.g. https://graph.microsoft.com). */
  token(pair: AgentPair, resource: string): Promise<string>;
  /** Empties every token cache the client keeps (its cold state). */
  clear(): void;
}

/** Cold: empty caches, the whole chain (three requests). */
export function cold(client: TokenClient, pair: AgentPair, resource: string): Promise<Timing> {
  client.clear();
  return timed(() => client.token(pair, resource));
}

/** Warm: T1 and T2 cached by a first token, then a token for a second resource (one request). */
export async function warm(client: TokenClient, pair: AgentPair, first: string, second: string): Promise<Timing> {
  client.clear();
  await client.token(pair, first);
  return timed(() => client.token(pair, second));
}

/**
 * A cache hit resolves in microtasks alone, so a loop of them never lets the
 * event loop run: past a second, the loop yields once, or a server closing an
 * idle keep-alive connection (Node's closes after 5 s) goes unnoticed and the
 * next request is sent on a dead socket (ECONNRESET). MSAL's hit takes about
 * a millisecond, so its 10,000 calls of the memory workload run that long.
 */
const HIT_YIELD_MS = 1_000;

/** Hit: the final token is cached; mean µs per awaited call over `calls` calls. */
export async function hitUs(client: TokenClient, pair: AgentPair, resource: string, calls: number): Promise<number> {
  await client.token(pair, resource);
  const started = performance.now();
  let yielded = started;
  for (let i = 0; i < calls; i++) {
    await client.token(pair, resource);
    if ((i & 255) === 255 && performance.now() - yielded > HIT_YIELD_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      yielded = performance.now();
    }
  }
  return ((performance.now() - started) * 1000) / calls;
}

/** Throughput: empty caches, one token per pair, `concurrency` callers; tokens per second. */
export async function tokensPerSecond(client: TokenClient, pairs: readonly AgentPair[], resource: string, concurrency: number): Promise<number> {
  client.clear();
  let next = 0;
  const worker = async () => {
    while (next < pairs.length) await client.token(pairs[next++]!, resource);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (pairs.length * 1000) / (performance.now() - started);
}

export interface WorkloadPlan {
  main: AgentPair;
  fleet: AgentPair[];
  first: string;
  second: string;
  rounds: number;
  hitCalls: number;
  tpsRounds: number;
  concurrency: number;
}

/** The same sequence for every client, for the memory figure: cold, warm, hits, then throughput. */
export async function fullWorkload(client: TokenClient, plan: WorkloadPlan): Promise<void> {
  await sample(plan.rounds, 10_000, async () => (await cold(client, plan.main, plan.first)).ms);
  await sample(plan.rounds, 10_000, async () => (await warm(client, plan.main, plan.first, plan.second)).ms);
  await hitUs(client, plan.main, plan.first, plan.hitCalls);
  await sample(plan.tpsRounds, 20_000, () => tokensPerSecond(client, plan.fleet, plan.first, plan.concurrency), 1);
}
