import { existsSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { UsageError } from "../lib/errors";
import { readRegularFile, unreadableReason } from "../lib/user-files";

/*
 * The trust an `--env-out` file hands a shell: SSL_CERT_FILE (Go programs,
 * the azuread provider among them, and OpenSSL) and NODE_EXTRA_CA_CERTS
 * (Node) both name one bundle, which adds the emulator's certificate to the
 * trust those variables named before, or else to the system's. Naming the
 * emulator's certificate alone would take every other root away from the
 * shell that sources the file: `npm install` there fails behind a
 * TLS-inspecting proxy, and Go programs lose the public roots.
 */

/** Where Go's crypto/x509 looks for the system bundle on Linux and the BSDs (root_linux.go, root_bsd.go), first found first. */
export const SYSTEM_BUNDLES: readonly string[] = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

/** A bundle of trust is a few hundred KiB; a file past this is not one. */
const MAX_BUNDLE_BYTES = 4 * 1024 * 1024;
const HEADER = "# agent-user emulator: the trust this shell had, then the emulator's certificate\n";
/** What precedes the emulator's certificate in a bundle this module wrote: a later run keeps only what comes before it. */
const EMULATOR_PART = "# the agent-user emulator's certificate\n";

/** The certificates a bundle file holds before any emulator's part, so a bundle sourced before does not pile up old emulators' certificates. */
function previousTrust(text: string): string {
  const at = text.startsWith(HEADER) ? text.indexOf(EMULATOR_PART) : -1;
  return (at < 0 ? text : text.slice(HEADER.length, at)).trimEnd();
}

function readBundle(variable: string, path: string): string {
  try {
    return readRegularFile(path, MAX_BUNDLE_BYTES);
  } catch (err) {
    throw new UsageError(
      `--env-out: cannot read the certificates ${variable} names, ${path}: ${unreadableReason(err)}`,
      `unset ${variable}, or point it at a readable bundle of PEM certificates, before starting the emulator`,
    );
  }
}

export interface TrustBundle {
  /** The PEM text to write. */
  text: string;
  /** Where its trust came from besides the emulator: the files read, or Node's own root list. */
  sources: string[];
}

/** The roots a shell trusts without SSL_CERT_FILE: the system's bundle, or Node's own root list where no such file exists (a bare macOS or Windows). */
function systemTrust(systemBundles: readonly string[]): { source: string; text: string } {
  const system = systemBundles.find((path) => existsSync(path));
  return system ? { source: system, text: previousTrust(readBundle("the system bundle", system)) } : { source: "Node.js's root certificates", text: rootCertificates.join("\n") };
}

/**
 * The emulator's certificate added to the trust `env` names: SSL_CERT_FILE's
 * file when set (it replaces the system's roots for Go and OpenSSL), else the
 * system's roots; then NODE_EXTRA_CA_CERTS's file when set (certificates
 * Node trusts besides its own, such as a TLS-inspecting proxy's).
 */
export function trustBundle(caPem: string, env: NodeJS.ProcessEnv, systemBundles: readonly string[] = SYSTEM_BUNDLES): TrustBundle {
  // A variable naming a file that is gone (an earlier emulator's bundle, say) adds no trust, as it does for
  // Go, OpenSSL and Node, which then fall back to the system's roots or skip it.
  const file = (variable: "SSL_CERT_FILE" | "NODE_EXTRA_CA_CERTS") => {
    const path = env[variable];
    return path && existsSync(path) ? { source: path, text: previousTrust(readBundle(variable, path)) } : undefined;
  };
  const base = file("SSL_CERT_FILE") ?? systemTrust(systemBundles);
  const extra = env.NODE_EXTRA_CA_CERTS !== env.SSL_CERT_FILE ? file("NODE_EXTRA_CA_CERTS") : undefined;
  const parts = extra ? [base, extra] : [base];
  const text = `${HEADER}${parts.map((p) => `# from ${p.source}\n${p.text}\n`).join("")}${EMULATOR_PART}${caPem.trimEnd()}\n`;
  return { text, sources: parts.map((p) => p.source) };
}
