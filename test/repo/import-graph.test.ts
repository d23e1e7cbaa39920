/**
 * The rooms' import graph, read from the sources: probes → {emulator, infra}
 * → lib, with no file cycle. The CLI reaches Graph through lib/, never
 * through the providers' internals, and the emulator stands beside infra, not
 * above it, so either can change without the other.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const REPO = resolve(__dirname, "../..");
const ROOMS = ["lib", "infra", "probes", "emulator"] as const;
type Room = (typeof ROOMS)[number];

/** The rooms each room may import from, itself included. */
const MAY_IMPORT: Record<Room, readonly Room[]> = {
  lib: ["lib"],
  emulator: ["emulator", "lib"],
  infra: ["infra", "lib"],
  probes: ["probes", "emulator", "infra", "lib"],
};

/** Each .ts file under the rooms (repository-relative, "/"-separated) and the files its relative imports name (type-only ones, re-exports, require and import() included). */
function importGraph(): Map<string, string[]> {
  const files = ROOMS.flatMap((room) =>
    readdirSync(join(REPO, room), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => `${room}/${file.split("\\").join("/")}`),
  );
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(REPO, file), "utf8"), true, true);
    const targets = importedFiles
      .map((ref) => ref.fileName)
      .filter((spec) => spec.startsWith("./") || spec.startsWith("../"))
      .map((spec) => [`${spec}.ts`, `${spec}/index.ts`].map((c) => resolve(REPO, dirname(file), c)).find((c) => existsSync(c)))
      .filter((target): target is string => target !== undefined)
      .map((target) => relative(REPO, target).split("\\").join("/"));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** A cycle as the files along it, first file repeated at the end; undefined when there is none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    const at = path.indexOf(file);
    if (at >= 0) return [...path.slice(at), file];
    if (done.has(file)) return undefined;
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(file);
    return undefined;
  };
  for (const file of [...graph.keys()].sort()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

const roomOf = (file: string): Room => file.slice(0, file.indexOf("/")) as Room;

const graph = importGraph();
const edges = [...graph].flatMap(([from, targets]) => targets.map((to) => ({ from, to })));

it("reads every room's files and their imports", () => {
  for (const room of ROOMS) expect([...graph.keys()].some((file) => roomOf(file) === room)).toBe(true);
  expect(graph.get("probes/commands/doctor.ts")).toEqual(expect.arrayContaining([expect.stringMatching(/^lib\//)]));
});

it("finds a cycle where there is one, and names its files in order", () => {
  const looped = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["b.ts"]],
  ]);
  expect(findCycle(looped)).toEqual(["b.ts", "c.ts", "b.ts"]);
  expect(findCycle(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toBeUndefined();
});

it("has no import cycle between files", () => {
  const cycle = findCycle(graph);
  expect(cycle?.join(" → ")).toBeUndefined();
});

it("each room imports only from the rooms below it: probes → {emulator, infra} → lib", () => {
  const upward = edges.filter(({ from, to }) => !MAY_IMPORT[roomOf(from)].includes(roomOf(to))).map(({ from, to }) => `${from} → ${to}`);
  expect(upward).toEqual([]);
});

it("probes/ reaches Graph through lib/, never through the providers' internals", () => {
  const reaching = edges.filter(({ from, to }) => roomOf(from) === "probes" && to.startsWith("infra/providers/")).map(({ from, to }) => `${from} → ${to}`);
  expect(reaching).toEqual([]);
});
