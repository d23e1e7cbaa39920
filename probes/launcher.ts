import { closeSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";

/**
 * The way from a long-running command up to what launched it, to notice when
 * the launcher goes away. npm and npx run a bin's command line under `sh -c`, and
 * that shell stays as the command's parent while it runs: when npx itself is
 * killed with SIGKILL, or with SIGHUP, which npm does not pass on, the shell
 * lives on, the command's parent does not change, and an emulator would keep
 * its ports open for nobody. So the launcher is the first ancestor that is not
 * such a shell, and every link up to it is watched: a process on the way that
 * is reparented or gone means the launcher went away.
 *
 * The links past the command's own parent are read from /proc (Linux);
 * elsewhere only the parent is watched.
 */

/** A process and the parent it had when the way was taken. */
export interface LauncherLink {
  pid: number;
  parent: number;
}

/** A stat or cmdline line of /proc is short; what is needed is at its start. */
const PROC_READ_BYTES = 4096;
/** Shells nested deeper than this are not a package manager's. */
const MAX_SHELLS = 8;
/** POSIX shells a package manager runs a command line with. */
const SHELLS: ReadonlySet<string> = new Set(["sh", "dash", "bash", "zsh", "ksh", "mksh", "ash"]);

/** The start of /proc/PID/FILE, or undefined when the process is gone or there is no /proc. */
function readProc(pid: number, file: "stat" | "cmdline"): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/${file}`, "r");
    const buf = Buffer.alloc(PROC_READ_BYTES);
    return buf.toString("utf8", 0, readSync(fd, buf, 0, buf.length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The parent of `pid` now; its stat line holds it after the command name, which may itself hold spaces and parentheses. */
function parentOf(pid: number): number | undefined {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return undefined;
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** Whether `pid` is a shell running one command line (`sh -c …`), as package managers run a bin. */
function isCommandShell(pid: number): boolean {
  const argv = readProc(pid, "cmdline")?.split("\0") ?? [];
  return argv[1] === "-c" && SHELLS.has(basename(argv[0] ?? ""));
}

/** The links from this process up to its launcher, through any `sh -c` between them. */
export function launcherLinks(): LauncherLink[] {
  const links: LauncherLink[] = [{ pid: process.pid, parent: process.ppid }];
  for (let shell = links[0]!.parent; links.length <= MAX_SHELLS && shell > 1 && isCommandShell(shell); ) {
    const parent = parentOf(shell);
    if (parent === undefined) break;
    links.push({ pid: shell, parent });
    shell = parent;
  }
  return links;
}

/** Whether a link broke: a process on the way to the launcher has another parent now, or is gone. */
export function launcherGone(links: readonly LauncherLink[]): boolean {
  return links.some(({ pid, parent }) => (pid === process.pid ? process.ppid : parentOf(pid)) !== parent);
}
