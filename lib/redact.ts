/** A compact JWS/JWT: three base64url segments, the first a JSON header ("eyJ"). */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;

/** Replaces anything shaped like a token with a marker, for text that came from elsewhere. */
export function redactJwts(text: string): string {
  return text.replace(JWT_PATTERN, "[redacted token]");
}

/** Values shorter than this are not scrubbed: ids and short words would be mangled, and carry no secret. */
const MIN_SECRET_LENGTH = 8;

/**
 * Removes, by exact match, every value the kit sent (a client secret, an
 * assertion, T1, T2, a bearer token) from text that came back: a peer or a
 * proxy that echoes the request must not put them into an error or a log.
 * Also their JSON-escaped and form-encoded spellings. A JSON answer is
 * scrubbed string by string once parsed: in its raw text a `\u` escape of
 * any one character, or `\/` for `/`, spells the value in a way no match
 * finds, and JSON.parse then gives the value back.
 */
export function scrubSent(text: string, sent: readonly string[]): string {
  let out = text;
  for (const value of sent) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    for (const spelling of new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])) {
      if (out.includes(spelling)) out = out.split(spelling).join("[redacted]");
    }
  }
  return out;
}
