import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../emulator/seed";
import { startEmulator } from "../../emulator/server";
import { consumerProject, engineWorld, type EngineWorld } from "../e2e/engine/pulumi-cli";
import { packTarball, REPO } from "../e2e/package/consumer";

/**
 * `pulumi up` of AgentUserKit on the real engine (Pulumi's CLI and Node.js
 * host, the azuread plugin) against the emulator, whose Graph takes
 * `graphRate` requests a second from the provisioner: a new stack of N agents,
 * then an `up` that changes nothing. Each is set against its floor.
 */

/**
 * azuread's ApplicationPassword reads the application until the new key
 * shows up in 5 reads in a row, at least 1 s apart
 * (terraform-provider-azuread application_password_resource.go:
 * ContinuousTargetOccurence 5, MinTimeout 1 s): no `up` that adds a secret
 * is shorter.
 */
export const PASSWORD_SETTLE_MS = 5_000;

export interface EngineUpFigures {
  agents: number;
  /** Wall time of `pulumi up --yes --skip-preview` on a new stack. */
  upMs: number;
  /** The Graph requests it made, and those answered 429. */
  graphRequests: number;
  throttled: number;
  /** The longer of the throttle's floor (Graph requests / graph-rate) and the secret's settling reads. */
  floorMs: number;
  /** The stack's resources, as `pulumi stack export` lists them. */
  resources: number;
  /** Wall time of an `up` with nothing to change, and its Graph requests (the refresh of nothing: none). */
  noChangeMs: number;
  noChangeGraphRequests: number;
}

/** PULUMI_ENGINE_BIN, PULUMI_ENGINE_SOURCE and PULUMI_SDK_GENERATOR from `npm run engine` (built once, cached). */
function engineFromScript(): void {
  if (process.env.PULUMI_ENGINE_BIN) return;
  const out = execFileSync("bash", [join(REPO, "scripts", "engine.sh")], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  for (const line of out.trim().split("\n")) {
    const [name, value] = line.split(/=(.*)/s) as [string, string];
    process.env[name] = value;
  }
}

async function oneFleet(world: EngineWorld, tarball: string, agents: number, graphRate: number): Promise<EngineUpFigures> {
  const { emulator } = world;
  const project = consumerProject(world, `up-${agents}`, tarball, join(REPO, "test", "e2e", "engine", "kit-program.js"));
  await project.init("bench", {
    "consumer:graphUrl": emulator.httpsUrl,
    "consumer:authorityUrl": emulator.httpsUrl,
    "consumer:sponsors": JSON.stringify([DEFAULT_IDS.sponsorId]),
    "consumer:userDomain": DEFAULT_IDS.domain,
    "consumer:blueprintName": `Bench blueprint (${agents})`,
    "consumer:agents": JSON.stringify(Array.from({ length: agents }, (_, i) => `bench-${agents}-${i}`)),
  });
  const timed = async (args: string[]) => {
    const before = emulator.requests.length;
    const started = performance.now();
    await project.ok(args);
    const ms = performance.now() - started;
    const graph = emulator.requests.slice(before).filter((r) => r.surface === "graph");
    return { ms, graph: graph.length, throttled: graph.filter((r) => r.status === 429).length };
  };
  const up = await timed(["up", "--yes", "--skip-preview"]);
  const unchanged = await timed(["up", "--yes", "--skip-preview"]);
  const state = JSON.parse((await project.ok(["stack", "export"])).stdout) as { deployment: { resources?: unknown[] } };
  await project.ok(["destroy", "--yes", "--skip-preview"]);
  return {
    agents,
    upMs: up.ms,
    graphRequests: up.graph,
    throttled: up.throttled,
    floorMs: Math.max((up.graph / graphRate) * 1000, PASSWORD_SETTLE_MS),
    resources: state.deployment.resources?.length ?? 0,
    noChangeMs: unchanged.ms,
    noChangeGraphRequests: unchanged.graph,
  };
}

/** Each fleet size in turn, on one emulator at `graphRate`. */
export async function engineUps(sizes: readonly number[], graphRate: number, progress: (line: string) => void): Promise<{ pulumi: string; figures: EngineUpFigures[] }> {
  engineFromScript();
  const work = mkdtempSync(join(tmpdir(), "agent-user-kit-bench-engine-"));
  const emulator = await startEmulator({ faults: { graphRate } });
  try {
    const world = await engineWorld(work, emulator);
    const tarball = packTarball(work);
    const pulumi = execFileSync("pulumi", ["version"], { env: world.env, encoding: "utf8" }).trim();
    const figures: EngineUpFigures[] = [];
    for (const agents of sizes) {
      progress(`engine: pulumi up of ${agents} agent(s), graph-rate=${graphRate}`);
      figures.push(await oneFleet(world, tarball, agents, graphRate));
    }
    return { pulumi, figures };
  } finally {
    await emulator.close();
    rmSync(work, { recursive: true, force: true });
  }
}
