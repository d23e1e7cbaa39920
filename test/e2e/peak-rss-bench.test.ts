/**
 * The benchmark's peak RSS figures (test/bench/peak-rss.ts) are each child
 * process's own: a child spawned by a large parent must not report the
 * parent's size, which is what `process.resourceUsage().maxRSS` does on Linux.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const PEAK_RSS = join(__dirname, "../../dist/test/bench/peak-rss.js");

(existsSync("/proc/self/status") ? it : it.skip)("a child of a parent holding 400 MiB reports its own peak RSS, not the parent's", () => {
  const script = `const held = Buffer.alloc(400 * 2 ** 20, 1);
    const out = require("node:child_process").execFileSync(process.execPath, ["-e", ${JSON.stringify(`process.stdout.write(String(require(${JSON.stringify(PEAK_RSS)}).peakRssMb()))`)}], { encoding: "utf8" });
    process.stdout.write(JSON.stringify({ parentMb: process.memoryUsage().rss / 2 ** 20, childMb: Number(out), held: held.length }));`;
  const { parentMb, childMb } = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as { parentMb: number; childMb: number };
  expect(parentMb).toBeGreaterThan(400);
  expect(childMb).toBeGreaterThan(10);
  expect(childMb).toBeLessThan(200);
});
