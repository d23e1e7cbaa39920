/**
 * The Pulumi CLI that `npm run engine` built (PULUMI_ENGINE_BIN), run as a
 * user runs it: a local file backend, a passphrase, no plugin downloads, and
 * the provisioner's ARM_* in the environment, against the emulator.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Emulator } from "../../../emulator/server";
import { installConsumer, pinned } from "../package/consumer";

export interface PulumiRun {
  code: number;
  stdout: string;
  stderr: string;
}

export const PASSPHRASE = "engine test passphrase";

/** The directory of the built engine; a missing one is an error that says how to get it, never a skip. */
export function engineBin(): string {
  const bin = process.env.PULUMI_ENGINE_BIN;
  if (!bin) throw new Error("PULUMI_ENGINE_BIN is not set: run `npm run test:engine`, which builds the engine (npm run engine) first");
  return bin;
}

export interface PulumiProject {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs `pulumi ARGS` in the project, for at most ten minutes; resolves with its exit code and output. */
  run(args: string[]): Promise<PulumiRun>;
  /** The same, failing with its output when the exit code is not 0. */
  ok(args: string[]): Promise<PulumiRun>;
}

/**
 * A consumer project in `work`/`name` that installs the packed tarball and
 * @pulumi/pulumi, with `program` as its index.js, and its own backend and
 * PULUMI_HOME under `work`.
 */
export function consumerProject(work: string, name: string, tarball: string, program: string, emulator: Emulator, caFile: string): PulumiProject {
  // @pulumi/azuread: the Pulumi entry loads it; its plugin is needed only by azuread resources, which this program has none of.
  const dir = installConsumer(join(work, name), tarball, [pinned("@pulumi/pulumi"), pinned("@pulumi/azuread")]);
  writeFileSync(join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\nmain: index.js\n`);
  copyFileSync(program, join(dir, "index.js"));
  const state = join(work, `${name}-state`);
  mkdirSync(state);
  const provisioner = emulator.provisioner()!;
  const env: NodeJS.ProcessEnv = {
    PATH: `${engineBin()}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    HOME: work,
    PULUMI_HOME: join(work, `${name}-pulumi-home`),
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    ARM_TENANT_ID: provisioner.tenantId,
    ARM_CLIENT_ID: provisioner.clientId,
    ARM_CLIENT_SECRET: provisioner.clientSecret,
    NODE_EXTRA_CA_CERTS: caFile,
  };
  const run = (args: string[]) =>
    new Promise<PulumiRun>((done) => {
      // Asynchronous: the emulator answers from this process.
      execFile("pulumi", [...args, "--non-interactive"], { cwd: dir, env, encoding: "utf8", timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        done({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
      });
    });
  return {
    dir,
    env,
    run,
    ok: async (args) => {
      const result = await run(args);
      if (result.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
      return result;
    },
  };
}
