import { randomUUID, X509Certificate } from "node:crypto";
import { isObject } from "../../lib/json-value";
import type { EmulatorContext, EmulatorRequest } from "../router";
import type { KeyCredential } from "../store";
import { credentialDate } from "./application-credentials";
import { graphError } from "./envelope";
import { GRAPH_ERRORS } from "./errors";

/**
 * A blueprint's `keyCredentials` as a body gives them: azuread's
 * ApplicationCertificate PATCHes them at `/applications/{id}`, and a create
 * or an update on the typed URL may carry them too (the blueprint page
 * documents the property).
 */

/**
 * A certificate as keyCredential.key carries it: base64 of its bytes, DER or
 * PEM (azuread sends the PEM text, `credentials.go` KeyCredentialForResource);
 * kept as base64 DER, which the token endpoint matches `x5t` against.
 */
function certificate(req: EmulatorRequest, key: unknown): X509Certificate {
  const bytes = typeof key === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(key) ? Buffer.from(key, "base64") : undefined;
  try {
    if (bytes && bytes.length > 0) return new X509Certificate(bytes);
  } catch {
    // Refused below, as any other value that is no certificate.
  }
  throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("key"));
}

/**
 * One entry of `keyCredentials`, which replaces the whole collection
 * (application-update). An entry whose keyId the blueprint holds and whose
 * `key` is null keeps that certificate: reads never return `key` (keyCredential:
 * "otherwise, it's always null"), so a client sends the ones it read back
 * that way. The emulator models the one kind the kit uploads, an
 * AsymmetricX509Cert used to Verify a client assertion.
 */
function keyCredential(req: EmulatorRequest, held: readonly KeyCredential[], given: unknown): { credential: KeyCredential; added: boolean } {
  if (!isObject(given)) throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("keyCredentials"));
  const fields = given as Record<string, unknown>;
  const keyId = fields.keyId === undefined || fields.keyId === null ? randomUUID() : String(fields.keyId).toLowerCase();
  const kept = held.find((k) => k.keyId === keyId);
  if (kept && (fields.key === null || fields.key === undefined)) return { credential: kept, added: false };
  if (fields.type !== "AsymmetricX509Cert") throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("type"));
  if (fields.usage !== "Verify") throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("usage"));
  const cert = certificate(req, fields.key);
  return {
    credential: {
      keyId,
      displayName: typeof fields.displayName === "string" ? fields.displayName : null,
      type: "AsymmetricX509Cert",
      usage: "Verify",
      key: cert.raw.toString("base64"),
      startDateTime: credentialDate(req, fields.startDateTime, "startDateTime", new Date(cert.validFrom)),
      endDateTime: credentialDate(req, fields.endDateTime, "endDateTime", new Date(cert.validTo)),
    },
    added: kept === undefined,
  };
}

/** The whole new collection a `keyCredentials` value makes of `held`; every entry is checked before any is kept. */
export function keyCredentialsFrom(req: EmulatorRequest, ctx: EmulatorContext, held: readonly KeyCredential[], value: unknown): KeyCredential[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw graphError(req, GRAPH_ERRORS.keyCredentialInvalid("keyCredentials"));
  const entries = value.map((given) => keyCredential(req, held, given));
  if (entries.some((e) => e.added) && ctx.store.blueprintSecretsRefused) throw graphError(req, GRAPH_ERRORS.blueprintSecretsRefused());
  return entries.map((e) => e.credential);
}
