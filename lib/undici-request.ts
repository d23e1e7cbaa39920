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
    // undici's request() takes its dispatcher as `this`: any dispatcher, this bundle's or the caller's own undici's.
    return request.call(chosen ?? getGlobalDispatcher(), { ...rest, origin: last.origin, path: last.path });
  };
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
