import { AgentUserError, ClaimsError, NetworkError, UsageError } from "../lib/errors";
import { GraphError } from "../lib/graph-client";
import { TokenEndpointError } from "../lib/token-client";
import type { CliIo } from "./cli-io";

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
}

export function failureJson(err: AgentUserError): FailureJson {
  const hop = /^hop (\d)\b/.exec(err.step);
  const base = { ok: false as const, hop: hop ? Number(hop[1]) : null, step: err.step, message: err.message, hint: err.hint ?? null };
  if (err instanceof TokenEndpointError) return { ...base, status: err.status, error: err.error, codes: [...err.codes] };
  if (err instanceof GraphError) return { ...base, status: err.status, error: err.code, codes: [...err.codes] };
  if (err instanceof NetworkError) return { ...base, status: null, error: err.code, codes: [] };
  if (err instanceof ClaimsError) return { ...base, status: null, error: "claims_mismatch", codes: [] };
  if (err instanceof UsageError) return { ...base, status: null, error: "usage", codes: [] };
  return { ...base, status: null, error: err.name, codes: [] };
}

/**
 * Prints a failure (human text on stderr, or one JSON object on stdout) and
 * returns its exit code. Anything that is not an AgentUserError is a bug and
 * is rethrown so the CLI reports it as one.
 */
export function reportFailure(err: unknown, io: CliIo, json: boolean): number {
  if (!(err instanceof AgentUserError)) throw err;
  if (json) {
    io.stdout(`${JSON.stringify(failureJson(err))}\n`);
  } else {
    io.stderr(`error: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ""}`);
  }
  return err.exitCode;
}

