import type { Dispatcher } from "undici";

/**
 * undici's request API without the rest of undici. `require("undici")` costs
 * about 125 ms of start-up (`npm run bench`), most of it fetch, WebSocket,
 * cache and mock code this kit never calls; the dispatcher, its request API
 * and the global Agent cost about 40. These are undici's own files, reached
 * past its index: package.json pins undici exactly, and a test checks that
 * each path still exists and still exports what is used here.
 */
export const UNDICI_FILES = ["undici/lib/dispatcher/dispatcher", "undici/lib/api", "undici/lib/global"] as const;

type RequestOptions = Omit<Dispatcher.RequestOptions, "origin" | "path"> & { dispatcher?: Dispatcher };
type Request = (url: string, options: RequestOptions) => Promise<Dispatcher.ResponseData>;

function load(): Request {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const dispatcher = require(UNDICI_FILES[0]) as { prototype: object };
  const api = require(UNDICI_FILES[1]) as object;
  const { getGlobalDispatcher } = require(UNDICI_FILES[2]) as { getGlobalDispatcher(): Dispatcher };
  /* eslint-enable @typescript-eslint/no-require-imports */
  // What undici's index does: its Dispatcher gets request() and the other API methods.
  Object.assign(dispatcher.prototype, api);
  return (url, options) => {
    const target = new URL(url);
    const { dispatcher: chosen, ...rest } = options;
    return (chosen ?? getGlobalDispatcher()).request({ ...rest, origin: target.origin, path: `${target.pathname}${target.search}` });
  };
}

/**
 * undici's `request(url, options)`, as `import { request } from "undici"`
 * gives it. Loaded at the first request, not at import, so an agent that
 * imports the package but mints later starts faster; kept on globalThis, as
 * Pulumi's closure serializer must not meet it in a module variable.
 */
export function request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const slot = globalThis as unknown as Record<symbol, Request | undefined>;
  return (slot[Symbol.for("agent-user-kit.undici-request")] ??= load())(url, options);
}
