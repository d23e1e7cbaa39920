/**
 * One engine test file's world, made before its tests and torn down after
 * them: a scratch directory, an emulator, the engine's environment
 * (pulumi-cli.ts's `engineWorld`) and, on first use, the packed tarball.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../../emulator/server";
import { packTarball } from "../package/consumer";
import { engineWorld, type EngineWorld } from "./pulumi-cli";

export interface EngineTestWorld {
  readonly work: string;
  readonly emulator: Emulator;
  readonly world: EngineWorld;
  /** The repository packed with `npm pack`, once per file. */
  tarball(): string;
}

export function useEngineWorld(options: EmulatorOptions = {}): EngineTestWorld {
  let work: string | undefined;
  let emulator: Emulator | undefined;
  let world: EngineWorld | undefined;
  let tarball: string | undefined;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "agent-user-kit-engine-"));
    emulator = await startEmulator(options);
    world = await engineWorld(work, emulator);
  });
  afterAll(async () => {
    await emulator?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  const made = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("useEngineWorld: read in a test or a beforeAll, after the world is made");
    return value;
  };
  return {
    get work() {
      return made(work);
    },
    get emulator() {
      return made(emulator);
    },
    get world() {
      return made(world);
    },
    tarball: () => (tarball ??= packTarball(made(work))),
  };
}
