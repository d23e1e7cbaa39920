/**
 * A fault the emulator cannot honour is refused when it is given, never
 * quietly replaced by another: Node's timers fire after about 1 ms for any
 * wait past 2^31-1 ms, and a count past 2^53-1 is not the number typed.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseFaultSpec } from "../../emulator/faults";
import { UsageError } from "../../lib/errors";

const CLI = join(resolve(__dirname, "../.."), "dist/probes/agent-user.js");

function refusal(spec: string): string {
  try {
    parseFaultSpec(spec);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`--faults ${spec} was accepted`);
}

it.each([
  ["latency=2147483648", "0 to 2147483647 ms"],
  ["latency=3000000000", "0 to 2147483647 ms"],
  ["latency=2147484s", "0 to 2147483647 ms"],
  [`latency=${"9".repeat(400)}`, "0 to 2147483647 ms"],
  ["lag=2147484", "0 to 2147483647 ms"],
  ["lag=2147483648ms", "0 to 2147483647 ms"],
  ["429=9007199254740992", "from 0 to 9007199254740991"],
  ["503=9007199254740992", "from 0 to 9007199254740991"],
  ["drop=9007199254740992", "from 0 to 9007199254740991"],
  ["lose=9007199254740992", "from 0 to 9007199254740991"],
  ["retry-after=99999999999999999999", "from 0 to 9007199254740991"],
  ["idp-rate=9007199254740992", "from 1 to 9007199254740991"],
  ["graph-rate=00", "from 1 to 9007199254740991"],
])("refuses --faults %s, naming the fault and the range", (spec, range) => {
  const message = refusal(spec);
  expect(message).toContain(`--faults: ${spec} is out of range`);
  expect(message).toContain(range);
});

it("takes every value up to the bounds as given", () => {
  expect(parseFaultSpec("latency=2147483647,lag=2147483.647").faults.latencyMs).toBe(2147483647);
  expect(parseFaultSpec("lag=2147483.647").lagMs).toBe(2147483647);
  expect(parseFaultSpec("latency=0.5s").faults.latencyMs).toBe(500);
  expect(parseFaultSpec("429=9007199254740991,retry-after=9007199254740991,idp-rate=9007199254740991").faults).toMatchObject({
    throttle: 9007199254740991,
    retryAfterS: 9007199254740991,
    idpRate: 9007199254740991,
  });
});

it("agent-user emulator --faults latency=3000000000 is exit 2 naming the flag and the range, before listening", () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const run = spawnSync(process.execPath, [CLI, "emulator", "--faults", "latency=3000000000"], { encoding: "utf8", timeout: 20_000 });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain("--faults: latency=3000000000 is out of range: give 0 to 2147483647 ms");
  expect(run.stdout).not.toContain("emulator listening");
});
