import { aadstsHint, isTransientAadsts } from "./aadsts";
import { AgentUserError, exitCodeForStatus, MalformedAnswerError, type ExitCode } from "./errors";
import { parseRetryAfter, send, type HttpOptions } from "./http";
import { isGuid, MAX_TOKEN_LIFETIME_S } from "./entra-rules";
import { isObject } from "./json-value";
import { quoteValue } from "./printable";
import { peerText, scrubSent } from "./redact";
import { DEFAULT_RETRY, transientOnly, withRetry, type Classifier, type RetryHooks, type RetryPolicy } from "./retry";
import { throttledSend } from "./throttle";

/** Successful answer of `/oauth2/v2.0/token`. */
export interface TokenResponse {
  token_type: string;
  access_token: string;
  expires_in: number;
  ext_expires_in?: number;
  scope?: string;
}

/** Error answer of `/oauth2/v2.0/token` as Entra sends it. */
export interface TokenErrorBody {
  error: string;
  error_description?: string;
  error_codes?: number[];
  timestamp?: string;
  trace_id?: string;
  correlation_id?: string;
  error_uri?: string;
}

/** Facts a caller of the token endpoint knows about a refusal beyond its answer. */
export interface TokenRefusalFacts {
  retryAfterMs?: number;
  hop?: number;
  /** Replaces the AADSTS code's hint, e.g. once a consistency window has been spent. */
  hint?: string;
}

/** The identity provider answered a token request with an error; `code` is its OAuth `error`, `codes` its AADSTS numbers. */
export class TokenEndpointError extends AgentUserError {
  readonly exitCode: ExitCode;
  declare readonly status: number;
  declare readonly codes: readonly number[];
  /** The OAuth `error`, as `code` also holds it. */
  readonly error: string;
  readonly description: string;
  readonly traceId?: string;
  readonly correlationId?: string;

  constructor(step: string, status: number, body: TokenErrorBody, facts: TokenRefusalFacts = {}) {
    const codes = body.error_codes ?? [];
    const description = summarize(body.error_description ?? "");
    // The error code is the peer's text too: what it echoes is shown as safely as its description.
    const error = peerText(body.error);
    const label = codes.length > 0 ? `${codes.map((c) => `AADSTS${c}`).join(", ")} ${error}` : error;
    super(step, `${label} (HTTP ${status})${description ? `: ${description}` : ""}`, {
      code: error,
      status,
      codes,
      hop: facts.hop,
      retryAfterMs: facts.retryAfterMs,
      hint: facts.hint ?? aadstsHint(codes, body.error),
    });
    this.error = error;
    this.description = description;
    this.traceId = body.trace_id;
    this.correlationId = body.correlation_id;
    this.exitCode = exitCodeForStatus(status);
  }

  /** The same refusal with a hint that knows more than the AADSTS code (a consistency window already spent). */
  withHint(hint: string): TokenEndpointError {
    const body = { error: this.error, error_description: this.description, error_codes: [...this.codes], trace_id: this.traceId, correlation_id: this.correlationId };
    return new TokenEndpointError(this.step, this.status, body, { retryAfterMs: this.retryAfterMs, hop: this.hop, hint });
  }

  /** A 400, 401 or 403 is final whatever code it carries (a 401 with AADSTS90024 is not worth five more tries). */
  override get transient(): boolean {
    if (this.status === 400 || this.status === 401 || this.status === 403) return false;
    return this.status === 429 || this.status >= 500 || this.codes.some(isTransientAadsts);
  }
}

/** Entra's description repeats the code and appends ids and a timestamp; keep the sentence. */
function summarize(description: string): string {
  const sentence = description.replace(/^AADSTS\d+:\s*/, "").split(/\s*(?:\r?\n|Trace ID:)/)[0] ?? "";
  return peerText(sentence.trim());
}

export interface TokenClientOptions extends HttpOptions {
  retry?: RetryPolicy;
  /** Which failures to retry; transient ones (429, 5xx, network) by default. */
  classify?: Classifier;
  hooks?: RetryHooks;
}

export interface TokenResult {
  response: TokenResponse;
  /** Wall time of the whole call, retries included. */
  ms: number;
  attempts: number;
}

/**
 * application/x-www-form-urlencoded, as any form parser reads it. Same pairs
 * as URLSearchParams, at a third of the cost on JWT-sized values (`npm run
 * bench`): encodeURIComponent is native, URLSearchParams encodes in JS.
 */
export function formEncode(params: Readonly<Record<string, string>>): string {
  let out = "";
  try {
    for (const name of Object.keys(params)) out += `${out ? "&" : ""}${formValue(name)}=${formValue(params[name]!)}`;
  } catch {
    // A lone surrogate (URIError): URLSearchParams sends U+FFFD in its place.
    return new URLSearchParams(params).toString();
  }
  return out;
}

/** Characters encodeURIComponent leaves as they are: ids, scopes' GUIDs and JWTs are made of them only. */
const FORM_SAFE = /^[\w.~-]*$/;

/** Testing is cheaper than encoding a JWT that needs no escaping (measured by `npm run bench`). */
const formValue = (value: string) => (FORM_SAFE.test(value) ? value : encodeURIComponent(value));

export function tokenEndpoint(authority: string, tenant: string): string {
  return `${authority.replace(/\/+$/, "")}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
}

/** The form fields that carry a credential (a secret, an assertion, T1, T2, the person's token of on-behalf-of). */
const CREDENTIAL_FIELDS = ["client_secret", "client_assertion", "user_federated_identity_credential", "assertion"];

/**
 * What an error answer must not echo back: the credentials only. The ids,
 * scope and grant type stay, so that "Application with identifier '…' was
 * not found" names the id that was not found.
 */
function credentialsIn(params: Readonly<Record<string, string>>): string[] {
  return CREDENTIAL_FIELDS.flatMap((field) => (params[field] === undefined ? [] : [params[field]]));
}

/**
 * POSTs one form-encoded token request. `params` holds credentials, so it is
 * only ever put in the request body: never in a URL, a message or a log line.
 */
export async function requestToken(
  step: string,
  endpoint: string,
  params: Readonly<Record<string, string>>,
  options: TokenClientOptions = {},
): Promise<TokenResult> {
  const body = formEncode(params);
  const started = performance.now();
  let attempts = 0;
  const response = await withRetry(
    async () => {
      // The endpoint names the tenant, which is what Entra throttles by: callers in this process share one wait.
      const res = await throttledSend(endpoint, options.hooks, options.signal, () => {
        attempts++;
        return send(step, { method: "POST", url: endpoint, headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body }, options);
      });
      return parseTokenResponse(step, res.status, res.body, { retryAfterMs: parseRetryAfter(res.headers["retry-after"]), hop: options.hop }, credentialsIn(params));
    },
    options.retry ?? DEFAULT_RETRY,
    options.classify ?? transientOnly,
    options.hooks,
    options.signal,
  );
  return { response, ms: performance.now() - started, attempts };
}

/**
 * The token of a 200 answer, or the error of any other. `sent` are the
 * credentials of the request: an error answer may echo them (a proxy, a
 * hostile peer), so they are removed from each of its strings once parsed,
 * whatever escapes spelled them in the JSON (`\u0061`, `\/`); an answer that
 * is not JSON is not quoted at all.
 */
export function parseTokenResponse(step: string, status: number, text: string, facts: TokenRefusalFacts = {}, sent: readonly string[] = []): TokenResponse {
  const json = parseJson(text);
  // A 200 that is not a token is final: asking again gets the same answer from whatever sent it.
  if (status === 200) {
    if (!json) throw new MalformedAnswerError(step, "the answer is not a JSON object", facts.hop);
    if (typeof json.access_token !== "string") throw new MalformedAnswerError(step, "access_token is missing or not a string", facts.hop);
    // A token is one line of base64url and dots; a line break in it would later split a header or a form.
    if (!/^[\x21-\x7e]+$/.test(json.access_token)) {
      throw new MalformedAnswerError(step, "the access_token holds whitespace, line breaks or other characters no token has", facts.hop);
    }
    const lifetime = (field: "expires_in" | "ext_expires_in") => lifetimeOf(step, field, json[field], facts.hop);
    return {
      token_type: String(json.token_type ?? "Bearer"),
      access_token: json.access_token,
      expires_in: lifetime("expires_in"),
      ext_expires_in: json.ext_expires_in === undefined ? undefined : lifetime("ext_expires_in"),
      scope: typeof json.scope === "string" ? json.scope : undefined,
    };
  }
  if (json && typeof json.error === "string") {
    throw new TokenEndpointError(step, status, errorBody(json, sent), facts);
  }
  throw new TokenEndpointError(step, status, { error: `http_${status}`, error_description: "the answer was not a token endpoint JSON body" }, facts);
}

/**
 * A token's lifetime in seconds as the answer gives it (a number, or a string
 * of one as Entra's v1 endpoint sends): more than 0 and at most
 * MAX_TOKEN_LIFETIME_S, else the answer is malformed.
 */
function lifetimeOf(step: string, field: string, value: unknown, hop: number | undefined): number {
  const seconds = Number(value);
  if ((typeof value !== "number" && typeof value !== "string") || !Number.isFinite(seconds) || seconds <= 0) throw new MalformedAnswerError(step, `${field} is missing or not a positive number`, hop);
  if (seconds > MAX_TOKEN_LIFETIME_S) {
    throw new MalformedAnswerError(step, `${field} is ${quoteValue(value)} seconds, longer than any token lives (at most ${MAX_TOKEN_LIFETIME_S} seconds, 7 days)`, hop);
  }
  return seconds;
}

/**
 * Entra's error fields, each only when it has its documented type (a broken
 * answer is still reported, not a crash), and with no credential of `sent`
 * in any of them. The support ids are kept only when they are GUIDs, as
 * Entra's always are: anything else there is not an id worth a support
 * case, and is printed nowhere.
 */
function errorBody(json: Record<string, unknown>, sent: readonly string[]): TokenErrorBody {
  const text = (v: unknown) => (typeof v === "string" ? scrubSent(v, sent) : undefined);
  const id = (v: unknown) => (isGuid(v) ? v : undefined);
  const codes = Array.isArray(json.error_codes) && json.error_codes.every((c) => Number.isInteger(c)) ? (json.error_codes as number[]) : [];
  return {
    error: scrubSent(json.error as string, sent),
    error_description: text(json.error_description),
    error_codes: codes,
    trace_id: id(json.trace_id),
    correlation_id: id(json.correlation_id),
    timestamp: text(json.timestamp),
    error_uri: text(json.error_uri),
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
