/** Small numeric helpers: no dependency, no magic. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Rounds for display and for the JSON line. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function ratio(a: number, b: number): number {
  return b === 0 ? Number.NaN : a / b;
}

/** Collects samples until `count` are taken or `budgetMs` has passed (at least `min`). */
export async function sample(count: number, budgetMs: number, once: (i: number) => Promise<number>, min = 3): Promise<number[]> {
  const out: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    if (i >= min && performance.now() - started > budgetMs) break;
    out.push(await once(i));
  }
  return out;
}

/** One timed operation: wall time, and the CPU time this process spent meanwhile (other processes do not count). */
export interface Timing {
  ms: number;
  cpuMs: number;
}

export async function timed(op: () => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await op();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** Round i's order: cycles through every permutation, so each client runs first, last and after each other equally often. */
export function order<T>(items: readonly T[], round: number): T[] {
  const perms: T[][] = [];
  const permute = (done: T[], rest: readonly T[]): void => {
    if (rest.length === 0) perms.push(done);
    rest.forEach((item, i) => permute([...done, item], [...rest.slice(0, i), ...rest.slice(i + 1)]));
  };
  permute([], items);
  return perms[round % perms.length]!;
}
