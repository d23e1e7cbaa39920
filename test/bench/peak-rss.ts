import { existsSync, readFileSync } from "node:fs";

const STATUS = "/proc/self/status";

/**
 * This process's peak resident set since it started, MiB. Linux's VmHWM
 * (/proc/self/status) counts this program alone. `process.resourceUsage().maxRSS`
 * does not: Linux carries the forked copy of the parent into the child's
 * maxrss across exec, so every child of the benchmark (itself some 60 MiB)
 * reported at least the parent's size. maxRSS stays the answer where there
 * is no /proc.
 */
export function peakRssMb(): number {
  if (!existsSync(STATUS)) return process.resourceUsage().maxRSS / 1024;
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(STATUS, "utf8"))?.[1];
  if (kib === undefined) throw new Error(`bench: no VmHWM line in ${STATUS}`);
  return Number(kib) / 1024;
}
