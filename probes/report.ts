import { AgentUserError } from "../lib/errors";
import { printable, printableLines, jsonLine } from "../lib/printable";
import { TokenEndpointError } from "../lib/token-client";
import type { CliIo } from "./cli-io";
import { CONNECTION_INPUTS } from "./connection-flags";

/**
 * The library's hints name its options; the CLI's name the flag (and the
 * variable) that sets the same thing. Each option a library hint names, as the
 * CLI says it.
 */
const FLAG_WORDS: ReadonlyArray<readonly [RegExp, (...groups: string[]) => string]> = [
  [/consistencyWindowMs: (\d+)/g, (ms) => `--consistency-window ${Number(ms) / 1000}`],
  [/check `resource`/g, () => `check --resource (${CONNECTION_INPUTS.resource.env})`],
  [/check `tokenExchangeAudience`/g, () => `check --token-exchange-audience (${CONNECTION_INPUTS["token-exchange-audience"].env})`],
  [/raise `timeoutMs`/g, () => "raise --timeout"],
  [/\(`credential\.tokenFile`\)/g, () => `(${CONNECTION_INPUTS["managed-identity-token-file"].env}, --managed-identity-token-file)`],
  [/\(`userAssertion`\)/g, () => "(the file --on-behalf-of names)"],
];

/** A library error's hint as the CLI says it: each option named by its flag. */
export function cliHint(hint: string): string;
export function cliHint(hint: string | undefined): string | undefined;
export function cliHint(hint: string | undefined): string | undefined {
  if (hint === undefined) return undefined;
  return FLAG_WORDS.reduce((text, [option, flag]) => text.replace(option, (_, ...groups: string[]) => flag(...groups)), hint);
}

/** The machine-readable form of a failure: `{"ok":false,"hop","status","error","codes","message","hint"}`. */
export interface FailureJson {
  ok: false;
  /** 1, 2 or 3 when a hop of the chain failed. */
  hop: number | null;
  step: string;
  status: number | null;
  error: string;
  codes: Array<number | string>;
  message: string;
  hint: string | null;
  /** Entra's trace and correlation ids of a refused token request, which Microsoft support asks for. */
  traceId?: string;
  correlationId?: string;
}

/** Read from the error's own facts: the same fields whichever kind of error it is. */
export function failureJson(err: AgentUserError): FailureJson {
  return {
    ok: false,
    hop: err.hop ?? null,
    step: err.step,
    status: err.status ?? null,
    error: err.code,
    codes: [...err.codes],
    message: err.message,
    hint: cliHint(err.hint) ?? null,
    ...supportIds(err),
  };
}

/** The ids Microsoft support asks for, when the identity provider gave them. */
function supportIds(err: AgentUserError): { traceId?: string; correlationId?: string } {
  if (!(err instanceof TokenEndpointError)) return {};
  return { ...(err.traceId ? { traceId: err.traceId } : {}), ...(err.correlationId ? { correlationId: err.correlationId } : {}) };
}

/**
 * Prints a failure (human text on stderr, or one JSON object on stdout) and
 * returns its exit code. Anything that is not an AgentUserError is a bug and
 * is rethrown so the CLI reports it as one.
 */
export function reportFailure(err: unknown, io: CliIo, json: boolean): number {
  if (!(err instanceof AgentUserError)) throw err;
  if (json) {
    io.stdout(jsonLine(failureJson(err)));
  } else {
    const ids = supportIds(err);
    const support = ids.traceId || ids.correlationId ? `trace id: ${printable(ids.traceId ?? "-")}, correlation id: ${printable(ids.correlationId ?? "-")}\n` : "";
    io.stderr(`error: ${printableLines(err.message)}\n${err.hint ? `hint: ${printableLines(cliHint(err.hint))}\n` : ""}${support}`);
  }
  return err.exitCode;
}

