/**
 * The provisioner's per-process state (infra/provisioner-credential.ts keeps
 * it on globalThis under this registered symbol: its cached Graph tokens and
 * the configuration the host gave `configure`). No jest here: the benchmarks
 * use it too.
 */

/** Drops it, as a new process starts: e.g. when a test switches tenants, credentials or roles. */
export function forgetProvisioner(): void {
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("agent-user-kit.provisioner")];
}
