/**
 * The JSON scanner every file reader shares: the same verdict as JSON.parse,
 * the position of the first fault, and never a piece of the text in its reason.
 */
import { findJsonSyntaxError, parseJson } from "../../lib/json-positions";

describe("syntax errors: line, column and what was expected", () => {
  const cases: Array<[string, string, number, number, string]> = [
    ["trailing comma", '{\n  "mcpServers": [1, 2,]\n}', 2, 22, "a trailing comma before ']'"],
    ["missing comma in an array", "[1\n 2]", 2, 2, "expected ',' or ']'"],
    ["missing comma between properties", '{"a": 1\n "b": 2}', 2, 2, "expected ',' or '}' after a property value, found '\"'"],
    ["string never closed", '{"a": "b', 1, 7, "this string is never closed"],
    ["line break in a string", '{"a": "b\n}', 1, 9, "a line break inside a string"],
    ["unquoted property name", "{\n\tmcpServers: []\n}", 2, 2, "expected a property name in double quotes, found a letter"],
    ["missing colon", '{"a" 1}', 1, 6, "expected ':' after the property name"],
    ["Windows path escape", '{"p": "C:\\Users"}', 1, 10, "an invalid escape"],
    ["short \\u escape", '"\\u12"', 1, 2, "a \\u escape needs four hex digits"],
    ["byte order mark", '\uFEFF{"mcpServers": []}', 1, 1, "byte order mark"],
    ["empty file", "", 1, 1, "expected a value, found the end of the file"],
    ["content after the value", "{}\n{}", 2, 1, "after the end of the JSON value"],
    ["CRLF line endings", '{\r\n  "a": 1\r\n  "b": 2\r\n}', 3, 3, "expected ',' or '}'"],
    ["unclosed array deep inside", '{"a": [[{"b": [1]}]', 1, 20, "expected ',' or ']' after an array element, found the end of the file"],
    ["a leading zero", "[01]", 1, 3, "expected ',' or ']'"],
  ];

  it.each(cases)("%s", (_name, text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    const found = findJsonSyntaxError(text);
    expect(found).toEqual({ offset: expect.any(Number), line, column, reason: expect.stringContaining(reason) });
    expect(parseJson(text)).toEqual({ problem: found });
  });
});

it("valid JSON parses to the same value as JSON.parse", () => {
  const texts = [
    '{"a":[1,-2.5e+3,0,true,false,null,"\\u00e9\\n\\"",{}],"b":[]}',
    " 1 ",
    '"x"',
    "[[]]",
    '{"__proto__": {"x": 1}, "a": {"b": [{"c": [[], {}]}]}}',
    '[{"a": 1}, [2, [3, {"b": "]}"}]], "{[,:"]',
    '\r\n\t{ "s" : "\\/\\\\\\b\\f\\r\\t\\ud83d\\ude00" }\n',
  ];
  for (const text of texts) expect(parseJson(text)).toEqual({ value: JSON.parse(text) });
});

it("an array nested 200,000 deep is a named problem, not a RangeError", () => {
  const depth = 200_000;
  const text = `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const found = findJsonSyntaxError(text);
  expect(found).toEqual({ offset: 512, line: 1, column: 513, reason: "nested deeper than 512 levels" });
});

it("nesting up to the limit is accepted", () => {
  const text = `${"[".repeat(512)}${"]".repeat(512)}`;
  expect(findJsonSyntaxError(text)).toBeNull();
});

it("a reason names JSON's punctuation, never a character of a value (it may be a secret)", () => {
  for (const text of ['{"secret": s3cr3t}', '{"secret": "x"} s3cr3t', '{"secret": "a\\qb"}', "[1 9]", "{\"a\": 1 \u00e9}"]) {
    const found = findJsonSyntaxError(text);
    expect(found).not.toBeNull();
    expect(found?.reason).not.toMatch(/'[^{}[\]:,"]'|s3cr3t|\\q|9|\u00e9/);
  }
});
