/**
 * Errors that reach a person. Each one says which step failed, carries the
 * protocol's own codes, and maps to a documented, stable exit code.
 */

/** Exit codes shared by every `agent-user` command (documented in the README). */
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
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export abstract class AgentUserError extends Error {
  abstract readonly exitCode: ExitCode;
  /** The step that failed, e.g. "hop 3 (agent user token)" or "Graph POST /v1.0/users/...". */
  readonly step: string;
  /** What to do about it; a caller that knows more (a replication window already spent) may sharpen it. */
  hint?: string;

  constructor(step: string, message: string, hint?: string) {
    super(`${step}: ${message}`);
    // Dynamic providers capture this class by value; Pulumi's closure serializer then turns super() into
    // Error.call(this, ...), which sets nothing on `this`, and calls the constructor without new.target.
    this.message = `${step}: ${message}`;
    this.name = new.target?.name ?? "AgentUserError";
    this.step = step;
    this.hint = hint;
  }

  /** Whether a bounded retry may succeed where this attempt failed. */
  get transient(): boolean {
    return false;
  }
}

/** Bad flags, missing configuration, invalid input: nothing was sent. */
export class UsageError extends AgentUserError {
  readonly exitCode = ExitCode.usage;
  constructor(message: string, hint?: string, step = "configuration") {
    super(step, message, hint);
  }
}

/** The server could not be reached, timed out, or dropped the connection. */
export class NetworkError extends AgentUserError {
  readonly exitCode = ExitCode.unreachable;
  /** Node/undici error code, e.g. ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT. */
  readonly code: string;
  constructor(step: string, code: string, detail: string) {
    super(step, `${code}: ${detail}`, networkHint(code));
    this.code = code;
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
    return "the server did not answer in time; check connectivity or raise --timeout";
  }
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return "check the URL and that the service (or the local emulator) is running";
  }
  return "the connection failed; retry, and check proxies and TLS trust (NODE_EXTRA_CA_CERTS)";
}

/** An answer that no real service sends (a token with a line break in it): final, and named, never a crash. */
export class MalformedAnswerError extends AgentUserError {
  readonly exitCode = ExitCode.rejected;
  constructor(step: string, detail: string) {
    super(step, `malformed answer: ${detail}`, "the service, or a proxy in front of it, answered with something no identity provider sends; check the URL and any proxy");
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

/** A token was minted but it is not the token that was asked for. */
export class ClaimsError extends AgentUserError {
  readonly exitCode = ExitCode.badClaims;
  readonly mismatches: readonly ClaimMismatch[];
  constructor(step: string, mismatches: readonly ClaimMismatch[]) {
    const list = mismatches
      .map((m) => `${m.claim} is ${m.actual === undefined ? "missing" : JSON.stringify(m.actual)}, expected ${JSON.stringify(m.expected)}`)
      .join("; ");
    super(step, `the token's claims are wrong: ${list}`, "check that the agent identity, agent user and tenant in the configuration belong together");
    this.mismatches = mismatches;
  }
}
