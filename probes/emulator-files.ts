import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import { UsageError } from "../lib/errors";
import { refuseNonRegular, refuseSymbolicLink, type FileLabel } from "../lib/whole-file";
import type { ProvisionerSecret, TestUser } from "../emulator/server";

/*
 * Where `agent-user emulator` writes (the certificate, the trust bundle an
 * --env-out file names, --outputs, --env-out and --test-user-out), what the
 * two shell files hold, and the checks on each place before anything there
 * is removed or written.
 */

/** A shell assignment; single quotes keep every character as is. */
const assignment = (name: string, value: string) => `${name}='${value.replace(/'/g, "'\\''")}'\n`;

/** Shell assignments of the provisioner's ARM_* settings, and the trust bundle for the emulator's HTTPS listener. */
export function envFileText(p: ProvisionerSecret, metadataHost: string, trustFile: string): string {
  const settings: [string, string][] = [
    ["ARM_TENANT_ID", p.tenantId],
    ["ARM_CLIENT_ID", p.clientId],
    ["ARM_CLIENT_SECRET", p.clientSecret],
    // The azuread provider reads its login and Graph endpoints from this host's cloud metadata, over HTTPS.
    ["ARM_METADATA_HOSTNAME", metadataHost],
    // Trust for the HTTPS listener beside the shell's own (probes/trust-bundle.ts): Go programs (the azuread
    // provider) and OpenSSL read SSL_CERT_FILE, Node reads NODE_EXTRA_CA_CERTS.
    ["SSL_CERT_FILE", trustFile],
    ["NODE_EXTRA_CA_CERTS", trustFile],
  ];
  return settings.map(([name, value]) => assignment(name, value)).join("");
}

/**
 * TEST ONLY: shell assignments of what the password grant needs to sign the
 * seeded person in through the public client, for a token whose audience is
 * the blueprint (the on-behalf-of flow's user assertion), and the token
 * endpoint to send it to.
 */
export function testUserFileText(user: TestUser, authorityUrl: string): string {
  const settings: [string, string][] = [
    ["AGENT_USER_TEST_TOKEN_URL", `${authorityUrl}/${user.tenantId}/oauth2/v2.0/token`],
    ["AGENT_USER_TEST_CLIENT_ID", user.clientId],
    ["AGENT_USER_TEST_USERNAME", user.username],
    ["AGENT_USER_TEST_PASSWORD", user.password],
    ["AGENT_USER_TEST_SCOPE", user.scope],
  ];
  return settings.map(([name, value]) => assignment(name, value)).join("");
}

/** Where the certificate goes: the path, and how a refusal to write there is worded. */
export interface CaPlace {
  path: string;
  /** What names the place in a message beside another flag's, e.g. "--ca-file". */
  who: string;
  label: FileLabel;
  /** The temp directory made to hold it, removed when the emulator stops. */
  madeDir?: string;
}

/** A new directory under the system temp directory, for a certificate given no other place; gone when the emulator stops. */
function makeTempDir(): string {
  try {
    return mkdtempSync(join(tmpdir(), "agent-user-emulator-"));
  } catch (err) {
    throw new UsageError(
      `cannot make a directory for the certificate under TMPDIR ${tmpdir()}: ${(err as NodeJS.ErrnoException).code ?? "unwritable"}`,
      "set TMPDIR to a directory you can write, or name the certificate's file with --ca-file FILE",
    );
  }
}

/**
 * Never the directory the user happens to stand in: --ca-file, else beside the
 * outputs, else a fresh temp directory (made only then).
 */
export function caPlace(flag: string | undefined, outputsFile: string | undefined, cwd: string): CaPlace {
  const place = (path: string, who: string, hint: string): CaPlace => ({ path, who, label: { name: who.startsWith("--") ? `${who} ${path}` : `${who}, ${path}`, hint: () => hint } });
  if (flag !== undefined) {
    const path = resolve(cwd, flag);
    return place(path, "--ca-file", "--ca-file names the certificate's file (not a directory), in a directory you can write");
  }
  if (outputsFile) {
    const path = join(dirname(outputsFile), "emulator-ca.pem");
    return place(path, "the certificate beside --outputs", "give --outputs a directory you can write, or name the certificate's file with --ca-file FILE");
  }
  const madeDir = makeTempDir();
  const path = join(madeDir, "ca.pem");
  return { ...place(path, "the certificate under TMPDIR", "set TMPDIR to a directory you can write, or name the certificate's file with --ca-file FILE"), madeDir };
}

/** How a refused --outputs or --env-out place is named, and its hint. */
const fileLabel = (flag: string, path: string): FileLabel => ({
  name: `${flag} ${path}`,
  hint: () => `${flag} names a regular file (not a directory, device, FIFO or socket) in a directory you can write`,
});

/** Where the trust bundle of an --env-out file goes: emulator-trust.pem beside the certificate, gone with it when the emulator made its directory. */
export function trustPlace(ca: CaPlace): CaPlace {
  const path = join(dirname(ca.path), "emulator-trust.pem");
  const who = "the trust bundle beside the certificate";
  return { path, who, label: { name: `${who}, ${path}`, hint: () => "name the certificate's file with --ca-file FILE in a directory you can write" } };
}

/** One name of a file: its directory's links resolved where it exists, so that two names of one file meet. */
function fileKey(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path; // a directory yet to be made: only its spelled path can name it
  }
}

/**
 * Refuses two flags (or a flag and a file the run places itself) naming one
 * file: the later write would replace the earlier file without a word, and
 * --outputs over --tenant-file would remove the tenant file at start. Paths
 * are compared absolute, through their directories' links.
 */
export function refuseSamePlace(places: ReadonlyArray<{ path: string | undefined; who: string }>): void {
  const seen = new Map<string, { path: string; who: string }>();
  for (const { path, who } of places) {
    if (path === undefined) continue;
    const key = fileKey(path);
    const earlier = seen.get(key);
    if (earlier) throw new UsageError(`${earlier.who} and ${who} name the same file, ${earlier.path}`, "give each file of the emulator a path of its own");
    seen.set(key, { path, who });
  }
}

/** Whether `dir` is `made` or one of the directories above it, which writing the certificate makes. */
const madeWith = (dir: string, made: string) => made === dir || made.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** Why a file cannot go into `dir`: ENOENT, ENOTDIR or another errno code; undefined when it is a directory. */
function directoryProblem(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? undefined : "ENOTDIR";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? "unreachable";
  }
}

/** Refuses a file whose directory is missing, or not a directory, unless writing the certificate makes it. */
function refuseMissingDirectory(path: string, flag: string, certificateDir: string): void {
  const dir = dirname(path);
  const problem = madeWith(dir, certificateDir) ? undefined : directoryProblem(dir);
  if (problem === undefined) return;
  throw new UsageError(`cannot write ${flag} ${path}: ${problem}`, problem === "ENOENT" ? "its directory must exist" : `${dir} must be a directory you can write`);
}

/**
 * Checks every place the emulator writes before anything is removed or
 * written: --outputs and --env-out may hold an earlier run's regular file,
 * nothing else (never a symbolic link, which could point a secret anywhere;
 * never a device, FIFO, socket or directory, which a removal would destroy:
 * `--env-out /dev/null` run as root would replace the machine's /dev/null
 * with a file of secrets), in a directory that exists (only the
 * certificate's are made); the certificate's place is checked the same way.
 */
export function checkPlaces(files: ReadonlyArray<[path: string | undefined, flag: string]>, ca: CaPlace, trust: CaPlace | undefined): void {
  for (const [path, flag] of files) {
    if (path === undefined) continue;
    refuseSymbolicLink(path, flag);
    refuseNonRegular(path, fileLabel(flag, path));
    refuseMissingDirectory(path, flag, dirname(ca.path));
  }
  for (const place of trust ? [ca, trust] : [ca]) refuseNonRegular(place.path, place.label);
}

/** Removes the regular file an earlier run left at `path` (checkPlaces has looked at it); one that cannot be removed is a usage error naming its flag. */
export function removeStale(path: string, flag: string): void {
  try {
    rmSync(path, { force: true });
  } catch (err) {
    throw new UsageError(`${flag} ${path} cannot be replaced: ${(err as NodeJS.ErrnoException).code ?? "unremovable"}`, fileLabel(flag, path).hint(""));
  }
}

/**
 * The files of one start, each written whole, one after another: when a
 * later one cannot be written (a full disk, a name too long, a directory
 * that went away), undo removes those already written and the directories
 * made for the certificate, so that a refused start leaves no file behind.
 */
export class StartFiles {
  readonly #written: string[] = [];
  #madeDir: string | undefined;

  /** Makes the certificate's missing directories; undo removes the first one made (never one that was there). */
  makeDirsFor(place: CaPlace): void {
    try {
      this.#madeDir = mkdirSync(dirname(place.path), { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "unwritable";
      throw new UsageError(`cannot write ${place.label.name}: ${code}`, place.label.hint(code));
    }
  }

  /** Runs `write`, which writes `path` whole or not at all, and remembers the file for undo. */
  add(path: string, write: () => void): void {
    write();
    this.#written.push(path);
  }

  /** Removes what this start wrote, last first. */
  undo(): void {
    for (const path of [...this.#written].reverse()) removeQuietly(path);
    if (this.#madeDir) removeQuietly(this.#madeDir);
    this.#written.length = 0;
    this.#madeDir = undefined;
  }
}

/** Removes a file or directory of this start; one that cannot be reached stays, and the error that refused the start is the one told. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // left where it is: the refusal already names the place
  }
}
