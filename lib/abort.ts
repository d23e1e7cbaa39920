import { AbortError } from "./errors";

/** An AbortSignal, or the AbortSignalLike of @azure/abort-controller. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * `work`, or an AbortError naming `step` as soon as `signal` fires. The work
 * goes on: whoever started it was given the signal too and cancels what no
 * one else waits for.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignalLike | undefined, step: string): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError(step));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
