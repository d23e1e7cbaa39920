import { X509Certificate } from "node:crypto";
import { quoted, type ConfigKey, type Fail, type RawConfig } from "./config-keys";
import { futureDate, guid, isSet, text } from "./config-values";

/** How the blueprint proves itself in hop 1: the `credential` key and what each mode needs. */

export const CREDENTIAL_MODES = ["secret", "managedIdentity", "certificate"] as const;
/** How the blueprint proves itself in hop 1: a client secret, a managed identity's token, or a certificate. */
export type CredentialMode = (typeof CREDENTIAL_MODES)[number];

/** How the blueprint proves itself in hop 1. */
export type CredentialConfig =
  | { mode: "secret"; endDate?: string }
  | { mode: "managedIdentity"; existingPrincipalId: string }
  | { mode: "managedIdentity"; newIdentity: { resourceGroupName: string; location: string } }
  | { mode: "certificate"; certificatePem: string; endDate: string };

export function credentialConfig(raw: RawConfig, now: Date, fail: Fail): CredentialConfig | undefined {
  const mode = text(raw, "credential", fail) ?? "secret";
  if (!(CREDENTIAL_MODES as readonly string[]).includes(mode)) {
    fail("credential", `must be one of ${CREDENTIAL_MODES.join(", ")}, got ${quoted(fail, "credential", mode)}`);
    return undefined;
  }
  // A key of another mode is a sign of a half-made switch; naming it beats silently ignoring it.
  const onlyFor: Array<[ConfigKey, CredentialMode]> = [
    ["secretEndDate", "secret"],
    ["managedIdentityPrincipalId", "managedIdentity"],
    ["resourceGroupName", "managedIdentity"],
    ["location", "managedIdentity"],
    ["certificatePem", "certificate"],
  ];
  for (const [key, owner] of onlyFor) {
    if (owner !== mode && isSet(raw, key)) fail(key, `is used only when credential is ${owner} (credential is ${mode}); remove it or change credential`);
  }
  if (mode === "secret") {
    const endDate = futureDate(raw, "secretEndDate", now, fail);
    return endDate === undefined ? { mode } : { mode, endDate };
  }
  if (mode === "managedIdentity") {
    if (isSet(raw, "managedIdentityPrincipalId")) {
      for (const key of ["resourceGroupName", "location"] as const) {
        if (isSet(raw, key)) fail(key, "is not used when managedIdentityPrincipalId names an existing identity; remove one of them");
      }
      const existingPrincipalId = guid(raw, "managedIdentityPrincipalId", fail);
      return existingPrincipalId === undefined ? undefined : { mode, existingPrincipalId };
    }
    const resourceGroupName = text(raw, "resourceGroupName", fail);
    const location = text(raw, "location", fail);
    const missing = "is required to create a user-assigned managed identity when managedIdentityPrincipalId is not set";
    if (resourceGroupName === undefined) fail("resourceGroupName", missing);
    if (location === undefined) fail("location", missing);
    return resourceGroupName && location ? { mode, newIdentity: { resourceGroupName, location } } : undefined;
  }
  return certificate(raw, now, fail);
}

function certificate(raw: RawConfig, now: Date, fail: Fail): CredentialConfig | undefined {
  const pem = text(raw, "certificatePem", fail);
  if (pem === undefined) {
    fail("certificatePem", "is required when credential is certificate: the public certificate (PEM) to upload to the blueprint");
    return undefined;
  }
  if (/PRIVATE KEY-----/.test(pem)) {
    fail("certificatePem", "contains a private key; give only the public certificate, the key never leaves the machine that signs assertions");
    return undefined;
  }
  let validTo: Date;
  try {
    validTo = new Date(new X509Certificate(pem).validTo);
  } catch {
    fail("certificatePem", "is not a PEM X.509 certificate (-----BEGIN CERTIFICATE-----)");
    return undefined;
  }
  if (Number.isNaN(validTo.getTime()) || validTo <= now) {
    fail("certificatePem", "has expired; issue a new certificate");
    return undefined;
  }
  return { mode: "certificate", certificatePem: pem, endDate: validTo.toISOString() };
}

