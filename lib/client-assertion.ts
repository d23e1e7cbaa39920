import type { KeyObject, X509Certificate } from "node:crypto";
import { nodeCrypto } from "./node-crypto";
import { UsageError } from "./errors";
import { ownProperties } from "./json-value";
import { signJwt } from "./jwt";

export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** Entra accepts an assertion valid for at most 10 minutes; stay well inside it. */
const ASSERTION_LIFETIME_S = 5 * 60;

/** A certificate credential: the public certificate uploaded to the app, and its private key. */
export interface CertificateCredential {
  certificatePem: string;
  privateKeyPem: string;
  /** For an encrypted private key. */
  passphrase?: string;
}

export interface LoadedCertificate {
  key: KeyObject;
  /** base64url SHA-256 of the certificate's DER: the `x5t#S256` header. */
  thumbprintS256: string;
}

/**
 * Parses once; a bad PEM is a configuration error that names what is wrong
 * (`owner`: whose credential, e.g. "blueprint"), never the key.
 */
export function loadCertificate(given: CertificateCredential, owner: string): LoadedCertificate {
  // Own properties only: a passphrase or PEM that other code put on Object.prototype is not this credential's.
  const credential = ownProperties(given) as CertificateCredential;
  let cert: X509Certificate;
  try {
    cert = new (nodeCrypto().X509Certificate)(credential.certificatePem);
  } catch {
    throw new UsageError(`the ${owner} certificate is not a PEM X.509 certificate`);
  }
  let key: KeyObject;
  try {
    key = nodeCrypto().createPrivateKey({ key: credential.privateKeyPem, passphrase: credential.passphrase });
  } catch {
    throw new UsageError(`the ${owner} private key cannot be read`, "give a PEM private key (PKCS#8 or PKCS#1); an encrypted one needs its passphrase");
  }
  if (!cert.checkPrivateKey(key)) throw new UsageError(`the ${owner} private key does not belong to the certificate`);
  return { key, thumbprintS256: nodeCrypto().createHash("sha256").update(cert.raw).digest("base64url") };
}

/**
 * The client assertion for a certificate credential: PS256 with `x5t#S256`,
 * `aud` the token endpoint, `iss` = `sub` = the client id, a unique `jti`
 * (docs/protocol.md, "Hop 1: the blueprint token (T1)").
 */
export function certificateAssertion(clientId: string, tokenEndpoint: string, cert: LoadedCertificate, nowS = Math.floor(Date.now() / 1000)): string {
  return signJwt(
    { alg: "PS256", "x5t#S256": cert.thumbprintS256 },
    { aud: tokenEndpoint, iss: clientId, sub: clientId, jti: nodeCrypto().randomUUID(), nbf: nowS, iat: nowS, exp: nowS + ASSERTION_LIFETIME_S },
    cert.key,
  );
}
