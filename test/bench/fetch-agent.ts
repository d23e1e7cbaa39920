/**
 * The peer sends its requests with Node's built-in `fetch`, whose HTTP stack
 * is the undici copy bundled in Node (not the `undici` package this project
 * depends on). To route the peer's traffic without loading a second undici
 * into its process (about 20 MB of RSS it would not carry in production),
 * the bench builds the routing dispatcher from the bundled Agent class.
 *
 * Node creates that Agent, and stores it under the global-dispatcher symbol
 * that both copies of undici read, the first time a fetch global is touched,
 * unless the `undici` package got there first. So captureFetchAgent() must
 * run before anything loads `undici` (see capture-fetch-agent.ts), and only
 * in a process that runs the peer: touching fetch loads Node's undici.
 */

const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** The part of an undici Dispatcher this bench uses. */
export interface FetchDispatcher {
  close(): Promise<void>;
}

type AgentClass = new (options: { connect: unknown }) => FetchDispatcher;

const slot = globalThis as unknown as Record<symbol, FetchDispatcher | undefined>;
let captured = false;
let bundledDefault: FetchDispatcher | undefined;

/** Loads Node's fetch and keeps its default Agent, unless the `undici` package already took the slot. */
export function captureFetchAgent(): void {
  if (captured) return;
  captured = true;
  if (slot[GLOBAL_DISPATCHER] !== undefined) return;
  void globalThis.Response;
  bundledDefault = slot[GLOBAL_DISPATCHER];
}

/** A new Agent of Node's bundled undici, the class `fetch` uses by default. */
export function bundledFetchAgent(options: { connect: unknown }): FetchDispatcher {
  captureFetchAgent();
  if (!bundledDefault) {
    throw new Error("bench: Node's own fetch Agent was not found: capture-fetch-agent must be imported before the undici package");
  }
  const Agent = bundledDefault.constructor as AgentClass;
  return new Agent(options);
}

/** Makes `dispatcher` the one every `fetch` in this process uses. */
export function setFetchDispatcher(dispatcher: FetchDispatcher): void {
  slot[GLOBAL_DISPATCHER] = dispatcher;
}

/** Puts Node's own Agent back where `dispatcher` was the process's, so requests after a closed peer still have one. */
export function restoreFetchDispatcher(dispatcher: FetchDispatcher): void {
  if (slot[GLOBAL_DISPATCHER] === dispatcher) slot[GLOBAL_DISPATCHER] = bundledDefault;
}
