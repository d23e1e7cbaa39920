import { nodeCrypto } from "../lib/node-crypto";

/*
 * A PKCS#12 (.pfx/.p12) reader for the one thing the provisioner needs: its
 * certificate and private key. node:crypto has no PKCS#12 parser, so this
 * reads the DER (RFC 7292) itself and leaves the cryptography to node:crypto.
 * Supported: the integrity MAC (PKCS#12 KDF with SHA-1/SHA-256/384/512);
 * PBES2 with PBKDF2 and AES-CBC or DES-EDE3-CBC (what OpenSSL 3 writes by
 * default); pbeWithSHAAnd3-KeyTripleDES-CBC (older tools and Windows); and
 * unencrypted bags. RC2 (`openssl pkcs12 -legacy` encrypts certificates with
 * RC2-40) is not: Node's OpenSSL does not load the legacy provider.
 */

/** The bundle is malformed, uses an unsupported algorithm, or the password is wrong; the message says which. */
export class Pkcs12Error extends Error {
  override name = "Pkcs12Error";
}

interface Node {
  tag: number;
  /** The content's bytes. */
  body: Buffer;
}

function read(buf: Buffer, at: number): { node: Node; next: number } {
  if (at + 2 > buf.length) throw new Pkcs12Error("truncated DER");
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const bytes = len & 0x7f;
    if (bytes === 0 || bytes > 4) throw new Pkcs12Error("unsupported DER length (indefinite-length BER is not read)");
    if (start + bytes > buf.length) throw new Pkcs12Error("truncated DER");
    len = buf.readUIntBE(start, bytes);
    start += bytes;
  }
  if (start + len > buf.length) throw new Pkcs12Error("truncated DER");
  return { node: { tag, body: buf.subarray(start, start + len) }, next: start + len };
}

function one(buf: Buffer): Node {
  return read(buf, 0).node;
}

function children(node: Node): Node[] {
  const out: Node[] = [];
  for (let at = 0; at < node.body.length; ) {
    const { node: child, next } = read(node.body, at);
    out.push(child);
    at = next;
  }
  return out;
}

function child(node: Node, index: number, tag?: number): Node {
  const found = children(node)[index];
  if (!found || (tag !== undefined && found.tag !== tag)) throw new Pkcs12Error("unexpected DER structure");
  return found;
}

function oid(node: Node): string {
  if (node.tag !== 0x06) throw new Pkcs12Error("expected an object identifier");
  const b = node.body;
  const parts = [Math.floor(b[0]! / 40), b[0]! % 40];
  let value = 0;
  for (const byte of b.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}

function integer(node: Node): number {
  if (node.tag !== 0x02 || node.body.length > 6) throw new Pkcs12Error("expected a small integer");
  return node.body.readUIntBE(0, node.body.length);
}

const OID = {
  data: "1.2.840.113549.1.7.1",
  encryptedData: "1.2.840.113549.1.7.6",
  keyBag: "1.2.840.113549.1.12.10.1.1",
  shroudedKeyBag: "1.2.840.113549.1.12.10.1.2",
  certBag: "1.2.840.113549.1.12.10.1.3",
  x509Certificate: "1.2.840.113549.1.9.22.1",
  pbes2: "1.2.840.113549.1.5.13",
  pbkdf2: "1.2.840.113549.1.5.12",
  pbeSha1TripleDes: "1.2.840.113549.1.12.1.3",
};
const HASHES: Record<string, { hash: string; block: number }> = {
  "1.3.14.3.2.26": { hash: "sha1", block: 64 },
  "2.16.840.1.101.3.4.2.1": { hash: "sha256", block: 64 },
  "2.16.840.1.101.3.4.2.2": { hash: "sha384", block: 128 },
  "2.16.840.1.101.3.4.2.3": { hash: "sha512", block: 128 },
};
const PRFS: Record<string, string> = {
  "1.2.840.113549.2.7": "sha1",
  "1.2.840.113549.2.9": "sha256",
  "1.2.840.113549.2.10": "sha384",
  "1.2.840.113549.2.11": "sha512",
};
const CIPHERS: Record<string, { name: string; keyLength: number }> = {
  "2.16.840.1.101.3.4.1.2": { name: "aes-128-cbc", keyLength: 16 },
  "2.16.840.1.101.3.4.1.22": { name: "aes-192-cbc", keyLength: 24 },
  "2.16.840.1.101.3.4.1.42": { name: "aes-256-cbc", keyLength: 32 },
  "1.2.840.113549.3.7": { name: "des-ede3-cbc", keyLength: 24 },
};

/** RFC 7292 appendix B.2: the PKCS#12 key derivation (id 1 = key, 2 = IV, 3 = MAC key). */
function pkcs12Kdf(password: string, salt: Buffer, iterations: number, id: number, size: number, hash: { hash: string; block: number }): Buffer {
  const v = hash.block;
  const bmp = Buffer.alloc((password.length + 1) * 2);
  for (let i = 0; i < password.length; i++) bmp.writeUInt16BE(password.charCodeAt(i), i * 2);
  const fill = (src: Buffer) => {
    const out = Buffer.alloc(src.length === 0 ? 0 : v * Math.ceil(src.length / v));
    for (let i = 0; i < out.length; i++) out[i] = src[i % src.length]!;
    return out;
  };
  const I = Buffer.concat([fill(salt), fill(bmp)]);
  const D = Buffer.alloc(v, id);
  const out: Buffer[] = [];
  let have = 0;
  while (have < size) {
    let A = nodeCrypto().createHash(hash.hash).update(D).update(I).digest();
    for (let r = 1; r < iterations; r++) A = nodeCrypto().createHash(hash.hash).update(A).digest();
    out.push(A);
    have += A.length;
    const B = Buffer.alloc(v);
    for (let i = 0; i < v; i++) B[i] = A[i % A.length]!;
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(out).subarray(0, size);
}

/** Decrypts `data` under the AlgorithmIdentifier `algorithm`. */
function decrypt(algorithm: Node, data: Buffer, password: string): Buffer {
  const id = oid(child(algorithm, 0));
  const params = child(algorithm, 1);
  let cipher: string;
  let key: Buffer;
  let iv: Buffer;
  if (id === OID.pbes2) {
    const kdf = child(params, 0);
    if (oid(child(kdf, 0)) !== OID.pbkdf2) throw new Pkcs12Error("PBES2 with a key derivation other than PBKDF2 is not supported");
    const kdfParams = children(child(kdf, 1));
    const scheme = child(params, 1);
    const found = CIPHERS[oid(child(scheme, 0))];
    if (!found) throw new Pkcs12Error(`the cipher ${oid(child(scheme, 0))} is not supported (AES-CBC and DES-EDE3-CBC are)`);
    const prfNode = kdfParams.find((n) => n.tag === 0x30);
    const prf = prfNode ? PRFS[oid(child(prfNode, 0))] : "sha1";
    if (!prf) throw new Pkcs12Error("the PBKDF2 hash is not supported (SHA-1, SHA-256, SHA-384 and SHA-512 are)");
    key = nodeCrypto().pbkdf2Sync(Buffer.from(password, "utf8"), kdfParams[0]!.body, integer(kdfParams[1]!), found.keyLength, prf);
    cipher = found.name;
    iv = child(scheme, 1, 0x04).body;
  } else if (id === OID.pbeSha1TripleDes) {
    const salt = child(params, 0, 0x04).body;
    const iterations = integer(child(params, 1));
    const sha1 = HASHES["1.3.14.3.2.26"]!;
    key = pkcs12Kdf(password, salt, iterations, 1, 24, sha1);
    iv = pkcs12Kdf(password, salt, iterations, 2, 8, sha1);
    cipher = "des-ede3-cbc";
  } else {
    throw new Pkcs12Error(
      `the encryption ${id} is not supported (PBES2 with AES or 3DES, and PKCS#12 3DES are; RC2, which \`openssl pkcs12 -legacy\` uses, is not)`,
    );
  }
  try {
    const decipher = nodeCrypto().createDecipheriv(cipher, key, iv);
    return Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    throw new Pkcs12Error("cannot decrypt the bundle: the password is wrong");
  }
}

function verifyMac(pfx: Node, authSafe: Buffer, password: string): void {
  const mac = children(pfx)[2];
  if (!mac) return;
  const [digestInfo, salt, iterations] = children(mac);
  const hash = HASHES[oid(child(child(digestInfo!, 0), 0))];
  if (!hash) throw new Pkcs12Error("the bundle's MAC hash is not supported (SHA-1, SHA-256, SHA-384 and SHA-512 are)");
  const expected = child(digestInfo!, 1, 0x04).body;
  const key = pkcs12Kdf(password, salt!.body, iterations ? integer(iterations) : 1, 3, expected.length, hash);
  const actual = nodeCrypto().createHmac(hash.hash, key).update(authSafe).digest();
  if (!nodeCrypto().timingSafeEqual(actual, expected)) throw new Pkcs12Error("the bundle's integrity check failed: the password is wrong");
}

/** The certificate (PEM) and private key (PKCS#8 PEM, unencrypted, in memory only) of a PKCS#12 bundle. */
export function readPkcs12(der: Buffer, password: string): { certificatePem: string; privateKeyPem: string } {
  const pfx = one(der);
  const authSafeInfo = child(pfx, 1);
  if (oid(child(authSafeInfo, 0)) !== OID.data) throw new Pkcs12Error("only password-integrity bundles are supported");
  const authSafe = one(child(authSafeInfo, 1, 0xa0).body).body;
  verifyMac(pfx, authSafe, password);
  const certs: Buffer[] = [];
  const keys: Array<{ der: Buffer; encrypted: boolean }> = [];
  for (const info of children(one(authSafe))) {
    const type = oid(child(info, 0));
    let contents: Buffer;
    if (type === OID.data) contents = one(child(info, 1, 0xa0).body).body;
    else if (type === OID.encryptedData) {
      const encryptedContentInfo = child(one(child(info, 1, 0xa0).body), 1);
      contents = decrypt(child(encryptedContentInfo, 1), child(encryptedContentInfo, 2, 0x80).body, password);
    } else throw new Pkcs12Error(`unsupported content type ${type}`);
    for (const bag of children(one(contents))) {
      const bagType = oid(child(bag, 0));
      const value = one(child(bag, 1, 0xa0).body);
      if (bagType === OID.certBag && oid(child(value, 0)) === OID.x509Certificate) certs.push(one(child(value, 1, 0xa0).body).body);
      else if (bagType === OID.shroudedKeyBag) keys.push({ der: child(bag, 1, 0xa0).body, encrypted: true });
      else if (bagType === OID.keyBag) keys.push({ der: child(bag, 1, 0xa0).body, encrypted: false });
    }
  }
  if (keys.length !== 1) throw new Pkcs12Error(`the bundle holds ${keys.length} private keys; it must hold exactly one`);
  const { der: keyDer, encrypted } = keys[0]!;
  let key;
  try {
    key = nodeCrypto().createPrivateKey({ key: keyDer, format: "der", type: "pkcs8", ...(encrypted ? { passphrase: password } : {}) });
  } catch {
    throw new Pkcs12Error("cannot decrypt the private key: the password is wrong, or its encryption is not supported");
  }
  // The certificate that goes with the key: a bundle may carry its chain too.
  const cert = certs.map((c) => new (nodeCrypto().X509Certificate)(c)).find((c) => c.checkPrivateKey(key));
  if (!cert) throw new Pkcs12Error("the bundle holds no certificate for its private key");
  return { certificatePem: cert.toString(), privateKeyPem: key.export({ format: "pem", type: "pkcs8" }) as string };
}
