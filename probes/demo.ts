import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { breakLinks } from "../emulator/breaks";
import { SHARE_URLS } from "../emulator/seed";
import { startEmulator } from "../emulator/server";
import { ExitCode } from "../lib/errors";
import { main } from "./cli";
import { processIo, type CliIo } from "./cli-io";

/**
 * `npm start`: the whole flow against the embedded emulator, as a newcomer
 * with no tenant would run it, through the same commands a pipeline runs.
 */

/** The sample manifest shipped in the repository (this file runs from dist/probes/). */
const SAMPLE_MANIFEST = resolve(__dirname, "../../probes/samples/ToolingManifest.json");

interface Step {
  title: string;
  argv: string[];
  /** The command as a person would type it. */
  shown: string;
  /** Environment for this step on top of the process's, e.g. the provisioner's ARM_* for doctor. */
  env?: NodeJS.ProcessEnv;
  /** What changes in the tenant just before this step. */
  before?: () => void;
  /** The exit code this step is meant to show; 0 unless it shows a failure diagnosed. */
  expect?: number;
}

async function demo(io: CliIo): Promise<number> {
  // A three-agent stack: one blueprint, three agent identities, each with its agent user and grant.
  const emulator = await startEmulator({ agents: 3 });
  const dir = mkdtempSync(join(tmpdir(), "agent-user-demo-"));
  // The capture is the user's to read afterwards: under the temp directory, never in the repository.
  const capture = join(mkdtempSync(join(tmpdir(), "agent-user-demo-capture-")), "workbook");
  try {
    // The stack outputs hold the blueprint secret: a private file, removed at the end.
    const outputs = join(dir, "outputs.json");
    writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
    const [first, , third] = Object.keys(emulator.outputs().agents ?? {});
    // What `agent-user emulator --env-out` writes: doctor reads Graph as the provisioner, as `pulumi up` does.
    const provisioner = emulator.provisioner()!;
    const arm = { ARM_TENANT_ID: provisioner.tenantId, ARM_CLIENT_ID: provisioner.clientId, ARM_CLIENT_SECRET: provisioner.clientSecret };
    const steps: Step[] = [
      { title: "token: three hops to an agent user token", argv: ["token", "--outputs", outputs, "--agent", first!], shown: `token --outputs outputs.json --agent ${first}` },
      { title: "manifest: is the Word tool server registered?", argv: ["manifest", SAMPLE_MANIFEST], shown: "manifest probes/samples/ToolingManifest.json" },
      {
        title: "comments: raw JSON of a shared file's comments and replies",
        argv: ["comments", SHARE_URLS.workbook, "--outputs", outputs, "--agent", first!, "--out", capture],
        shown: `comments ${SHARE_URLS.workbook} --outputs outputs.json --agent ${first} --out ${capture}`,
      },
      {
        title: "token --agent: another agent of the same three-agent stack",
        argv: ["token", "--outputs", outputs, "--agent", third!],
        shown: `token --outputs outputs.json --agent ${third}`,
      },
      {
        title: "doctor: every link of the chain, read from Graph as the provisioner",
        argv: ["doctor", "--outputs", outputs, "--agent", first!],
        shown: `doctor --outputs outputs.json --agent ${first}   (with the ARM_* of emulator --env-out)`,
        env: arm,
      },
      {
        title: "doctor on a drifted tenant: the grant was moved to another user (--faults break=grant-other-user)",
        argv: ["doctor", "--outputs", outputs, "--agent", first!],
        shown: `doctor --outputs outputs.json --agent ${first}   (after the grant moved to another user)`,
        env: arm,
        before: () => breakLinks(emulator.store, ["grant-other-user"]),
        expect: ExitCode.brokenLink,
      },
    ];
    io.stdout(`agent-user-kit demo against the local emulator: tenant ${emulator.store.tenantId} at ${emulator.httpUrl}\n`);
    const results: Array<{ step: Step; code: number }> = [];
    for (const step of steps) {
      step.before?.();
      io.stdout(`\n== agent-user ${step.shown}\n`);
      results.push({ step, code: await main(step.argv, step.env ? { ...io, env: { ...io.env, ...step.env } } : io) });
    }
    io.stdout("\nsummary\n");
    const asMeant = ({ step, code }: { step: Step; code: number }) => code === (step.expect ?? 0);
    for (const result of results) {
      const { step, code } = result;
      io.stdout(`  ${asMeant(result) ? (code === 0 ? "ok  " : `ok (exit ${code}, as meant)`) : `FAIL (exit ${code})`}  ${step.title}\n`);
    }
    const calls = (surface: string) => emulator.requests.filter((r) => r.surface === surface).length;
    io.stdout(`  ${calls("token")} token requests and ${calls("graph")} Graph requests were served by the emulator\n`);
    io.stdout(`  the comment capture is in ${capture}\n`);
    io.stdout("  other broken links to try: agent-user emulator --faults break=LINK (docs/emulator.md)\n");
    const failed = results.find((r) => !asMeant(r));
    return failed ? failed.code || 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await emulator.close();
  }
}

const io = processIo();
const exit = (code: number) => void io.flushed().then(() => process.exit(code));
demo(io).then(exit, (err: unknown) => {
  io.stderr(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  exit(ExitCode.internal);
});
