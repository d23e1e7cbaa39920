import type { Dispatcher } from "undici";

/**
 * undici's request API without the rest of undici. `require("undici")` costs
 * about 125 ms of start-up (`npm run bench`), most of it fetch, WebSocket,
 * cache and mock code this kit never calls. The build bundles what is called
 * (the Dispatcher with its request API, and the global Agent) from the exactly
 * pinned undici into one file, without node:http2: see scripts/bundle-undici.js.
 */
interface UndiciBundle {
  request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  getGlobalDispatcher(): Dispatcher;
}

type RequestOptions = Omit<Dispatcher.RequestOptions, "origin" | "path"> & { dispatcher?: Dispatcher };
type Request = (url: string, options: RequestOptions) => Promise<Dispatcher.ResponseData>;

/* eslint-disable @typescript-eslint/no-require-imports */
function bundle(): UndiciBundle {
  try {
    return require("./undici-bundle") as UndiciBundle;
  } catch (err) {
    if ((err as { code?: string }).code !== "MODULE_NOT_FOUND") throw err;
    // Pulumi's closure serializer copies this function's text into a dynamic provider of a program that
    // uses the kit from source (as infra/stack.ts does): compiled with no file of its own, it has no
    // "./undici-bundle" beside it, so it takes the same API from undici's own files (pinned, like the bundle).
    return { request: (require("undici/lib/api") as { request: UndiciBundle["request"] }).request, getGlobalDispatcher: (require("undici/lib/global") as UndiciBundle).getGlobalDispatcher };
  }
}
/* eslint-enable @typescript-eslint/no-require-imports */

function load(): Request {
  const { request, getGlobalDispatcher } = bundle();
  // The last URL parsed: a token client asks the same endpoint again and again, and parsing is most of this wrapper.
  let last = { url: "", origin: "", path: "" };
  return (url, options) => {
    if (url !== last.url) {
      const target = new URL(url);
      last = { url, origin: target.origin, path: `${target.pathname}${target.search}` };
    }
    const { dispatcher: chosen, ...rest } = options;
    const target = { ...rest, origin: last.origin, path: last.path };
    // undici's request() takes its dispatcher as `this`: any dispatcher, this bundle's or the caller's own undici's.
    if (chosen) return request.call(chosen, target);
    return withConnectionSlot(target.origin, rest.signal as RequestSignal, () => request.call(getGlobalDispatcher(), target));
  };
}

/**
 * Requests of this kit on the global dispatcher at once, per origin. The
 * global dispatcher opens a connection per concurrent request with no limit:
 * 20,000 callers would be 20,000 sockets, and a process out of file
 * descriptors. Past this many, requests wait their turn, first come first
 * served. A caller's own `dispatcher` sets its own limits instead.
 */
export const MAX_CONNECTIONS_PER_ORIGIN = 64;

/** Requests on the wire per origin, and those waiting for one of them to end. */
interface OriginSlots {
  active: number;
  waiting: Array<() => void>;
}

/**
 * Per process, on globalThis under a registered symbol, as Pulumi's closure
 * serializer cannot carry a Map: every client in the process shares the limit.
 */
function originSlots(): Map<string, OriginSlots> {
  const slot = globalThis as unknown as Record<symbol, Map<string, OriginSlots> | undefined>;
  return (slot[Symbol.for("agent-user-kit.undici-request.origin-slots")] ??= new Map());
}

type RequestSignal = AbortSignal | null | undefined;

/** Calls `listener` once when `signal` fires; returns what removes it. */
function onAbort(signal: RequestSignal, listener: () => void): () => void {
  if (!signal) return () => undefined;
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

/**
 * Runs `start` when `origin` has a free slot, holding the slot until the
 * answer's body has been read or dropped (its connection is busy until
 * then). A request whose signal fires while it waits leaves the queue with
 * the signal's reason, as undici rejects an aborted request.
 */
function withConnectionSlot(origin: string, signal: RequestSignal, start: () => Promise<Dispatcher.ResponseData>): Promise<Dispatcher.ResponseData> {
  const slots = originSlots();
  const known = slots.get(origin);
  const here = known ?? { active: 0, waiting: [] };
  if (!known) slots.set(origin, here);
  const release = () => {
    here.active--;
    const next = here.waiting.shift();
    if (next) next();
    else if (here.active === 0 && slots.get(origin) === here) slots.delete(origin);
  };
  const run = (): Promise<Dispatcher.ResponseData> => {
    here.active++;
    let started: Promise<Dispatcher.ResponseData>;
    try {
      started = start();
    } catch (err) {
      release();
      return Promise.reject(err as Error);
    }
    return started.then(
      (res) => {
        res.body.once("close", release);
        return res;
      },
      (err: unknown) => {
        release();
        throw err;
      },
    );
  };
  if (here.active < MAX_CONNECTIONS_PER_ORIGIN) return run();
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    // Declared before the functions that use it: Pulumi's closure serializer reads a name used ahead of its declaration as missing.
    const listening = { stop: (): void => undefined };
    const turn = () => {
      listening.stop();
      run().then(resolve, reject);
    };
    listening.stop = onAbort(signal, () => {
      const at = here.waiting.indexOf(turn);
      if (at >= 0) here.waiting.splice(at, 1);
      reject(signal!.reason as Error);
    });
    here.waiting.push(turn);
  });
}

/**
 * undici's `request(url, options)`, as `import { request } from "undici"`
 * gives it. Loaded at the first request, not at import, so an agent that
 * imports the package but mints later starts faster; kept on globalThis, as
 * Pulumi's closure serializer must not meet it in a module variable.
 */
export function request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  return loadRequest()(url, options);
}

/** Loads undici's request API now if it is not loaded yet (the CLI does, before it changes a V8 flag). */
export function loadRequest(): Request {
  const slot = globalThis as unknown as Record<symbol, Request | undefined>;
  return (slot[Symbol.for("agent-user-kit.undici-request")] ??= load());
}
