/**
 * scrubSentJson on JSON texts a peer could write: whatever escapes spell a
 * value sent, JSON.parse of the result gives it back nowhere; an escaped
 * backslash is text, not an escape; and a text nested deeper than any
 * parse-and-rewrite could walk is scrubbed all the same.
 */
import { scrubSentJson } from "../../lib/redact";

const SENT = "token/value.\u00e9\u{1f511}";
/** Each UTF-16 unit as an upper-case \u escape: the emoji's two surrogates as two escapes. */
const everyUnitEscaped = SENT.split("")
  .map((unit) => `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`)
  .join("");

/** Every string of parsed JSON, keys too. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]);
  return [];
}

it.each([
  ["every UTF-16 unit as an upper-case \\u escape, a surrogate pair as two", everyUnitEscaped],
  ["each / as \\/", JSON.stringify(SENT).slice(1, -1).replace(/\//g, "\\/")],
  ["as JSON.stringify writes it", JSON.stringify(SENT).slice(1, -1)],
])("a value spelled %s, in a value and in a key, is gone once parsed", (_label, spelled) => {
  const text = `{"a":"x ${spelled} y","${spelled}":[1,"${spelled}"]}`;
  const parsed: unknown = JSON.parse(scrubSentJson(text, [SENT]));
  expect(strings(parsed).join("\n")).not.toContain(SENT);
  expect(parsed).toEqual({ a: "x [redacted] y", "[redacted]": [1, "[redacted]"] });
});

it("reads an escaped backslash as text: `\\\\u0074` is a backslash and u0074, not a t, and stays as written", () => {
  const text = '{"a":"\\\\u0074oken/value"}';
  expect(scrubSentJson(text, ["token/value"])).toBe(text);
});

it("keeps a text that holds no value sent as it came, escapes and all", () => {
  const text = '{"name":"caf\\u00E9 \\/ \\ud83d\\udd11 \\n","bad":"\\x"}';
  expect(scrubSentJson(text, [SENT])).toBe(text);
});

it("scrubs a value 200,000 levels deep without overflowing", () => {
  const depth = 200_000;
  const text = `${"[".repeat(depth)}"${everyUnitEscaped}"${"]".repeat(depth)}`;
  const scrubbed = scrubSentJson(text, [SENT]);
  expect(scrubbed).toBe(`${"[".repeat(depth)}"[redacted]"${"]".repeat(depth)}`);
});
