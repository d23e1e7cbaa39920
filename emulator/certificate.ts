import { createPublicKey, createSign, generateKeyPairSync, randomBytes, X509Certificate, type KeyObject } from "node:crypto";
import { isIP } from "node:net";

/**
 * A minimal DER writer for one self-signed X.509 v3 certificate. Node can
 * parse certificates but not make them, and this is all the emulator needs
 * (its HTTPS listener, and test certificates for the certificate credential)
 * without pulling an ASN.1 library and a reflection polyfill into the CLI.
 */
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-11-22T01:51:00.000Z
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, "ascii"));
}

const name = (commonName: string) => seq(set(seq(oid("2.5.4.3"), tlv(0x0c, Buffer.from(commonName, "utf8")))));

function subjectAltNames(hosts: readonly string[]): Buffer {
  const names = hosts.map((host) => {
    if (isIP(host) === 4) return tlv(0x87, Buffer.from(host.split(".").map(Number)));
    return tlv(0x82, Buffer.from(host, "ascii"));
  });
  return seq(oid("2.5.29.17"), tlv(0x04, seq(...names)));
}

export interface SelfSignedCertificate {
  certificatePem: string;
  privateKeyPem: string;
  privateKey: KeyObject;
  certificate: X509Certificate;
}

export interface CertificateOptions {
  commonName: string;
  /** DNS names and IPv4 addresses for subjectAltName; none for a client certificate. */
  hosts?: readonly string[];
  validDays?: number;
  privateKey?: KeyObject;
}

/** An RSA-2048, sha256WithRSAEncryption, self-signed certificate. */
export function selfSignedCertificate(options: CertificateOptions): SelfSignedCertificate {
  const privateKey = options.privateKey ?? generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const spki = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  const sha256WithRsa = seq(oid("1.2.840.113549.1.1.11"), Buffer.from([0x05, 0x00]));
  const serial = randomBytes(16);
  // A positive INTEGER with a non-zero first byte: DER forbids a redundant leading zero.
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const now = Date.now();
  const validity = seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + (options.validDays ?? 30) * 86_400_000)));
  const extensions = options.hosts?.length ? [explicit(3, seq(subjectAltNames(options.hosts)))] : [];
  const tbs = seq(
    explicit(0, tlv(0x02, Buffer.from([0x02]))),
    tlv(0x02, serial),
    sha256WithRsa,
    name(options.commonName),
    validity,
    name(options.commonName),
    spki,
    ...extensions,
  );
  const signature = createSign("sha256").update(tbs).sign(privateKey);
  const der = seq(tbs, sha256WithRsa, tlv(0x03, Buffer.concat([Buffer.from([0x00]), signature])));
  const certificatePem = `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n?$/, "\n")}-----END CERTIFICATE-----\n`;
  return {
    certificatePem,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    privateKey,
    certificate: new X509Certificate(certificatePem),
  };
}
