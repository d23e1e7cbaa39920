/**
 * The flows benchmark's workload (test/bench/flows.ts), small, so the figures
 * `npm run bench` reports for the app and on-behalf-of flows come from code
 * that is checked: before it samples, it verifies that each client returns
 * the flow's token (its idtyp, oid, aud and client) and that the runner sends
 * 2 requests cold, 1 warm and none on a hit, and MSAL 7 as many. It runs in a
 * child process of the build, as the bench does: MSAL's fetch is routed
 * through Node's own fetch Agent, which must be found before undici loads.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const BENCH = join(resolve(__dirname, "../.."), "dist/test/bench");

const CHILD = `
require(${JSON.stringify(join(BENCH, "capture-fetch-agent.js"))});
const { measureFlows, summarizeFlows, flowsTable } = require(${JSON.stringify(join(BENCH, "flows.js"))});
measureFlows(() => undefined, { rounds: 3, budgetMs: 2000, warmUps: 1, hitBatches: 1, hitCalls: 50 }).then((figures) => {
  const summary = summarizeFlows(figures);
  const counts = (f) => ({ requests: f.requests, samples: [f.cold.floor.length, f.cold.runner.length, f.cold.msal.length, f.warm.floor.length] });
  console.log(JSON.stringify({ app: counts(figures.app), onBehalfOf: counts(figures.onBehalfOf), keys: Object.keys(summary).sort(), table: flowsTable(figures, summary) }));
}, (err) => { console.error(err); process.exit(1); });
`;

it("measures both flows for the floor, the runner and MSAL 7, each sending the requests its figure claims", () => {
  if (!existsSync(join(BENCH, "flows.js"))) throw new Error("dist/test/bench/flows.js is missing: run `npm run build` first");
  const run = spawnSync(process.execPath, ["-e", CHILD], { encoding: "utf8", timeout: 90_000 });
  expect({ status: run.status, stderr: run.status === 0 ? "" : run.stderr }).toEqual({ status: 0, stderr: "" });
  const out = JSON.parse(run.stdout) as Record<"app" | "onBehalfOf", { requests: Record<string, number>; samples: number[] }> & { keys: string[]; table: string };
  for (const flow of ["app", "onBehalfOf"] as const) {
    expect(out[flow].requests).toEqual({ "runner cold": 2, "runner warm": 1, "runner hit": 0, "msal cold": 2, "msal warm": 1, "msal hit": 0 });
    expect(out[flow].samples).toEqual([3, 3, 3, 3]);
  }
  expect(out.keys).toEqual(
    ["app", "obo"].flatMap((k) => [...["floor", "runner", "msal"].flatMap((w) => [`${k}_${w}_cold_ms`, `${k}_${w}_warm_ms`]), `${k}_runner_hit_us`, `${k}_msal_hit_us`]).sort(),
  );
  expect(out.table).toMatch(/^\| on-behalf-of, hit: final token cached, no request \(µs per call, median\) \| – \| [\d.]+ \| [\d.]+ \|/m);
}, 120_000);
