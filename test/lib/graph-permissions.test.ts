/**
 * The permission table and the sets derived from it: every row names its
 * source and what it accepts; the provisioner's set covers every call of
 * `pulumi up`, `refresh` and `destroy`, and no permission in it is spare.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CHECK_OPERATIONS,
  CHECK_PERMISSIONS,
  FEATURE_PERMISSIONS,
  GRAPH_OPERATIONS,
  OPERATION_IDS,
  PROVISIONER_PERMISSIONS,
  PROVISIONING_OPERATIONS,
  operationOf,
  uncovered,
} from "../../lib/graph-permissions";

describe("the Graph permission table", () => {
  it("gives every row a source and at least one permission", () => {
    const bad = OPERATION_IDS.filter((id) => {
      const op = GRAPH_OPERATIONS[id];
      return !op.source.trim() || op.application.length + op.delegated.length === 0;
    });
    expect(bad).toEqual([]);
  });

  it("finds each row again from its own path, with a GUID for each variable segment", () => {
    for (const id of OPERATION_IDS) {
      const op = GRAPH_OPERATIONS[id];
      expect([id, operationOf(op.method, op.path.replace(/\{\w+\}/g, "00000000-0000-0000-0000-0000000000aa"))]).toEqual([id, id]);
    }
  });

  it("never takes a type cast for an id", () => {
    expect(operationOf("GET", "/v1.0/users/microsoft.graph.agentUser")).toBe("agentUser.list");
    expect(operationOf("GET", "/v1.0/users/ada@contoso.com")).toBe("user.get");
  });
});

describe("the provisioner's permission set", () => {
  it("covers every operation of pulumi up, refresh and destroy tenant-wide", () => {
    expect(uncovered(PROVISIONING_OPERATIONS, PROVISIONER_PERMISSIONS)).toEqual([]);
  });

  it("holds no spare permission: without any one of them some operation is no longer covered", () => {
    for (const p of PROVISIONER_PERMISSIONS) {
      const lost = uncovered(PROVISIONING_OPERATIONS, PROVISIONER_PERMISSIONS.filter((q) => q !== p)).map((u) => u.id);
      expect([p, lost.length > 0]).toEqual([p, true]);
    }
  });

  it("never asks for a permission that makes Entra ignore the Agent ID permissions", () => {
    expect(PROVISIONER_PERMISSIONS.filter((p) => p.startsWith("Directory."))).toEqual([]);
  });

  it("with the check reads covers every read of doctor and preflight, and those reads add nothing spare", () => {
    const all = [...PROVISIONER_PERMISSIONS, ...CHECK_PERMISSIONS];
    expect(uncovered(CHECK_OPERATIONS, all)).toEqual([]);
    for (const p of CHECK_PERMISSIONS) expect([p, uncovered(CHECK_OPERATIONS, all.filter((q) => q !== p)).length > 0]).toEqual([p, true]);
  });
});

/** A page's section under `heading`, to the next heading of its level or above. */
function section(page: string, heading: string): string {
  const text = readFileSync(join(__dirname, "../..", page), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const level = heading.indexOf(" ");
  const end = text.slice(start + 1).search(new RegExp(`\\n#{1,${level}} `));
  return end < 0 ? text.slice(start) : text.slice(start, start + 1 + end);
}

describe("the provisioner's permissions in the docs", () => {
  const docs = section("docs/pulumi.md", "## The provisioner application");
  const readme = section("README.md", "## Deploy to a real tenant");
  const tables = docs.split("| permission |").slice(1).map((t) => [...t.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]));

  it("lists the provisioner's set, then the check reads, exactly", () => {
    expect(tables).toEqual([[...PROVISIONER_PERMISSIONS], [...CHECK_PERMISSIONS]]);
  });

  it("grants every one of them in both copy-paste commands: the README's Azure CLI loop and the docs' PowerShell", () => {
    for (const p of [...PROVISIONER_PERMISSIONS, ...CHECK_PERMISSIONS]) {
      expect([p, readme.includes(` ${p}`), docs.includes(`'${p}'`)]).toEqual([p, true, true]);
    }
  });
});

describe("the opt-in features' permissions in the docs", () => {
  it("lists each feature's permission, and only those, apart from the provisioner's set", () => {
    const docs = section("docs/pulumi.md", "## Opt-in flows");
    const rows = [...docs.matchAll(/^\| `([^`]+)` \| `([^`]+)` \|/gm)].map((m) => m[2]);
    expect(rows).toEqual([...FEATURE_PERMISSIONS.appRoles, ...FEATURE_PERMISSIONS.onBehalfOf]);
    expect(rows.filter((p) => PROVISIONER_PERMISSIONS.includes(p!) || CHECK_PERMISSIONS.includes(p!))).toEqual([]);
    // Its holder can grant itself any app role: the page says so beside it.
    expect(docs).toContain("**`AppRoleAssignment.ReadWrite.All` lets its holder grant itself any app role**");
  });
});

describe("emulator/graph/README.md", () => {
  const readme = readFileSync(join(__dirname, "..", "..", "emulator", "graph", "README.md"), "utf8");
  const rows = new Map([...readme.matchAll(/^\| `([\w.]+)` \| `([A-Z]+) ([^`]+)` \| (.*)$/gm)].map((m) => [m[1], { method: m[2], path: m[3], rest: m[4]! }]));

  it("has one row per operation of the table, with its call, its application permissions in order and its source", () => {
    expect([...rows.keys()]).toEqual(OPERATION_IDS);
    for (const id of OPERATION_IDS) {
      const op = GRAPH_OPERATIONS[id];
      const row = rows.get(id)!;
      const named = [...row.rest.split(" | ")[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      expect({ id, method: row.method, path: row.path, named: op.application.length > 0 ? named : op.application, source: row.rest.includes(op.source) }).toEqual({
        id,
        method: op.method,
        path: op.path,
        named: [...op.application],
        source: true,
      });
    }
  });

  it("names every unclear page's choice", () => {
    for (const id of OPERATION_IDS.filter((i) => GRAPH_OPERATIONS[i].note !== undefined)) {
      expect([id, readme.includes(`- \`${id}\`: ${GRAPH_OPERATIONS[id].note!}.`)]).toEqual([id, true]);
    }
  });
});
