/** A compact JWS/JWT: three base64url segments, the first a JSON header ("eyJ"). */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;

/** Replaces anything shaped like a token with a marker, for text that came from elsewhere. */
export function redactJwts(text: string): string {
  return text.replace(JWT_PATTERN, "[redacted token]");
}
