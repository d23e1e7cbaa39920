import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
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
  const place = (path: string, name: string, hint: string): CaPlace => ({ path, label: { name, hint: () => hint } });
  if (flag !== undefined) {
    const path = resolve(cwd, flag);
    return place(path, `--ca-file ${path}`, "--ca-file names the certificate's file (not a directory), in a directory you can write");
  }
  if (outputsFile) {
    const path = join(dirname(outputsFile), "emulator-ca.pem");
    return place(path, `the certificate beside --outputs, ${path}`, "give --outputs a directory you can write, or name the certificate's file with --ca-file FILE");
  }
  const madeDir = makeTempDir();
  const path = join(madeDir, "ca.pem");
  return { ...place(path, `the certificate under TMPDIR, ${path}`, "set TMPDIR to a directory you can write, or name the certificate's file with --ca-file FILE"), madeDir };
}

/** How a refused --outputs or --env-out place is named, and its hint. */
const fileLabel = (flag: string, path: string): FileLabel => ({
  name: `${flag} ${path}`,
  hint: () => `${flag} names a regular file (not a directory, device, FIFO or socket) in a directory you can write`,
});

/** Where the trust bundle of an --env-out file goes: emulator-trust.pem beside the certificate, gone with it when the emulator made its directory. */
export function trustPlace(ca: CaPlace): CaPlace {
  const path = join(dirname(ca.path), "emulator-trust.pem");
  return { path, label: { name: `the trust bundle beside the certificate, ${path}`, hint: () => "name the certificate's file with --ca-file FILE in a directory you can write" } };
}

/**
 * Checks every place the emulator writes before anything is removed or
 * written: --outputs and --env-out may hold an earlier run's regular file,
 * nothing else (never a symbolic link, which could point a secret anywhere;
 * never a device, FIFO, socket or directory, which a removal would destroy:
 * `--env-out /dev/null` run as root would replace the machine's /dev/null
 * with a file of secrets); the certificate's place is checked the same way.
 */
export function checkPlaces(files: ReadonlyArray<[path: string | undefined, flag: string]>, ca: CaPlace, trust: CaPlace | undefined): void {
  for (const [path, flag] of files) {
    if (path === undefined) continue;
    refuseSymbolicLink(path, flag);
    refuseNonRegular(path, fileLabel(flag, path));
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
