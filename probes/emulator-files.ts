import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { UsageError } from "../lib/errors";
import { refuseSymbolicLink, type FileLabel } from "../lib/whole-file";
import type { ProvisionerSecret, TestUser } from "../emulator/server";

/*
 * The files `agent-user emulator` writes beside its outputs: the
 * provisioner's settings (--env-out), the test-only sign-in of its seeded
 * person (--test-user-out), and where its certificate goes.
 */

/** A shell assignment; single quotes keep every character as is. */
const assignment = (name: string, value: string) => `${name}='${value.replace(/'/g, "'\\''")}'\n`;

/** Shell assignments of the provisioner's ARM_* settings. */
export function envFileText(p: ProvisionerSecret, metadataHost: string, caFile: string): string {
  const settings: [string, string][] = [
    ["ARM_TENANT_ID", p.tenantId],
    ["ARM_CLIENT_ID", p.clientId],
    ["ARM_CLIENT_SECRET", p.clientSecret],
    // The azuread provider reads its login and Graph endpoints from this host's cloud metadata, over HTTPS.
    ["ARM_METADATA_HOSTNAME", metadataHost],
    // Trust for the HTTPS listener: Go programs (the azuread provider) read SSL_CERT_FILE, Node reads NODE_EXTRA_CA_CERTS.
    ["SSL_CERT_FILE", caFile],
    ["NODE_EXTRA_CA_CERTS", caFile],
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

/**
 * Removes what an earlier run left at `path`; a path that cannot be removed is
 * a usage error naming its flag. A symbolic link there is refused, not
 * removed: the secret file is never written in its place either.
 */
export function removeStale(path: string, flag: string): void {
  refuseSymbolicLink(path, flag);
  try {
    rmSync(path, { force: true });
  } catch (err) {
    throw new UsageError(`${flag} ${path} cannot be replaced: ${(err as NodeJS.ErrnoException).code ?? "unremovable"}`, `${flag} names a file (not a directory) in a directory you can write`);
  }
}

