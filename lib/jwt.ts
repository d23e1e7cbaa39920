import type { KeyObject } from "node:crypto";
import { nodeCrypto } from "./node-crypto";

/** JOSE header fields this project reads or writes. */
export interface JwtHeader {
  alg: "RS256" | "PS256" | "none" | string;
  typ?: string;
  kid?: string;
  x5t?: string;
  "x5t#S256"?: string;
}

/** Registered and Entra-specific claims; unknown ones pass through. */
export interface JwtClaims {
  aud?: string | string[];
  iss?: string;
  sub?: string;
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  tid?: string;
  oid?: string;
  azp?: string;
  appid?: string;
  idtyp?: string;
  scp?: string;
  roles?: string[];
  upn?: string;
  name?: string;
  ver?: string;
  xms_par_app_azp?: string;
  xms_act_fct?: string;
  xms_sub_fct?: string;
  [claim: string]: unknown;
}

export interface DecodedJwt {
  header: JwtHeader;
  claims: JwtClaims;
  signingInput: string;
  signature: Buffer;
}

export type SigningAlg = "RS256" | "PS256";

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

/** The JSON in one base64url segment of a JWS; throws when it is not JSON. */
const segmentJson = (text: string): unknown => JSON.parse(Buffer.from(text, "base64url").toString("utf8"));

/** One base64url JSON segment of a JWS; undefined unless it is a JSON object. */
function segment<T>(text: string): T | undefined {
  try {
    const value = segmentJson(text);
    return typeof value === "object" && value !== null ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Decodes without verifying; returns undefined for anything that is not a JWS. */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const header = segment<JwtHeader>(parts[0]!);
  const claims = segment<JwtClaims>(parts[1]!);
  if (!header || !claims) return undefined;
  return { header, claims, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, "base64url") };
}

/**
 * The claims of a JWS without verifying it and without decoding its header
 * or signature: half the work of decodeJwt (measured on the warm path of
 * `npm run bench`), for callers that read claims only.
 */
export function decodeJwtClaims(token: string): JwtClaims | undefined {
  const a = token.indexOf(".");
  const b = a < 0 ? -1 : token.indexOf(".", a + 1);
  if (b < 0 || token.includes(".", b + 1)) return undefined;
  return segment<JwtClaims>(token.slice(a + 1, b));
}

/**
 * Why decodeJwtClaims cannot read `token`, in words for a person; undefined
 * when it can. Kept off decodeJwtClaims' path, which is warm: only a token
 * already refused is looked at twice.
 */
export function whyNotJwt(token: string): string | undefined {
  if (token === "") return "it is empty";
  const parts = token.split(".");
  if (parts.length === 5) return "it has 5 dot-separated parts, as an encrypted token (JWE) has, whose claims only the resource can read";
  if (parts.length !== 3) return `it has ${parts.length} dot-separated part${parts.length === 1 ? "" : "s"}, where a JWT has 3 (header.claims.signature)`;
  let value: unknown;
  try {
    value = segmentJson(parts[1]!);
  } catch {
    return "its middle part (the claims) is not base64url-encoded JSON";
  }
  if (typeof value !== "object" || value === null) return `its middle part (the claims) is JSON ${value === null ? "null" : typeof value}, not an object`;
  return undefined;
}

function rsaOptions(alg: SigningAlg, key: KeyObject) {
  return alg === "PS256" ? { key, padding: nodeCrypto().constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } : { key };
}

export function signJwt(header: Omit<JwtHeader, "alg"> & { alg: SigningAlg }, claims: JwtClaims, privateKey: KeyObject): string {
  const signingInput = `${b64url(JSON.stringify({ typ: "JWT", ...header }))}.${b64url(JSON.stringify(claims))}`;
  const signature = nodeCrypto().createSign("sha256").update(signingInput).sign(rsaOptions(header.alg, privateKey));
  return `${signingInput}.${signature.toString("base64url")}`;
}

/** Checks the signature only; claim rules belong to the caller. */
export function verifyJwtSignature(jwt: DecodedJwt, publicKey: KeyObject): boolean {
  const alg = jwt.header.alg;
  if (alg !== "RS256" && alg !== "PS256") return false;
  try {
    return nodeCrypto().createVerify("sha256").update(jwt.signingInput).verify(rsaOptions(alg, publicKey), jwt.signature);
  } catch {
    return false;
  }
}
