/**
 * Microsoft Graph as HashiCorp's msgraph client calls it for azuread
 * (go-azure-sdk sdk/client/msgraph/client.go and sdk/client/client.go): the
 * base `{graph}/v1.0` or `{graph}/beta`, a bearer token on every request,
 * `Content-Type: application/json; charset=utf-8` even on a GET, the OData
 * headers of sdk/odata/query.go, JSON bodies with their keys sorted (the
 * generated models re-marshal through a map), the expected status codes of
 * each generated method, and its error text:
 * `unexpected status 400 (400 Bad Request) with error: Code: message`.
 * Its retries: 408 and 424 always, then the operation's own retry rule,
 * then go-retryablehttp's default (429, and 5xx but 501).
 * An independent client on purpose: it plays HashiCorp's, as a judge of the
 * emulator, and shares nothing with the kit's own Graph client.
 */
import { exchangeWithRetries, type HttpAnswer, type HttpOptions } from "./http";

export type GraphVersion = "v1.0" | "beta";

/** Graph's error object, as sdk/odata/errors.go reads it. */
export interface ODataError {
  code?: string;
  message?: string;
  innerError?: ODataError;
}

export interface GraphCall {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** From the version on, e.g. `/applications/{id}`. */
  path: string;
  version?: GraphVersion;
  query?: Record<string, string>;
  body?: unknown;
  /** The status codes the generated method accepts; any other is an error. */
  expect: readonly number[];
  /** The operation's RetryFunc: retry this answer, e.g. a 404 while a new object replicates. */
  retryOn?: (status: number, error: ODataError | undefined) => boolean;
}

export interface GraphAnswer {
  status: number;
  body: unknown;
}

/** A Graph answer the call did not expect, with go-azure-sdk's text. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly odata: ODataError | undefined,
    message: string,
  ) {
    super(message);
    this.name = "GraphError";
  }
}

export const USER_AGENT = "agent-user-kit-azuread-stand-in (test only; stands in for terraform-provider-azuread inside pulumi-azuread)";

/** The same value with every object's keys in order, as Go's encoding/json writes a map. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortedKeys(v)]));
}

/** `message` may be a string or `{ value }` (sdk/odata/errors.go UnmarshalJSON). */
function messageOf(raw: unknown): string | undefined {
  if (typeof raw === "string") return raw;
  if (typeof raw === "object" && raw !== null && typeof (raw as { value?: unknown }).value === "string") return (raw as { value: string }).value;
  return undefined;
}

function odataErrorFrom(raw: unknown): ODataError | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const fields = raw as Record<string, unknown>;
  return {
    code: typeof fields.code === "string" ? fields.code : undefined,
    message: messageOf(fields.message),
    innerError: odataErrorFrom(fields.innerError),
  };
}

/** The `error` of a JSON answer, if it has one. */
export function odataErrorOf(text: string): ODataError | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === "object" && body !== null ? odataErrorFrom((body as { error?: unknown }).error) : undefined;
  } catch {
    return undefined;
  }
}

/** Error.String(): code, message and the inner error's, joined by ": ". */
export function odataErrorText(error: ODataError): string {
  const inner = error.innerError ? odataErrorText(error.innerError) : "";
  return [error.code, error.message, inner || undefined].filter((part): part is string => part !== undefined).join(": ");
}

/** client.go Execute's error for a status the method does not expect. */
export function unexpectedStatus(answer: HttpAnswer): GraphError {
  const error = odataErrorOf(answer.text);
  const text = error ? odataErrorText(error) : "";
  const status = `${answer.status} (${answer.statusLine})`;
  if (text) return new GraphError(answer.status, error, `unexpected status ${status} with error: ${text}`);
  if (answer.text.length === 0) return new GraphError(answer.status, undefined, `unexpected status ${status} received with no body`);
  return new GraphError(answer.status, undefined, `unexpected status ${status} with response: ${answer.text}`);
}

/** Retried whatever the operation: eventual consistency (424, 408), throttling and server trouble (retryablehttp's default). */
function alwaysRetried(status: number): boolean {
  return status === 408 || status === 424 || status === 429 || status === 0 || (status >= 500 && status !== 501);
}

/** The status codes go-azure-sdk's generated methods accept, by kind of method. */
export const EXPECTED = {
  get: [200],
  create: [202, 201, 204, 200],
  update: [202, 204, 200],
  delete: [204, 200],
} as const;

export const wasNotFound = (err: unknown): boolean => err instanceof GraphError && err.status === 404;

export class Graph {
  constructor(
    private readonly origin: string,
    private readonly token: () => Promise<string>,
    private readonly http: HttpOptions = {},
  ) {}

  async call(call: GraphCall): Promise<GraphAnswer> {
    let token: string;
    try {
      token = await this.token();
    } catch (err) {
      throw new Error(`authorizing request: ${(err as Error).message}`);
    }
    const url = new URL(`${this.origin}/${call.version ?? "v1.0"}${call.path}`);
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const request = {
      method: call.method,
      url: url.toString(),
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json; charset=utf-8",
        Accept: "application/json; charset=utf-8; IEEE754Compatible=false",
        "OData-MaxVersion": "4.0",
        "OData-Version": "4.0",
        "User-Agent": USER_AGENT,
      },
      body: call.body === undefined ? undefined : JSON.stringify(sortedKeys(call.body)),
    };
    const retry = (answer: HttpAnswer) =>
      !call.expect.includes(answer.status) && (alwaysRetried(answer.status) || (call.retryOn?.(answer.status, odataErrorOf(answer.text)) ?? false));
    const answer = await exchangeWithRetries(request, retry, this.http);
    if (!call.expect.includes(answer.status)) throw unexpectedStatus(answer);
    return { status: answer.status, body: answer.text ? (JSON.parse(answer.text) as unknown) : undefined };
  }

  /** A collection's every page, following `@odata.nextLink` (client.go ExecutePaged), at most `maxPages`. */
  async list(path: string, query: Record<string, string>, maxPages = 50): Promise<unknown[]> {
    const items: unknown[] = [];
    let next: GraphCall | undefined = { method: "GET", path, query, expect: [200] };
    for (let page = 0; next && page < maxPages; page++) {
      const { body } = await this.call(next);
      const { value, "@odata.nextLink": link } = (body ?? {}) as { value?: unknown; "@odata.nextLink"?: unknown };
      if (Array.isArray(value)) items.push(...value);
      next = typeof link === "string" ? this.pageCall(link) : undefined;
    }
    return items;
  }

  /** A next link is absolute; its path and query, from the version on, are another call. */
  private pageCall(link: string): GraphCall {
    const url = new URL(link);
    const [, version, ...rest] = url.pathname.split("/");
    if (url.origin !== new URL(this.origin).origin || (version !== "v1.0" && version !== "beta")) throw new Error(`a next link off Graph's origin: ${link}`);
    return { method: "GET", version, path: `/${rest.join("/")}`, query: Object.fromEntries(url.searchParams), expect: [200] };
  }
}
