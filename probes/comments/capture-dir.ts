import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { UsageError } from "../../lib/errors";

/**
 * A capture being written. Files go to a hidden temporary sibling of the
 * target, renamed into place only when complete, so an interrupted or failed
 * run never leaves anything that looks like a finished capture. Comments can
 * be confidential: directories are 0700 and files 0600.
 */

const HINT = "choose a writable --out DIR on a local disk";
const STEP = "capture directory";

async function fsStep<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw new UsageError(`cannot ${what}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, HINT, STEP);
  }
}

/** The default output directory: captures/<UTC timestamp>, e.g. captures/20261122T020132Z. */
export function defaultCaptureDir(now: Date = new Date()): string {
  return join("captures", now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z"));
}

/** Refuses an existing target before anything is sent: a capture is never written over another. */
export function assertNewCaptureDir(target: string): void {
  if (existsSync(target)) throw new UsageError(`${target} already exists; a capture never overwrites another`, "give a new --out DIR, or leave --out out for captures/<UTC timestamp>", STEP);
}

export class CaptureDir {
  private constructor(
    readonly target: string,
    private readonly temp: string,
  ) {}

  static async create(target: string): Promise<CaptureDir> {
    const parent = dirname(target);
    await fsStep(`create ${parent}`, () => mkdir(parent, { recursive: true, mode: 0o700 }));
    // mkdtemp creates the directory with mode 0700.
    const temp = await fsStep(`create a temporary directory in ${parent}`, () => mkdtemp(join(parent, `.${basename(target)}.partial-`)));
    return new CaptureDir(target, temp);
  }

  async write(name: string, text: string): Promise<void> {
    await fsStep(`write ${name} of the capture`, () => writeFile(join(this.temp, name), text, { mode: 0o600, flag: "wx" }));
  }

  async commit(): Promise<void> {
    await fsStep(`move the finished capture to ${this.target}`, () => rename(this.temp, this.target));
  }

  async discard(): Promise<void> {
    await rm(this.temp, { recursive: true, force: true });
  }
}
