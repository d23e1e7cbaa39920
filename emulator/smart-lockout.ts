import { createHash } from "node:crypto";

/**
 * Entra's smart lockout of password sign-ins, with its defaults for Azure
 * Public tenants (entra-docs identity/authentication/howto-password-smart-lockout.md):
 * an account is locked after 10 failed sign-ins, for 60 seconds at first; "the
 * account locks again after each subsequent failed sign-in attempt", each
 * lockout longer; the last three bad passwords are tracked, so one of them
 * again is not counted; while locked, a sign-in is refused "regardless of the
 * password validity" (AADSTS50053). Where the page is silent, the emulator is
 * the stricter: each lockout of a run lasts twice the one before (Microsoft
 * does not disclose its rate), and only a sign-in that succeeds ends the run.
 * The emulator is one datacenter, so the threshold is exact (Entra's varies
 * slightly across its datacenters, the page says).
 */
export const SMART_LOCKOUT = {
  threshold: 10,
  durationMs: 60_000,
  trackedBadPasswords: 3,
  /** Doublings at most: a lockout never lasts over 1,024 minutes. */
  maxDoublings: 10,
} as const;

/** What the lockout keeps of one account. */
export interface LockoutState {
  /** Failed sign-ins counted since the last success or lockout. */
  failures: number;
  /** Hashes of the last bad passwords, oldest first. */
  recentBad: readonly string[];
  /** Lockouts since the last sign-in that succeeded: after one, the next counted failure locks again. */
  lockouts: number;
  /** On the tenant's clock; 0 when never locked. */
  lockedUntil: number;
}

const FRESH: LockoutState = { failures: 0, recentBad: [], lockouts: 0, lockedUntil: 0 };

/** Only a hash of a bad password is kept, as Entra keeps it. */
export function passwordHash(password: string): string {
  return createHash("sha256").update(password).digest("hex");
}

/** How long the `n`th lockout of a run lasts. */
export function lockoutDurationMs(n: number): number {
  return SMART_LOCKOUT.durationMs * 2 ** Math.min(Math.max(0, n - 1), SMART_LOCKOUT.maxDoublings);
}

export function isLocked(state: LockoutState, now: number): boolean {
  return now < state.lockedUntil;
}

/** The state after a failed sign-in with the password of hash `bad` at `now` (never called while locked). */
export function afterFailure(state: LockoutState, bad: string, now: number): LockoutState {
  if (state.recentBad.includes(bad)) return state;
  const recentBad = [...state.recentBad, bad].slice(-SMART_LOCKOUT.trackedBadPasswords);
  const failures = state.failures + 1;
  // A run already locked once locks again at its first counted failure.
  if (failures < SMART_LOCKOUT.threshold && state.lockouts === 0) return { ...state, failures, recentBad };
  const lockouts = state.lockouts + 1;
  return { failures: 0, recentBad, lockouts, lockedUntil: now + lockoutDurationMs(lockouts) };
}

/** Each account's lockout, on the tenant's clock (which a test may hold). */
export class SmartLockout {
  readonly #accounts = new Map<string, LockoutState>();

  constructor(private readonly clock: () => number) {}

  /** Whether sign-ins of the account are refused now, whatever the password. */
  locked(userId: string): boolean {
    return isLocked(this.#accounts.get(userId) ?? FRESH, this.clock());
  }

  /** Counts a sign-in of the account that gave a wrong password. */
  failed(userId: string, password: string): void {
    this.#accounts.set(userId, afterFailure(this.#accounts.get(userId) ?? FRESH, passwordHash(password), this.clock()));
  }

  /** A sign-in with the right password: the count and the run of lockouts start again. */
  succeeded(userId: string): void {
    this.#accounts.delete(userId);
  }
}
