import { randomBytes } from "node:crypto";
import { lstatSync, statSync } from "node:fs";
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

/**
 * The default output directory: captures/<UTC time to the millisecond>-<random>,
 * e.g. captures/20261122T020132.123Z-3f9a1c, so runs in the same second (a loop,
 * or parallel jobs) never meet.
 */
export function defaultCaptureDir(now: Date = new Date()): string {
  return join("captures", `${now.toISOString().replace(/[-:]/g, "")}-${randomBytes(3).toString("hex")}`);
}

/**
 * Refuses, before anything is sent, a target that exists (even as a dangling
 * link: a capture is never written over another, nor through a link), or
 * whose nearest existing parent is not a directory.
 */
export function assertNewCaptureDir(target: string): void {
  if (lstatOrUndefined(target)) {
    throw new UsageError(`--out ${target} already exists; a capture never overwrites another, nor writes through a link`, "give a new --out DIR, or leave --out out for a fresh captures/<time>", STEP);
  }
  for (let dir = dirname(target); ; dir = dirname(dir)) {
    const stat = lstatOrUndefined(dir);
    if (stat) {
      if (!statSync(dir).isDirectory()) throw new UsageError(`--out ${target}: ${dir} is not a directory`, HINT, STEP);
      return;
    }
    if (dirname(dir) === dir) return;
  }
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
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
    try {
      await rename(this.temp, this.target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw new UsageError(`cannot move the finished capture to ${this.target}: ${code ?? (err as Error).message}`, HINT, STEP);
      // Another run took the same --out while this one worked: say exactly that, and keep what Graph answered.
      const kept = `${this.target}-${randomBytes(3).toString("hex")}`;
      await fsStep(`keep the finished capture at ${kept}`, () => rename(this.temp, kept));
      throw new UsageError(`--out ${this.target} was created by another run while this one captured; this capture is kept, complete, in ${kept}`, "give each run its own --out DIR", STEP);
    }
  }

  async discard(): Promise<void> {
    await rm(this.temp, { recursive: true, force: true });
  }
}
