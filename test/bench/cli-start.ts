import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { median } from "./stats";

/** The package root (dist/test/bench/../../..), where `node_modules` and `dist` are. */
export const PACKAGE_ROOT = join(__dirname, "..", "..", "..");
const CLI = join(PACKAGE_ROOT, "dist", "probes", "cli.js");

function run(args: string[]): { ms: number; stdout: string } {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: PACKAGE_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`bench: node ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(0, 300)}`);
  return { ms, stdout: r.stdout };
}

/** `require(module)` timed inside a fresh node process, ms. */
const IMPORT_TIMER = (module: string) =>
  `const t=performance.now();require(${JSON.stringify(module)});process.stdout.write(String(performance.now()-t))`;

export interface StartupFigures {
  cliStartMs: number;
  nodeStartMs: number;
  peerImportMs: number;
  runnerImportMs: number;
  nodeRssMb: number;
  samples: number;
}

/**
 * Wall time of spawning `node dist/probes/cli.js --help` and `node -e ""`
 * (spawn to exit, interleaved, median), and the time `require()` of the
 * peer's package and of the runner's module take in a fresh process (median).
 */
export function startupFigures(samples: number, peerModule: string): StartupFigures {
  const cli: number[] = [];
  const node: number[] = [];
  const peer: number[] = [];
  const runner: number[] = [];
  const rss: number[] = [];
  // One untimed round warms the OS file cache for every file involved.
  run(["-e", ""]);
  run([CLI, "--help"]);
  run(["-e", IMPORT_TIMER(peerModule)]);
  run(["-e", IMPORT_TIMER("./dist/probes/hop-chain.js")]);
  for (let i = 0; i < samples; i++) {
    node.push(run(["-e", ""]).ms);
    cli.push(run([CLI, "--help"]).ms);
    peer.push(Number(run(["-e", IMPORT_TIMER(peerModule)]).stdout));
    runner.push(Number(run(["-e", IMPORT_TIMER("./dist/probes/hop-chain.js")]).stdout));
    rss.push(Number(run(["-e", "process.stdout.write(String(process.resourceUsage().maxRSS/1024))"]).stdout));
  }
  return {
    cliStartMs: median(cli),
    nodeStartMs: median(node),
    peerImportMs: median(peer),
    runnerImportMs: median(runner),
    nodeRssMb: median(rss),
    samples,
  };
}
