import { peakRssMb } from "./peak-rss";
import type { BlueprintSecret } from "./runner-client";
import type { EmulatorTarget } from "./transport";
import { fullWorkload, type TokenClient, type WorkloadPlan } from "./workload";

/**
 * `node rss-child.js runner|peer|msal`, spawned by run.ts with its settings on
 * stdin: loads ONE client, runs the whole workload against the parent's
 * emulator, and prints one JSON line with the process's peak RSS. The
 * emulator lives in the parent, so neither figure includes it, and neither
 * client's modules are in the other's process.
 */
export interface ChildInput {
  target: EmulatorTarget;
  blueprint: BlueprintSecret;
  plan: WorkloadPlan;
}

export interface ChildOutput {
  client: string;
  /** Peak resident set of the whole process, MiB. */
  peakRssMb: number;
  /** Resident set after loading the client, before the first request, MiB. */
  loadedRssMb: number;
  heapUsedMb: number;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function load(which: string, input: ChildInput): Promise<TokenClient & { close(): Promise<void> }> {
  if (which === "runner") {
    const { RunnerClient } = await import("./runner-client");
    return new RunnerClient(input.target, input.blueprint);
  }
  if (which === "peer") {
    const { PeerClient } = await import("./peer");
    return PeerClient.create(input.target, input.blueprint);
  }
  if (which === "msal") {
    const { MsalPeerClient } = await import("./msal-peer");
    return MsalPeerClient.create(input.target, input.blueprint);
  }
  throw new Error(`rss-child: unknown client "${which}"`);
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? "";
  const input = JSON.parse(await readStdin()) as ChildInput;
  const client = await load(which, input);
  const loadedRssMb = process.memoryUsage().rss / 2 ** 20;
  await fullWorkload(client, input.plan);
  const output: ChildOutput = {
    client: client.name,
    peakRssMb: peakRssMb(),
    loadedRssMb,
    heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20,
  };
  await client.close();
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`rss-child: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
