import { quoteValue } from "./printable";

/**
 * Errors that reach a person. Each one says which step failed, carries the
 * protocol's own codes, and maps to a documented, stable exit code.
 */

/** Exit codes shared by every `agent-user` command (documented in docs/cli.md, "Exit codes"). */
export const ExitCode = {
  ok: 0,
  notRegistered: 1,
  usage: 2,
  rejected: 3,
  unreachable: 4,
  badClaims: 5,
  shapeDrift: 6,
  commentsNotFound: 7,
  /** `doctor`, `preflight`: a link of the chain is broken (or a check failed). */
  brokenLink: 8,
  /** A command that succeeded could not write its output (stdout's disk full, its pipe's reader gone). sysexits' EX_IOERR. */
  output: 74,
  /** A bug in the kit (anything that is not an AgentUserError): please report it. sysexits' EX_SOFTWARE. */
  internal: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What an error knows beyond its step and message, given once, to its constructor. */
export interface ErrorFacts {
  /**
   * A stable, machine-readable code: the protocol's own where there is one
   * (`invalid_grant`, Graph's `Request_ResourceNotFound`, undici's `ECONNREFUSED`),
   * otherwise this kit's (`usage`, `claims_mismatch`).
   */
  code: string;
  /** What to do about it. */
  hint?: string;
  /** 1, 2 or 3 when a hop of the agent user chain failed. */
  hop?: number;
  /** The HTTP status the service answered with, when it answered. */
  status?: number;
  /** The protocol's detail codes: AADSTS numbers, or Graph's inner error codes, outermost first. */
  codes?: ReadonlyArray<number | string>;
  /** The service's Retry-After, which transientOnly honours. */
  retryAfterMs?: number;
  /** The lower-level failure this one explains, e.g. undici's error. */
  cause?: unknown;
}

export abstract class AgentUserError extends Error {
  abstract readonly exitCode: ExitCode;
  /** The step that failed, e.g. "hop 3 (agent user token)" or "Graph POST /v1.0/users/...". */
  readonly step: string;
  readonly code: string;
  readonly hint?: string;
  readonly hop?: number;
  readonly status?: number;
  readonly codes: ReadonlyArray<number | string>;
  readonly retryAfterMs?: number;

  constructor(step: string, message: string, facts: ErrorFacts) {
    super(`${step}: ${message}`);
    // Dynamic providers capture this class by value; Pulumi's closure serializer then turns super() into
    // Error.call(this, ...), which sets nothing on `this`, and calls the constructor without new.target.
    this.message = `${step}: ${message}`;
    this.name = new.target?.name ?? "AgentUserError";
    this.step = step;
    this.code = facts.code;
    this.hint = facts.hint;
    this.hop = facts.hop;
    this.status = facts.status;
    this.codes = facts.codes ?? [];
    this.retryAfterMs = facts.retryAfterMs;
    // Not enumerable, as Error's own `cause` is: JSON.stringify of an error shows its facts, not a lower layer's internals.
    if (facts.cause !== undefined) Object.defineProperty(this, "cause", { value: facts.cause, writable: true, configurable: true, enumerable: false });
  }

  /** Whether a bounded retry may succeed where this attempt failed. */
  get transient(): boolean {
    return false;
  }

  /** The message without its step, for a caller that names the step its own way. */
  get detail(): string {
    return this.message.slice(this.step.length + 2);
  }
}

/** Bad flags, missing configuration, invalid input: nothing was sent. */
export class UsageError extends AgentUserError {
  readonly exitCode = ExitCode.usage;
  constructor(message: string, hint?: string, step = "configuration") {
    super(step, message, { code: "usage", hint });
  }
}

/**
 * A credential is not configured (or not for what was asked), as
 * @azure/identity's error of the same name: its `name` is what
 * ChainedTokenCredential checks before it tries the next credential.
 */
export class CredentialUnavailableError extends AgentUserError {
  readonly exitCode = ExitCode.usage;
  constructor(message: string, hint?: string, step = "AgentUserCredential") {
    super(step, message, { code: "CredentialUnavailableError", hint });
    this.name = "CredentialUnavailableError";
  }
}

/** The caller aborted (its AbortSignal fired) before the answer came. */
export class AbortError extends AgentUserError {
  readonly exitCode = ExitCode.unreachable;
  constructor(step: string, hop?: number) {
    super(step, "the caller aborted the request", { code: "AbortError", hop });
    this.name = "AbortError";
  }
}

/** The server could not be reached, timed out, or dropped the connection. */
export class NetworkError extends AgentUserError {
  readonly exitCode = ExitCode.unreachable;
  /** `code` is Node's or undici's, e.g. ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT. */
  constructor(step: string, code: string, detail: string, facts: { hop?: number; cause?: unknown } = {}) {
    super(step, `${code}: ${detail}`, { ...facts, code, hint: networkHint(code) });
  }
  /** Connection failures and timeouts may pass; a certificate that is not trusted will not. */
  override get transient(): boolean {
    return !isTlsTrustFailure(this.code);
  }
}

/** Node's certificate verification codes, e.g. DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID. */
function isTlsTrustFailure(code: string): boolean {
  return /CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE/.test(code);
}

function networkHint(code: string): string {
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return "the server's certificate names another host than the URL's; use a host name the certificate lists (the local emulator's lists localhost and 127.0.0.1)";
  }
  if (isTlsTrustFailure(code)) {
    return "the server's TLS certificate is not trusted; for the local emulator, set NODE_EXTRA_CA_CERTS to its CA file";
  }
  if (code === "ETIMEDOUT" || code.includes("TIMEOUT")) {
    return "the server did not answer in time; check connectivity or raise `timeoutMs`";
  }
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return "check the URL and that the service (or the local emulator) is running";
  }
  return "the connection failed; retry, and check proxies and TLS trust (NODE_EXTRA_CA_CERTS)";
}

/** An answer that no real service sends (a token with a line break in it): final, and named, never a crash. */
export class MalformedAnswerError extends AgentUserError {
  readonly exitCode = ExitCode.rejected;
  constructor(
    step: string,
    detail: string,
    hop?: number,
    hint = "the service, or a proxy in front of it, answered with something no identity provider sends; check the URL and any proxy",
  ) {
    super(step, `malformed answer: ${detail}`, { code: "malformed_answer", hop, hint });
  }
}

/** An exit code for a server answer: 5xx and 429 mean "unreachable", the rest "rejected". */
export function exitCodeForStatus(status: number): ExitCode {
  return status >= 500 || status === 429 ? ExitCode.unreachable : ExitCode.rejected;
}

/** One claim of a minted token that is not what it must be. */
export interface ClaimMismatch {
  claim: string;
  expected: string;
  actual: string | undefined;
}

/** What a ClaimsError knows beyond the mismatches: what the token looks like instead, and the fix. */
export interface ClaimsFacts {
  /** Which flow the token looks like it came from, e.g. "an agent identity's own app token (the autonomous app flow)". */
  origin?: string;
  hint?: string;
}

/** A token was minted but it is not the token that was asked for. */
export class ClaimsError extends AgentUserError {
  readonly exitCode = ExitCode.badClaims;
  readonly mismatches: readonly ClaimMismatch[];
  constructor(step: string, mismatches: readonly ClaimMismatch[], hop?: number, facts: ClaimsFacts = {}) {
    const list = mismatches
      .map((m) => `${m.claim} is ${m.actual === undefined ? "missing" : quoteValue(m.actual)}, expected ${quoteValue(m.expected)}`)
      .join("; ");
    super(step, `the token's claims are wrong: ${list}${facts.origin ? `; it is ${facts.origin}` : ""}`, {
      code: "claims_mismatch",
      hop,
      hint: facts.hint ?? "check that the agent identity, agent user and tenant in the configuration belong together",
    });
    this.mismatches = mismatches;
  }
}

/** A token was minted but it is not a JWT, so its claims cannot be checked: `reason` says how it is not one. */
export class NotJwtError extends AgentUserError {
  readonly exitCode = ExitCode.badClaims;
  constructor(step: string, reason: string, hop?: number) {
    super(step, `the access_token is not a JWT: ${reason}`, {
      code: "not_a_jwt",
      hop,
      hint: "the identity provider, or a proxy in front of it, answered with a token whose claims cannot be read; check the authority URL and any proxy, and that the resource does not encrypt its tokens",
    });
  }
}
