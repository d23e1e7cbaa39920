/**
 * JSON with positions. JSON.parse reports where a file is broken only inside
 * its message, whose wording changes between V8 versions, sometimes omits the
 * position, and quotes the text around the fault (which may be a secret).
 * This scanner checks the grammar first and says where and what was expected,
 * naming only JSON's own punctuation, never the file's content.
 */

export interface JsonSyntaxProblem {
  /** Offset in the text (UTF-16 code units) where the problem is. */
  offset: number;
  /** 1-based, as editors show it. */
  line: number;
  /** 1-based, in UTF-16 code units, as editors such as VS Code count. */
  column: number;
  reason: string;
}

/**
 * Deeper than any file the kit reads, and short of the call stack that code
 * walking the parsed value recursively (JSON.stringify among it) would exhaust.
 */
export const MAX_JSON_NESTING = 512;

/** The reason a text nested deeper than MAX_JSON_NESTING is refused with. */
export const NESTING_TOO_DEEP = `nested deeper than ${MAX_JSON_NESTING} levels`;

class JsonSyntaxStop extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const JSON_ESCAPES = `"\\/bfnrt`;
/** Characters an error may name: the grammar's own, never a piece of a value. */
const PUNCTUATION = `{}[]:,"`;

type Closer = "}" | "]";

/** A strict JSON grammar check; iterative, so nesting costs heap, not call stack. */
class JsonScanner {
  private pos = 0;
  /** The closers of the objects and arrays open around the current position. */
  private readonly open: Closer[] = [];

  constructor(private readonly text: string) {}

  document(): void {
    if (this.text.charCodeAt(0) === 0xfeff) {
      this.fail("the file starts with a byte order mark (U+FEFF), which JSON.parse rejects: save it as UTF-8 without BOM");
    }
    for (;;) {
      if (this.value() === "opened") continue;
      if (this.afterValue() === "done") break;
    }
    this.space();
    if (this.pos < this.text.length) this.fail(`unexpected ${this.found()} after the end of the JSON value`);
  }

  /** Reads a scalar, or opens a container; after an opening, the next thing to read is again a value. */
  private value(): "opened" | "read" {
    this.space();
    const c = this.text[this.pos];
    if (c === "{" || c === "[") return this.openContainer(c === "{" ? "}" : "]");
    if (c === '"') this.string();
    else if (c === "-" || (c >= "0" && c <= "9")) this.number();
    else {
      const literal = ["true", "false", "null"].find((word) => this.text.startsWith(word, this.pos));
      if (literal === undefined) this.fail(`expected a value, found ${this.found()}`);
      this.pos += literal.length;
    }
    return "read";
  }

  private openContainer(close: Closer): "opened" | "read" {
    if (this.open.length >= MAX_JSON_NESTING) this.fail(NESTING_TOO_DEEP);
    this.pos++;
    this.space();
    if (this.text[this.pos] === close) {
      this.pos++;
      return "read";
    }
    this.open.push(close);
    if (close === "}") this.propertyName();
    return "opened";
  }

  /** After a value: closes what it ends, or steps over the comma before the next one. */
  private afterValue(): "done" | "more" {
    for (;;) {
      const close = this.open.at(-1);
      if (close === undefined) return "done";
      this.space();
      if (this.text[this.pos] === close) {
        this.pos++;
        this.open.pop();
        continue;
      }
      if (this.text[this.pos] !== ",") {
        this.fail(close === "}" ? `expected ',' or '}' after a property value, found ${this.found()}` : `expected ',' or ']' after an array element, found ${this.found()}`);
      }
      this.comma(close);
      if (close === "}") this.propertyName();
      return "more";
    }
  }

  private propertyName(): void {
    this.space();
    if (this.text[this.pos] !== '"') this.fail(`expected a property name in double quotes, found ${this.found()}`);
    this.string();
    this.space();
    if (this.text[this.pos] !== ":") this.fail(`expected ':' after the property name, found ${this.found()}`);
    this.pos++;
  }

  /** Steps over a comma; a trailing one is the usual hand-editing slip, so it is named as such. */
  private comma(close: Closer): void {
    const at = this.pos;
    this.pos++;
    this.space();
    if (this.text[this.pos] === close) throw new JsonSyntaxStop(at, `a trailing comma before '${close}' is not allowed in JSON`);
  }

  private string(): void {
    const start = this.pos;
    this.pos++;
    for (;;) {
      if (this.pos >= this.text.length) throw new JsonSyntaxStop(start, "this string is never closed");
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === "\n" || c === "\r") this.fail("a line break inside a string (is its closing quote missing?)");
      if (c.charCodeAt(0) < 0x20) this.fail("a control character inside a string");
      if (c === "\\") {
        const next = this.text[this.pos + 1] ?? "";
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.fail("a \\u escape needs four hex digits");
          this.pos += 6;
          continue;
        }
        if (next === "" || !JSON_ESCAPES.includes(next)) {
          this.fail(`an invalid escape: a backslash may precede only one of ${JSON_ESCAPES.split("").join(" ")} u (write a backslash itself as \\\\)`);
        }
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
  }

  private number(): void {
    JSON_NUMBER.lastIndex = this.pos;
    const match = JSON_NUMBER.exec(this.text);
    if (match === null) this.fail(`an invalid number`);
    this.pos += match[0].length;
  }

  private space(): void {
    while (this.pos < this.text.length && " \t\n\r".includes(this.text[this.pos])) this.pos++;
  }

  private found(): string {
    if (this.pos >= this.text.length) return "the end of the file";
    const c = this.text[this.pos];
    if (PUNCTUATION.includes(c)) return `'${c}'`;
    if (/[A-Za-z]/.test(c)) return "a letter";
    if (/[0-9]/.test(c)) return "a digit";
    return c.charCodeAt(0) < 0x20 ? "a control character" : "a character JSON does not allow here";
  }

  private fail(reason: string): never {
    throw new JsonSyntaxStop(this.pos, reason);
  }
}

/** 1-based line and column of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** The first JSON syntax error in `text`, or null when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | null {
  try {
    new JsonScanner(text).document();
    return null;
  } catch (err) {
    if (!(err instanceof JsonSyntaxStop)) throw err;
    return { offset: err.offset, ...lineAndColumn(text, err.offset), reason: err.reason };
  }
}

/** The value of `text`, or where and why it is not JSON. */
export function parseJson(text: string): { value: unknown } | { problem: JsonSyntaxProblem } {
  const problem = findJsonSyntaxError(text);
  // The scan has accepted the text, so JSON.parse cannot throw, and its message never reaches anyone.
  return problem === null ? { value: JSON.parse(text) as unknown } : { problem };
}

/** "line 3, column 7: expected ..." — where and what, never the text itself. */
export function describeJsonProblem(problem: JsonSyntaxProblem): string {
  return `line ${problem.line}, column ${problem.column}: ${problem.reason}`;
}
