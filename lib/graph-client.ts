import { AgentUserError, exitCodeForStatus, MalformedAnswerError, type ExitCode } from "./errors";
import { operationOf, permissionHint } from "./graph-permissions";
import { shapeProblem, type Shape } from "./graph-shape";
import { BODY_LIMITS, parseRetryAfter, ResponseTooLargeError, send, type HttpOptions, type HttpRequest, type HttpResponse } from "./http";
import { isGuid } from "./entra-rules";
import { isObject } from "./json-value";
import { peerText, scrubSent, scrubSentJson } from "./redact";
import { DEFAULT_RETRY, lagTolerant, NO_CONSISTENCY_WINDOW_MS, transientOnly, withRetry, type RetryHooks, type RetryPolicy } from "./retry";
import { throttledSend } from "./throttle";

/** Graph's error envelope. */
export interface GraphErrorBody {
  error: {
    code: string;
    message: string;
    innerError?: GraphInnerError;
  };
}
export interface GraphInnerError {
  code?: string;
  date?: string;
  "request-id"?: string;
  "client-request-id"?: string;
  innerError?: GraphInnerError;
}

/** A page of a Graph collection. */
export interface GraphPage<T> {
  value: T[];
  "@odata.nextLink"?: string;
}

// An array, not a Set: Pulumi's closure serializer cannot carry a Set into a dynamic provider.
const NOT_FOUND_CODES: readonly string[] = ["Request_ResourceNotFound", "ResourceNotFound", "itemNotFound", "NotFound"];

/**
 * Microsoft Graph answered with an error. Branches on codes, never on messages:
 * `code` is the top-level `error.code`, `codes` the nested `innerError.code` values,
 * each as printable as the message, since Graph's codes are the peer's text too.
 * The answer comes scrubbed of what the call sent (GraphClient's attempt does it,
 * the one place that knows what that was); `requestId` is kept only when it is a
 * GUID, as Graph's are: anything else there is not an id worth a support case.
 */
export class GraphError extends AgentUserError {
  readonly exitCode: ExitCode;
  declare readonly status: number;
  declare readonly codes: readonly string[];
  readonly requestId?: string;
  /** The raw answer, for callers that record responses verbatim. */
  readonly response: HttpResponse;

  constructor(step: string, response: HttpResponse) {
    const body = parseErrorBody(response.body);
    const code = body ? peerText(body.error.code) : `http_${response.status}`;
    const innerCodes: string[] = [];
    // Field by field, as typed: a hostile or broken answer (a message that is an object, an endless chain) stays an answer.
    let inner: unknown = body?.error.innerError;
    for (let depth = 0; depth < 10 && isObject(inner); depth++) {
      const { code: innerCode, innerError } = inner as { code?: unknown; innerError?: unknown };
      if (typeof innerCode === "string") innerCodes.push(peerText(innerCode));
      inner = innerError;
    }
    const message = typeof body?.error.message === "string" ? peerText(body.error.message.trim()) : "";
    super(step, `${code} (HTTP ${response.status})${message ? `: ${message}` : ""}`, {
      code,
      status: response.status,
      codes: innerCodes,
      retryAfterMs: parseRetryAfter(response.headers["retry-after"]),
      hint: graphHint(response.status, code, step),
    });
    const ids: unknown[] = [isObject(body?.error.innerError) ? body.error.innerError["request-id"] : undefined, response.headers["request-id"]];
    this.requestId = ids.find(isGuid);
    this.response = response;
    this.exitCode = exitCodeForStatus(response.status);
  }

  override get transient(): boolean {
    return this.status === 429 || this.status >= 500;
  }

  /** Not found, which right after a create usually means "not replicated yet". */
  get notFound(): boolean {
    return this.status === 404 || [this.code, ...this.codes].some((c) => NOT_FOUND_CODES.includes(c));
  }
}

/**
 * The fix when a tenant refuses a secret or a certificate on a blueprint:
 * Entra's create-blueprint page says only some tenants accept password or key
 * credentials on a blueprint, and documents no error code for the refusal.
 */
export const USE_MANAGED_IDENTITY =
  "use `credential: managedIdentity` (agent-user-kit:credential managedIdentity), a managed identity's federated credential";

/** What a Graph refusal means and what to do (docs/protocol.md, "Graph codes"). */
function graphHint(status: number, code: string, step: string): string {
  if (status >= 300 && status < 400) return "Graph does not redirect these calls: the Graph URL points at something else (a proxy, a sign-in page); check it";
  if (status === 401) return "the bearer token was refused; check the provisioner credential and that the token is for Microsoft Graph";
  // The step is "Graph {method} {path}": the permission table knows what the call takes.
  const [, method, path] = /^Graph (\S+) (\S+)/.exec(step) ?? [];
  if (status === 403) {
    const needed = method && path ? permissionHint(method, path) : undefined;
    return `${needed ?? "the caller lacks a Graph permission for this call"}; grant the application permissions listed in docs/pulumi.md, "The provisioner application" (an Azure CLI sign-in is always refused by the Agent ID APIs)`;
  }
  if (status === 400) {
    const op = method && path ? operationOf(method, path) : undefined;
    if (op === "blueprint.password.add" || op === "blueprint.certificate.update") {
      return `this tenant may refuse secrets and certificates on agent identity blueprints: ${USE_MANAGED_IDENTITY}`;
    }
  }
  if (status === 404 || NOT_FOUND_CODES.includes(code)) return "the object does not exist, or was created moments ago and has not replicated yet";
  if (status === 429 || status >= 500) return "Microsoft Graph is throttling or unavailable; retry later";
  return "check the request's inputs against the error code";
}

function parseErrorBody(text: string): GraphErrorBody | undefined {
  try {
    const json = JSON.parse(text) as GraphErrorBody;
    return json && typeof json.error?.code === "string" ? json : undefined;
  } catch {
    return undefined;
  }
}

/** A refusal decided here, not by Graph, in Graph's own error shape so callers handle one kind of error. */
function clientSideError(step: string, status: number, code: string, message: string): GraphError {
  return new GraphError(step, { status, headers: {}, body: JSON.stringify({ error: { code, message } }), ms: 0 });
}

/** A collection longer than this is taken for a server that pages forever. */
const MAX_PAGES = 1000;

const MALFORMED_GRAPH_HINT = "Microsoft Graph, or a proxy in front of it, answered with something Graph does not send; check the Graph URL and any proxy";

/** A 2xx answer that is not what the call reads: final, named by its call, never a crash. */
function malformedGraph(step: string, detail: string): MalformedAnswerError {
  return new MalformedAnswerError(step, detail, undefined, MALFORMED_GRAPH_HINT);
}

const stepOf = (method: string, url: string) => `Graph ${method} ${new URL(url).pathname}`;

/**
 * Graph's properties that carry a credential in a request's body: a
 * passwordCredential's secretText, a keyCredential's key, a passwordProfile's
 * password. An array, not a Set, for Pulumi's closure serializer.
 */
const CREDENTIAL_PROPERTIES: readonly string[] = ["secretText", "key", "password"];

/**
 * A call's body as sent, and the credentials in it, which an answer must not
 * echo back. The ids, names and URIs stay, so that an error naming one says
 * which it is about. One JSON.stringify does both: it walks the body anyway,
 * and a body it can serialize, the replacer can read.
 */
function requestBody(body: unknown): { text?: string; credentials: string[] } {
  if (body === undefined) return { credentials: [] };
  const credentials: string[] = [];
  const text = JSON.stringify(body, (name: string, value: unknown) => {
    if (typeof value === "string" && CREDENTIAL_PROPERTIES.includes(name)) credentials.push(value);
    return value;
  });
  return { text, credentials };
}

/**
 * An answer with no value of `sent` in it (the bearer token, the body's
 * credentials), error or success, whatever escapes its JSON spells them
 * with: it goes on into an error, a caller's hands, a log or a report. The
 * headers too: a peer may echo into its request-id.
 */
function scrubbedAnswer(res: HttpResponse, sent: readonly string[]): HttpResponse {
  const headers = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, scrubSent(value, sent)]));
  return { ...res, headers, body: scrubSentJson(res.body, sent) };
}

export interface GraphClientOptions extends HttpOptions {
  /** e.g. https://graph.microsoft.com; paths are appended to it. */
  baseUrl: string;
  /** A bearer token for Graph; called once per attempt so a refreshed token is used. */
  getToken: () => Promise<string>;
  retry?: RetryPolicy;
  hooks?: RetryHooks;
}

export interface GraphCallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send OData-Version 4.0, which the Entra how-to requires where a body names its Agent ID @odata.type, and the typed URLs take. */
  agentId?: boolean;
  /** Also retry not-found for this long: the next step after a create races replication. */
  consistencyWindowMs?: number;
  /** The fields the caller reads: of the answer for `call`, of each item for `list`; a mismatch is a malformed answer. */
  shape?: Shape;
}

export interface GraphResult<T> {
  status: number;
  headers: Record<string, string>;
  /** The parsed answer: a JSON object, or undefined for a 204. */
  body: T;
  /** The answer's size in bytes (UTF-8), for budgets over several answers. */
  bytes: number;
}

export class GraphClient {
  readonly baseUrl: string;
  private readonly options: GraphClientOptions;

  constructor(options: GraphClientOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
  }

  /**
   * One call, with transient failures retried; the final answer is returned
   * whatever its status. For probes that record what Graph says verbatim.
   */
  async raw(method: HttpRequest["method"], pathOrUrl: string, call: GraphCallOptions = {}): Promise<HttpResponse> {
    try {
      return await this.attempt(method, pathOrUrl, call);
    } catch (err) {
      if (err instanceof GraphError) return err.response;
      throw err;
    }
  }

  /**
   * One call. A status outside 2xx is thrown as a GraphError. A 204 has no
   * body; any other answer must be a JSON object, of `call.shape` when given,
   * or it is a malformed answer (exit 3) naming the call.
   */
  async call<T = unknown>(method: HttpRequest["method"], pathOrUrl: string, call: GraphCallOptions = {}): Promise<GraphResult<T>> {
    const res = await this.attempt(method, pathOrUrl, call);
    const result = { status: res.status, headers: res.headers, bytes: Buffer.byteLength(res.body) };
    if (res.status === 204) return { ...result, body: undefined as T };
    const step = stepOf(method, this.resolve(pathOrUrl));
    if (res.body.trim() === "") throw malformedGraph(step, `the HTTP ${res.status} answer has no body`);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      // Typically a proxy's HTML page; its text is not repeated, as it may echo the request.
      throw malformedGraph(step, `the HTTP ${res.status} answer is not JSON (content-type ${res.headers["content-type"] ?? "none"})`);
    }
    const problem = call.shape ? shapeProblem(body, call.shape, "the answer") : isObject(body) ? undefined : "the answer is not a JSON object";
    if (problem) throw malformedGraph(step, problem);
    return { ...result, body: body as T };
  }

  /**
   * Every item of a collection, following @odata.nextLink until it is
   * absent. Each page must hold a `value` list, each item an object (of
   * `call.shape` when given); the pages together may hold at most
   * BODY_LIMITS.graphList bytes, each one BODY_LIMITS.graph.
   */
  async list<T>(path: string, call: GraphCallOptions = {}): Promise<T[]> {
    const { shape, ...pageCall } = call;
    const step = stepOf("GET", this.resolve(path));
    const items: T[] = [];
    const seen: string[] = [];
    let bytes = 0;
    for (let next: string | undefined = path; next; ) {
      if (seen.includes(next) || seen.length >= MAX_PAGES) {
        throw clientSideError(`Graph GET ${path}`, 502, "pagingLoop", `paging stopped after ${seen.length} pages: @odata.nextLink repeats a page or never ends`);
      }
      seen.push(next);
      const page = await this.call<Partial<GraphPage<unknown>> | undefined>("GET", next, pageCall);
      bytes += page.bytes;
      if (bytes > BODY_LIMITS.graphList) throw new ResponseTooLargeError(step, BODY_LIMITS.graphList, undefined, `the collection, its ${seen.length} pages together,`);
      const value: unknown = page.body?.value;
      if (!Array.isArray(value)) throw malformedGraph(step, `page ${seen.length}: value is ${value === undefined ? "missing" : "not a list"}`);
      // One push per item: spreading a page of millions of items into push's arguments overflows the stack.
      for (let i = 0; i < value.length; i++) {
        const problem = shape ? shapeProblem(value[i], shape, `value[${i}]`) : isObject(value[i]) ? undefined : `value[${i}] is not an object`;
        if (problem) throw malformedGraph(step, `page ${seen.length}: ${problem}`);
        items.push(value[i] as T);
      }
      const link: unknown = page.body?.["@odata.nextLink"];
      if (link !== undefined && link !== null && typeof link !== "string") throw malformedGraph(step, `page ${seen.length}: @odata.nextLink is not a string`);
      next = link ?? undefined;
    }
    return items;
  }

  /** Resolves a path or a nextLink, refusing to send the bearer token to any other origin. */
  resolve(pathOrUrl: string): string {
    if (!/^https?:\/\//i.test(pathOrUrl)) return `${this.baseUrl}${pathOrUrl.startsWith("/") ? "" : "/"}${pathOrUrl}`;
    if (new URL(pathOrUrl).origin !== new URL(this.baseUrl).origin) {
      throw clientSideError(`Graph GET ${pathOrUrl}`, 400, "foreignNextLink", `a link points outside ${this.baseUrl}; not following it with a token`);
    }
    return pathOrUrl;
  }

  private async attempt(method: HttpRequest["method"], pathOrUrl: string, call: GraphCallOptions): Promise<HttpResponse> {
    const url = this.resolve(pathOrUrl);
    const step = stepOf(method, url);
    const base = this.options.retry ?? DEFAULT_RETRY;
    const window = call.consistencyWindowMs ?? NO_CONSISTENCY_WINDOW_MS;
    const { policy, classify } =
      window > 0 ? lagTolerant(base, window, (err) => err instanceof GraphError && err.notFound, this.options.hooks?.now) : { policy: base, classify: transientOnly };
    const { text: body, credentials } = requestBody(call.body);
    return withRetry(
      async () => {
        const token = await this.options.getToken();
        const headers: Record<string, string> = {
          accept: "application/json",
          authorization: `Bearer ${token}`,
          ...(call.agentId ? { "odata-version": "4.0" } : {}),
          ...(call.body !== undefined ? { "content-type": "application/json" } : {}),
          ...call.headers,
        };
        // Graph throttles per application: every client of this Graph in the process (one provisioner, or one agent) shares one wait.
        const res = await throttledSend(this.baseUrl, this.options.hooks, undefined, () =>
          send(step, { method, url, headers, body }, { maxBodyBytes: BODY_LIMITS.graph, ...this.options }),
        );
        // A proxy or a hostile peer may echo what was sent: nothing past this line sees it.
        const scrubbed = scrubbedAnswer(res, [token, ...credentials]);
        // A redirect is not followed (it would carry the token elsewhere): like an error, it is not the answer asked for.
        if (res.status < 200 || res.status >= 300) throw new GraphError(step, scrubbed);
        return scrubbed;
      },
      policy,
      classify,
      this.options.hooks,
    );
  }
}
