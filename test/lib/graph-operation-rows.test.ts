/**
 * The permission table is data (lib/graph-operations.json), checked once as it
 * loads: a malformed row is a PermissionTableError naming the row's key and
 * the field, never a TypeError from whatever first reads it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkedTable, GRAPH_OPERATIONS, PermissionTableError } from "../../lib/graph-operation-rows";

const shipped = (): Record<string, Record<string, unknown>> => JSON.parse(readFileSync(join(__dirname, "../../lib/graph-operations.json"), "utf8"));

/** The shipped table with `row` changed by `change`: the error it makes, as its message. */
function refusal(row: string, change: (row: Record<string, unknown>) => void): string {
  const table = shipped();
  change(table[row]!);
  try {
    checkedTable(table);
  } catch (err) {
    expect(err).toBeInstanceOf(PermissionTableError);
    expect((err as PermissionTableError).exitCode).toBe(70);
    return (err as Error).message;
  }
  throw new Error(`a table with ${row} changed was accepted`);
}

describe("the permission table's load check", () => {
  it("accepts the shipped table whole, every row in its order", () => {
    expect(Object.keys(checkedTable(shipped()))).toEqual(Object.keys(GRAPH_OPERATIONS));
    expect(checkedTable(shipped())["blueprint.list"]).toEqual(GRAPH_OPERATIONS["blueprint.list"]);
  });

  it("names the row and the field when any row lacks a field every row needs", () => {
    for (const row of Object.keys(GRAPH_OPERATIONS)) {
      for (const field of ["summary", "method", "path", "application", "delegated", "source", "callers"]) {
        const message = refusal(row, (r) => delete r[field]);
        expect([row, field, message]).toEqual([row, field, expect.stringContaining(`"${row}".${field} is missing`)]);
      }
    }
  });

  it.each<[string, string, (r: Record<string, unknown>) => void, string]>([
    ["a permission that is not a string", "blueprint.get", (r) => (r.application = ["Application.Read.All", 3]), `"blueprint.get".application is a list that holds more than strings`],
    ["a method Graph's calls do not use", "blueprint.list", (r) => (r.method = "PUT"), `"blueprint.list".method is not one of GET, POST, PATCH, DELETE`],
    ["a misspelt field", "grant.get", (r) => (r.aplication = r.application), `"grant.get".aplication is not a field of a row`],
    ["a null where a field may be absent", "blueprint.create", (r) => (r.note = null), `"blueprint.create".note is null`],
    ["an Agent ID write flag that is not a boolean", "identity.update", (r) => (r.agentIdWrite = "yes"), `"identity.update".agentIdWrite is a string, not a boolean`],
    ["an empty source", "domain.get", (r) => (r.source = " "), `"domain.get".source is empty`],
    ["a path that is not a path", "domain.get", (r) => (r.path = "v1.0/domains/{id}"), `"domain.get".path does not start with /`],
    ["an alias that is not a path", "blueprint.create", (r) => (r.aliases = ["v1.0/applications"]), `"blueprint.create".aliases holds v1.0/applications, which does not start with /`],
    ["an unknown caller", "me.get", (r) => (r.callers = ["agent", "someone"]), `"me.get".callers holds someone`],
    ["a reach that is not an object", "blueprint.get", (r) => (r.reach = ["owner"]), `"blueprint.get".reach is an array, not an object`],
    ["a reach of a permission the row does not list", "blueprint.get", (r) => (r.reach = { "User.Read": "self" }), `"blueprint.get".reach names User.Read`],
    ["an unknown reach", "blueprint.read", (r) => (r.reach = { "Application.ReadWrite.OwnedBy": "everyone" }), `"blueprint.read".reach.Application.ReadWrite.OwnedBy is not one of owner`],
  ])("refuses %s, naming the row and the field", (_what, row, change, expected) => {
    expect(refusal(row, change)).toContain(expected);
  });

  it("refuses a row that is not an object, and a table that is not one", () => {
    const table: Record<string, unknown> = shipped();
    table["user.get"] = null;
    expect(() => checkedTable(table)).toThrow(new PermissionTableError(`"user.get" is null, not an object`));
    expect(() => checkedTable([])).toThrow(PermissionTableError);
  });
});
