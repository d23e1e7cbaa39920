/**
 * README.md's "Try `pulumi up` locally" block, run with bash exactly as
 * written, in a directory that stands for a fresh clone (the clone's own
 * files, linked), on the engine `npm run engine` built: it must mint every
 * agent's token, exit 0, and leave nothing running or behind.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readmeExample, REPO } from "../package/consumer";
import { allMinted } from "./lifecycle";
import { engineBin, installAzuread } from "./pulumi-cli";

jest.setTimeout(900_000);

const CLONE = ["Pulumi.yaml", "pulumi-resource-agent-user-kit", "package.json", "tsconfig.json", "infra", "lib", "engine", "scripts", "node_modules", "dist"];

it("README's `pulumi up` block runs as written: the repository's stack is made, every agent mints, and it is destroyed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-user-kit-readme-up-"));
  try {
    for (const entry of CLONE) symlinkSync(join(REPO, entry), join(dir, entry));
    const script = `set -euo pipefail\n${readmeExample("## Try `pulumi up` locally", "sh engine")}`;
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      HOME: process.env.HOME,
      ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
      // Nothing is downloaded here: `pulumi up` finds the azuread plugin where the block's PULUMI_HOME keeps plugins.
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    // The launcher goes in a folder of its own: the block's folder must end as it began.
    await installAzuread(mkdtempSync(join(tmpdir(), "agent-user-kit-azuread-")), { ...env, PATH: `${engineBin()}:${env.PATH}`, PULUMI_HOME: join(dir, ".local-up") });
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile("bash", ["-c", script], { cwd: dir, env, encoding: "utf8", timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        done({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });
    expect({ code: run.code, minted: run.stdout.includes(allMinted(2)) }).toEqual({ code: 0, minted: true });
    // Only what was linked in is left: the stack file, state, env and outputs files are gone.
    expect(readdirSync(dir).sort()).toEqual([...CLONE].sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
