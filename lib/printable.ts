/**
 * Text from outside the kit (an outputs file, Graph, the identity provider,
 * a flag's or a variable's value) on its way to a terminal, a table or a log.
 * A control character there is an instruction, not text: a line break forges
 * a row, ESC rewrites the screen, CR overwrites a line, BEL rings. So every
 * one is shown as its escape instead: C0 (NUL to US), DEL and C1, and the
 * characters that break or reorder a line without looking like it (U+2028,
 * U+2029, the bidirectional overrides and isolates).
 */

// Matching control characters is this pattern's purpose.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const escapeOf = (c: string): string => {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
};

/** `text` with every control character shown as its escape (`\n`, `\x1b`, `\u202e`): one line, nothing a terminal obeys. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escapeOf);
}

/** What JSON.stringify leaves raw that a terminal may still obey: DEL, C1, and the line and direction controls. */
const RAW_IN_JSON = /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of JSON for stdout: JSON.stringify's, with every character a
 * terminal could obey written as a \u escape (JSON.stringify escapes only C0).
 * The same value to any JSON reader, inert on a terminal.
 */
export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `${text}\n`;
}

/**
 * Text of the kit's own that may span lines (an error message, a hint) with
 * each line printable: its line breaks stay, every other control character
 * is shown as its escape. Text from outside goes into such a message
 * through printable() or quoteValue(), so its line breaks are escaped there.
 */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}

/** How much of a bad value an error quotes. */
const QUOTED_MAX_CHARS = 64;

/**
 * A bad value as an error message quotes it: a string in double quotes,
 * anything else as its JSON; printable, and no more than its first
 * QUOTED_MAX_CHARS characters, followed by its length when it is longer
 * (a 5 MiB tenant id is not an error message).
 */
export function quoteValue(value: unknown): string {
  const quote = typeof value === "string" ? '"' : "";
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= QUOTED_MAX_CHARS) return `${quote}${printable(text)}${quote}`;
  return `${quote}${printable(text.slice(0, QUOTED_MAX_CHARS))}…${quote} (${text.length} characters)`;
}

/**
 * The first `shown` of a list of names for an error or a hint, each
 * printable, and how many more there are ("a, b, c and 99,995 more"): a
 * list of thousands is no message, and its first few say what is wrong.
 */
export function listed(names: readonly string[], shown: number): string {
  const first = names.slice(0, shown).map(printable).join(", ");
  return names.length > shown ? `${first} and ${(names.length - shown).toLocaleString("en-US")} more` : first;
}
