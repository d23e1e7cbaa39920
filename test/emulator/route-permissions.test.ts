/**
 * Every Graph route names its row of the permission table
 * (lib/graph-operations.json), and the one check before the handlers enforces
 * it: a token holding none of what the row accepts is refused with Graph's
 * 403 on every route, before the handler could answer 200, 400 or 404. A
 * route without a row, or a row without a source, fails here.
 */
import { readGraphPath } from "../../emulator/pipeline/graph-path";
import { ROUTES } from "../../emulator/routes";
import type { Route } from "../../emulator/router";
import { GRAPH_OPERATIONS } from "../../lib/graph-permissions";
import { codeOf, messageOf, startDirectory, type Directory } from "./directory-client";

const graphRoutes = ROUTES.filter((r) => r.surface === "graph");

const NOBODY = "00000000-0000-0000-0000-00000000dead";

/** A concrete URL path the route serves: its first version, each named segment filled with a GUID that names nothing, optional groups left out. */
function pathOf(route: Route): string {
  const path = route.pattern.source
    .replace(/^\^|\$$/g, "")
    .replace(/\(\?:[^)]*\)\?/g, "")
    .replace(/\(\?<\w+>(?:\(\?![^)]*\))?\[\^\/\]\+\)/g, NOBODY)
    .replace(/\\(.)/g, "$1");
  return `/${route.versions?.[0] ?? "v1.0"}${path}`;
}

/** A row's path template (or alias) as the path grammar reads it, each `{name}` a GUID. */
const canonical = (template: string) => readGraphPath(template.replace(/\{\w+\}/g, NOBODY))!.path;

/** The file APIs answer a refusal with their own code; the directory APIs with Authorization_RequestDenied. */
const deniedCode = (path: string) => (/^\/(beta|v1\.0)\/(drives|shares)\//.test(path) ? "accessDenied" : "Authorization_RequestDenied");

describe("Graph routes", () => {
  it("each names a row of the permission table, and that row has a source", () => {
    expect(graphRoutes.length).toBeGreaterThan(40);
    const bad = graphRoutes.filter((r) => r.operation === undefined || !GRAPH_OPERATIONS[r.operation]?.source.trim());
    expect(bad.map((r) => `${r.method} ${r.pattern.source}`)).toEqual([]);
  });

  it("each row's method, and its path or one of its aliases, are the route's", () => {
    for (const route of graphRoutes) {
      const row = GRAPH_OPERATIONS[route.operation!];
      const matches = [row.path, ...(row.aliases ?? [])].some((p) => route.pattern.test(canonical(p)));
      expect({ route: route.operation, method: row.method, matches }).toEqual({ route: route.operation, method: route.method, matches: true });
    }
  });

  it("each alias of a row is served by a route of that row", () => {
    for (const id of Object.keys(GRAPH_OPERATIONS) as Array<keyof typeof GRAPH_OPERATIONS>) {
      for (const alias of GRAPH_OPERATIONS[id].aliases ?? []) {
        expect([id, alias, graphRoutes.some((r) => r.operation === id && r.pattern.test(canonical(alias)))]).toEqual([id, alias, true]);
      }
    }
  });

  it("no token or IMDS route names a Graph operation", () => {
    expect(ROUTES.filter((r) => r.surface !== "graph" && r.operation !== undefined).map((r) => `${r.method} ${r.pattern.source}`)).toEqual([]);
  });

  it("each path built here reaches the route it was built from", () => {
    for (const route of graphRoutes) expect(route.pattern.test(readGraphPath(pathOf(route))!.path)).toBe(true);
  });
});

describe("the central permission check", () => {
  let d: Directory;
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(() => d.close());

  const callers = {
    "an application without any of the route's roles": { idtyp: "app", roles: ["Calendars.Read"], azp: "11111111-1111-1111-1111-111111111111" },
    "a user without any of the route's scopes": { idtyp: "user", scp: "openid profile Mail.Read", oid: "22222222-2222-2222-2222-222222222222" },
  };

  for (const [who, claims] of Object.entries(callers)) {
    it(`refuses ${who} on every Graph route with Graph's 403`, async () => {
      const token = d.signed(claims);
      const answers = [];
      for (const route of graphRoutes) {
        const path = pathOf(route);
        const answer = await d.call(route.method, path, { token });
        const denied = messageOf(answer).startsWith("Insufficient privileges to complete the operation");
        answers.push({ route: `${route.method} ${path}`, status: answer.status, code: codeOf(answer), denied });
      }
      expect(answers.length).toBeGreaterThan(40);
      expect(answers).toEqual(answers.map(({ route }) => ({ route, status: 403, code: deniedCode(route.split(" ")[1]!), denied: true })));
    });
  }

  it("checks the token before the permission: an unsigned caller gets 401 on every Graph route", async () => {
    const statuses = new Set<number>();
    for (const route of graphRoutes) statuses.add((await d.call(route.method, pathOf(route), { token: "not-a-jwt" })).status);
    expect([...statuses]).toEqual([401]);
  });
});
