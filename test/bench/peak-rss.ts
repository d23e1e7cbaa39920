import { readFileSync } from "node:fs";

/**
 * This process's peak resident set since it started, MiB. Linux's VmHWM
 * (/proc/self/status) counts this program alone. `process.resourceUsage().maxRSS`
 * does not: Linux carries the forked copy of the parent into the child's
 * maxrss across exec, so every child of the benchmark (itself some 60 MiB)
 * reported at least the parent's size. maxRSS stays the answer where there
 * is no /proc.
 */
export function peakRssMb(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kib !== undefined) return Number(kib) / 1024;
  } catch {
    // No procfs: fall through.
  }
  return process.resourceUsage().maxRSS / 1024;
}
