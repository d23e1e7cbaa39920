/**
 * `npm run engine` on a machine that already has a Pulumi CLI on PATH (a
 * laptop, a CI runner with pulumi/actions): at or above the @pulumi/pulumi the
 * kit pins, it uses that CLI as it is, says so, and leaves plugin acquisition
 * and SDK generation to it (PULUMI_ENGINE_SOURCE=path, an empty
 * PULUMI_SDK_GENERATOR), building nothing. The CLI here is a
 * script that answers `pulumi version` alone: the choice is all this tests.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./package/consumer";

const pinned = (JSON.parse(spawnSync(process.execPath, ["-p", "JSON.stringify(require('@pulumi/pulumi/package.json'))"], { cwd: REPO, encoding: "utf8" }).stdout) as { version: string }).version;

function engineWith(cliVersion: string): { code: number | null; stdout: string; stderr: string; bin: string } {
  const bin = mkdtempSync(join(tmpdir(), "agent-user-kit-pulumi-on-path-"));
  try {
    writeFileSync(join(bin, "pulumi"), `#!/bin/sh\n[ "$1" = version ] && echo v${cliVersion} && exit 0\nexit 1\n`);
    chmodSync(join(bin, "pulumi"), 0o755);
    // No go on this PATH: a build would fail at once, so a run that exits 0 built nothing.
    const run = spawnSync("bash", [join(REPO, "scripts", "engine.sh")], {
      cwd: REPO,
      encoding: "utf8",
      env: { PATH: `${bin}:${join(process.execPath, "..")}:/usr/bin:/bin`, HOME: bin },
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr, bin };
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

it("uses a Pulumi CLI on PATH at or above the pinned SDK, says so, and prints its dir, its source and no SDK generator", () => {
  const [major, minor] = pinned.split(".").map(Number) as [number, number];
  const run = engineWith(`${major}.${minor + 5}.0`);
  expect(run.code).toBe(0);
  expect(run.stdout).toBe(`PULUMI_ENGINE_BIN=${run.bin}\nPULUMI_ENGINE_SOURCE=path\nPULUMI_SDK_GENERATOR=\n`);
  expect(run.stderr).toContain(`using the Pulumi CLI on PATH, ${run.bin}/pulumi (v${major}.${minor + 5}.0, at or above @pulumi/pulumi ${pinned}), with its own plugin acquisition`);
});

it("does not use one older than the pinned SDK: it says so and goes on to build (here it cannot, with no go on PATH)", () => {
  const run = engineWith("3.100.0");
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain(`is older than @pulumi/pulumi ${pinned}: building one`);
  expect(run.stderr).toContain("go is not on PATH");
});
