import { jsonKind } from "./json-value";
import { quoteValue } from "./printable";

/**
 * Checks shared by the options of the runtime library (AgentUserTokenProvider
 * and its retry policy): each problem is a sentence that names the option.
 */

/** Node's timers hold at most 2^31-1 ms (a longer one fires after 1 ms): the longest wait, timeout or budget an option may ask for. */
export const MAX_TIMER_MS = 2_000_000_000;

/** A refused value as an error shows it: numbers as they are, strings quoted (a short, printable prefix), anything else by its kind. */
export function shownValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return quoteValue(value);
  return jsonKind(value);
}

/** Whether `ms` is a wait, timeout or budget a timer holds: finite, from 0 (or above it, without `allowZero`) to MAX_TIMER_MS. */
export function isTimerMs(ms: unknown, allowZero: boolean): ms is number {
  return typeof ms === "number" && Number.isFinite(ms) && (allowZero ? ms >= 0 : ms > 0) && ms <= MAX_TIMER_MS;
}

/** What is wrong with a number of milliseconds given as option `name` (see isTimerMs). */
export function millisecondsProblem(name: string, value: unknown, allowZero: boolean): string | undefined {
  return isTimerMs(value, allowZero) ? undefined : `${name} must be a number of milliseconds, ${allowZero ? "0" : "more than 0"} to ${MAX_TIMER_MS}, got ${shownValue(value)}`;
}
