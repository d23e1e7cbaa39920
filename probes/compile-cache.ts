import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

/**
 * Node's compile cache is code: whatever is in it runs in the process that
 * holds the blueprint secret and the provisioner's credentials. Node's own
 * default place is $TMPDIR/node-compile-cache, shared by every user of the
 * machine, and Node checks neither the owner nor the mode of the directory
 * it is given. So the cache lives only in a directory this user alone can
 * change: under $XDG_CACHE_HOME, or ~/.cache, made 0700; that directory and
 * the cache home are this user's (or root's) and writable by no one else,
 * and so is every directory above them, except that one writable by all
 * with the sticky bit (/tmp) may be passed through, as no one can rename or
 * remove another's entries there. Where there is no such place (no user id
 * to check, as on Windows; a home that cannot be written; someone else's
 * directory in the way; a cache home in a shared temporary directory),
 * there is no cache: start-up is a little slower, never unsafe.
 */

/** The cache directory under the user's cache home. */
const CACHE_PATH = ["agent-user-kit", "node-compile-cache"] as const;

/** $XDG_CACHE_HOME when it is an absolute path (the XDG spec ignores any other), else $HOME/.cache. */
function cacheHome(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return xdg;
  let home = env.HOME;
  try {
    // Without $HOME, the home of the user's account; it throws when the account has none.
    home ||= homedir();
  } catch {
    return undefined;
  }
  return home && isAbsolute(home) ? join(home, ".cache") : undefined;
}

const STICKY = 0o1000;

/**
 * Whether `dir` and every directory above it are owned by `uid` or root and
 * writable by no one else, but for sticky directories strictly above `home`.
 */
function ownedAlongTheWay(dir: string, home: string, uid: number): boolean {
  const aboveHome = new Set<string>();
  for (let at = home; dirname(at) !== at; ) aboveHome.add((at = dirname(at)));
  for (let at = dir; ; at = dirname(at)) {
    const stat = lstatSync(at);
    if (!stat.isDirectory() || (stat.uid !== uid && stat.uid !== 0)) return false;
    if ((stat.mode & 0o022) !== 0 && !(aboveHome.has(at) && (stat.mode & STICKY) !== 0)) return false;
    if (dirname(at) === at) return true;
  }
}

/**
 * The private directory for this user's compile cache, made if need be, or
 * undefined when no safe one exists. The directory itself must be this
 * user's own, not root's.
 */
export function privateCompileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const uid = process.getuid?.();
  const home = cacheHome(env);
  if (uid === undefined || home === undefined) return undefined;
  try {
    // The cache home first, so that nothing is made inside one that is not safe (a shared temporary directory).
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const realHome = realpathSync(home);
    if (!ownedAlongTheWay(realHome, realHome, uid)) return undefined;
    const wanted = join(realHome, ...CACHE_PATH);
    mkdirSync(wanted, { recursive: true, mode: 0o700 });
    // Checked where it really is, and handed to Node by that path, so no link can move it after the check.
    const dir = realpathSync(wanted);
    return lstatSync(dir).uid === uid && ownedAlongTheWay(dir, realHome, uid) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Turns on Node's compile cache (Node 22.1+) in this user's private directory, or leaves it off. */
export function enablePrivateCompileCache(): void {
  if (typeof enableCompileCache !== "function") return;
  const dir = privateCompileCacheDir();
  if (dir !== undefined) enableCompileCache(dir);
}
