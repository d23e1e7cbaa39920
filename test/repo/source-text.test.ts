/**
 * The sources speak for themselves: no comment, message or help text points
 * a reader at an issue number or a numbered section of a document this
 * repository does not hold. A comment says its reason in place, or names a
 * section of docs/protocol.md that exists.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

const REPO = resolve(__dirname, "../..");
const ROOMS = ["lib", "infra", "probes", "emulator"];
/** What `grep -rniE "issue #?[0-9]|reference section|§" lib infra probes emulator` looks for (an upstream project's "owner/repo#N" is a source, not one of ours). */
const POINTER = /\bissue #?[0-9]|reference section|§/i;

/** Each line of every file under `rooms` that matches `pattern`, as grep -rn prints it. */
function grep(rooms: readonly string[], pattern: RegExp): string[] {
  return rooms.flatMap((room) =>
    readdirSync(join(REPO, room), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .flatMap((entry) => {
        const file = join(entry.parentPath, entry.name);
        return readFileSync(file, "utf8")
          .split("\n")
          .flatMap((line, i) => (pattern.test(line) ? [`${file.slice(REPO.length + 1)}:${i + 1}: ${line.trim()}`] : []));
      }),
  );
}

it("no file in lib, infra, probes or emulator cites an issue number, a reference section or a §", () => {
  expect(grep(ROOMS, POINTER)).toEqual([]);
});

it("the search reads every room, and knows a pointer when it sees one", () => {
  expect(grep(ROOMS, /^import /).length).toBeGreaterThan(100);
  for (const line of ["// see issue 24", "(reference section 3)", "as §5 says"]) expect(POINTER.test(line)).toBe(true);
  expect(POINTER.test("// the issuer is the authority (docs/protocol.md, Hop 1)")).toBe(false);
});

it("every section of docs/protocol.md that a source file names exists", () => {
  const headings = new Set([...readFileSync(join(REPO, "docs", "protocol.md"), "utf8").matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim()));
  const pointers = grep(ROOMS, /docs\/protocol\.md, "/).flatMap((line) => [...line.matchAll(/docs\/protocol\.md, "([^"]+)"/g)].map((m) => ({ line, section: m[1]! })));
  expect(pointers.length).toBeGreaterThan(5);
  expect(pointers.filter(({ section }) => !headings.has(section)).map(({ line }) => line)).toEqual([]);
});

/** Each .ts source under `rooms` longer than `max` lines, with its length. */
function longerThan(rooms: readonly string[], max: number): string[] {
  return rooms.flatMap((room) =>
    readdirSync(join(REPO, room), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
      .flatMap((entry) => {
        const file = join(entry.parentPath, entry.name);
        const lines = readFileSync(file, "utf8").split("\n").length - 1;
        return lines > max ? [`${file.slice(REPO.length + 1)}: ${lines} lines`] : [];
      }),
  );
}

it("no .ts file in lib, infra, probes or emulator is over 400 lines: small files named for what they hold", () => {
  expect(longerThan(ROOMS, 400)).toEqual([]);
  // The count is wc -l's, and a file of a few lines is seen.
  expect(longerThan(["lib"], 3).length).toBeGreaterThan(10);
});

/** Each function under `rooms` longer than `max` lines, as `file:line name: N lines`. */
function longFunctions(rooms: readonly string[], max: number): string[] {
  const found: string[] = [];
  for (const room of rooms) {
    for (const entry of readdirSync(join(REPO, room), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const file = join(entry.parentPath, entry.name);
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && "body" in node && node.body) {
          const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
          const lines = source.getLineAndCharacterOfPosition(node.end).line - first + 1;
          if (lines > max) found.push(`${file.slice(REPO.length + 1)}:${first + 1} ${node.name?.getText() ?? "(anonymous)"}: ${lines} lines`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return found;
}

it("no function in lib, infra, probes or emulator is over 80 lines", () => {
  expect(longFunctions(ROOMS, 80)).toEqual([]);
  // Nested functions and methods are measured too.
  expect(longFunctions(["emulator"], 40).length).toBeGreaterThan(0);
});
