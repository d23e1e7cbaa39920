/**
 * The emulator's own self-signed certificates (its HTTPS listener, and test
 * certificates for the blueprint's certificate credential), checked by
 * Node's X.509 parser and by a TLS handshake's rules.
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { checkServerIdentity } from "node:tls";
import { selfSignedCertificate } from "../../emulator/certificate";

it("is a valid self-signed certificate with a positive serial, its validity and its names", () => {
  for (let i = 0; i < 20; i++) {
    const { certificate } = selfSignedCertificate({ commonName: "agent-user-kit emulator", hosts: ["localhost", "127.0.0.1"], validDays: 2 });
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    // DER INTEGERs are signed: a serial with its top bit set would be negative, which TLS stacks refuse.
    expect(Number.parseInt(certificate.serialNumber.slice(0, 2), 16)).toBeLessThan(0x80);
    expect(certificate.subject).toBe("CN=agent-user-kit emulator");
    expect(certificate.subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1");
    const days = (Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)) / 86_400_000;
    expect(days).toBeGreaterThan(2);
    expect(days).toBeLessThan(2.01);
    const peer = certificate.toLegacyObject();
    expect(checkServerIdentity("localhost", peer)).toBeUndefined();
    expect(checkServerIdentity("example.com", peer)?.message).toMatch(/is not in the cert.s altnames/);
  }
});

it("a client certificate has no subjectAltName", () => {
  const { certificate, privateKeyPem } = selfSignedCertificate({ commonName: "blueprint" });
  expect(certificate.subjectAltName).toBeUndefined();
  // The key that signs with the certificate's public key: a pair.
  expect(createPrivateKey(privateKeyPem).type).toBe("private");
  expect(createPublicKey(privateKeyPem).export({ type: "spki", format: "der" })).toEqual(certificate.publicKey.export({ type: "spki", format: "der" }));
});
