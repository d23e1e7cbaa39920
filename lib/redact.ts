import { printable } from "./printable";

/** A compact JWS/JWT: three base64url segments, the first a JSON header ("eyJ"). */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g;

/** Replaces anything shaped like a token with a marker, for text that came from elsewhere. */
export function redactJwts(text: string): string {
  return text.replace(JWT_PATTERN, "[redacted token]");
}

/**
 * A peer's text (an error code, a description, a message) as an error of
 * the kit shows it: every control character escaped, so that it can neither
 * forge a line nor drive a terminal, and anything token-shaped redacted.
 */
export function peerText(text: string): string {
  return redactJwts(printable(text));
}

/** Values shorter than this are not scrubbed: ids and short words would be mangled, and carry no secret. */
const MIN_SECRET_LENGTH = 8;

/**
 * Removes, by exact match, every value the kit sent (a client secret, an
 * assertion, T1, T2, a bearer token) from text that came back: a peer or a
 * proxy that echoes the request must not put them into an error or a log.
 * Also their JSON-escaped and form-encoded spellings. A JSON answer is
 * scrubbed string by string once parsed, or as text by scrubSentJson: in its
 * raw text a `\u` escape of any one character, or `\/` for `/`, spells the
 * value in a way no match finds, and JSON.parse then gives the value back.
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

/**
 * One escape of a JSON string: a surrogate pair written as two `\u`
 * escapes (one character, which JSON.stringify writes as itself), one `\u`
 * escape, or a backslash and the character it escapes. Matched from the
 * left, `\\` is consumed whole, so the `u` after an escaped backslash is
 * text, as JSON.parse reads it.
 */
const JSON_ESCAPE = /\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[^u]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** The character(s) one escape stands for; an escape JSON has not is left as written (such a text is no JSON, and no parser gives a value back from it). */
function unescaped(escape: string): string | undefined {
  if (escape[1] !== "u") return SHORT_ESCAPES[escape[1]!];
  const units = escape.split("\\u").slice(1).map((hex) => parseInt(hex, 16));
  return String.fromCharCode(...units);
}

/** An escape as JSON.stringify writes what it stands for: `\u0061` and `a`, `\/` and `/`, `\u000A` and `\n` become one spelling. */
function respelled(escape: string): string {
  const text = unescaped(escape);
  return text === undefined ? escape : JSON.stringify(text).slice(1, -1);
}

/**
 * scrubSent for a JSON text that is kept as text (an answer handed on raw,
 * recorded, or parsed later by another reader). Every escape is first
 * written as JSON.stringify writes it, so each string of the text is
 * spelled exactly as scrubSent's JSON spelling of a value is, whatever
 * escapes the peer chose; the text then means what it meant, less the
 * values. Text, not a parse: no depth of nesting can overflow it. A text
 * that holds no value is returned as it came, escapes and all.
 */
export function scrubSentJson(text: string, sent: readonly string[]): string {
  const canonical = text.includes("\\") ? text.replace(JSON_ESCAPE, respelled) : text;
  const scrubbed = scrubSent(canonical, sent);
  return scrubbed === canonical ? text : scrubbed;
}
