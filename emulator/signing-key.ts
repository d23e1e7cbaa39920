import { createHash, generateKeyPairSync, type KeyObject } from "node:crypto";
import { decodeJwt, signJwt, verifyJwtSignature, type DecodedJwt, type JwtClaims } from "../lib/jwt";

/** The emulator's token-signing key, published as a JWKS like Entra's. */
export class SigningKey {
  readonly kid: string;
  private readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    this.privateKey = privateKey;
    this.publicKey = publicKey;
    this.kid = createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("base64url").slice(0, 27);
  }

  sign(claims: JwtClaims): string {
    return signJwt({ alg: "RS256", kid: this.kid }, claims, this.privateKey);
  }

  /** Decodes and checks the signature; undefined when the token is not ours. */
  verify(token: string): DecodedJwt | undefined {
    const jwt = decodeJwt(token);
    return jwt && this.signed(jwt) ? jwt : undefined;
  }

  /** Whether this key signed a decoded token: its kid names this key and its signature verifies. */
  signed(jwt: DecodedJwt): boolean {
    return jwt.header.kid === this.kid && verifyJwtSignature(jwt, this.publicKey);
  }

  jwks(): { keys: Array<Record<string, unknown>> } {
    const jwk = this.publicKey.export({ format: "jwk" });
    return { keys: [{ kty: "RSA", use: "sig", alg: "RS256", kid: this.kid, n: jwk.n, e: jwk.e }] };
  }
}
