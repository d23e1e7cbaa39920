/**
 * JSON batching (concepts/json-batching): each request of a batch is served
 * as a request of its own would be (route, token, rate limit, permission,
 * handler), in order, and a malformed batch is refused whole.
 */
import { codeOf, messageOf, sponsorBind, startDirectory, type Directory } from "./directory-client";

type Response = { id: string; status: number; headers: Record<string, string>; body?: Record<string, unknown> };

describe("the emulated Graph's $batch", () => {
  let d: Directory;
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(() => d.close());
  afterEach(() => d.emulator.faults.reset());

  const batch = async (requests: unknown[], token?: string) => {
    const answer = await d.call("POST", "/v1.0/$batch", { body: { requests }, token });
    return { status: answer.status, answer, responses: (answer.body.responses ?? []) as Response[] };
  };
  const blueprint = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
    id,
    method: "POST",
    url: "/applications/microsoft.graph.agentIdentityBlueprint",
    headers: { "Content-Type": "application/json" },
    body: { displayName: name, "sponsors@odata.bind": sponsorBind(d) },
    ...extra,
  });

  it("serves each request in order, in one 200 answer, each with its own status, headers and body", async () => {
    const { status, responses } = await batch([blueprint("1", "Batched"), { id: "2", method: "GET", url: "applications/microsoft.graph.agentIdentityBlueprint?$filter=displayName eq 'Batched'" }]);
    expect(status).toBe(200);
    expect(responses.map((r) => [r.id, r.status])).toEqual([
      ["1", 201],
      ["2", 200],
    ]);
    expect([responses[0]!.body?.displayName, (responses[1]!.body?.value as unknown[]).length, responses[0]!.headers["content-type"]?.startsWith("application/json")]).toEqual(["Batched", 1, true]);
  });

  it("checks each request's permission against the batch's token, and answers an unserved one in its entry", async () => {
    const reader = d.signed({ idtyp: "app", roles: ["AgentIdentityBlueprint.Read.All"], appid: "11111111-1111-1111-1111-111111111111" });
    const { status, responses } = await batch([blueprint("a", "Not allowed"), { id: "b", method: "GET", url: "/applications/microsoft.graph.agentIdentityBlueprint" }, { id: "c", method: "GET", url: "/groups" }], reader);
    expect(status).toBe(200);
    expect(responses.map((r) => [r.id, r.status, (r.body?.error as { code?: string } | undefined)?.code ?? null])).toEqual([
      ["a", 403, "Authorization_RequestDenied"],
      ["b", 200, null],
      ["c", 400, "BadRequest"],
    ]);
    const unsigned = await batch([{ id: "x", method: "GET", url: "/applications/microsoft.graph.agentIdentityBlueprint" }], "not-a-jwt");
    expect(unsigned.responses.map((r) => r.status)).toEqual([401]);
  });

  it("answers 424 to a request whose dependency failed", async () => {
    const { responses } = await batch([blueprint("1", ""), blueprint("2", "After a failure", { dependsOn: ["1"] })]);
    expect(responses.map((r) => [r.id, r.status])).toEqual([
      ["1", 400],
      ["2", 424],
    ]);
    expect(d.emulator.store.applications("agentIdentityBlueprint").some((a) => a.displayName === "After a failure")).toBe(false);
  });

  it("charges each request to the caller's rate limit", async () => {
    d.emulator.faults.set({ graphRate: 1 });
    const reads = Array.from({ length: 20 }, (_, i) => ({ id: String(i), method: "GET", url: "/applications/microsoft.graph.agentIdentityBlueprint?$top=1" }));
    const { status, responses } = await batch(reads);
    expect([status, responses[0]!.status]).toEqual([200, 200]);
    const throttled = responses.filter((r) => r.status === 429);
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled.every((r) => Number(r.headers["retry-after"]) >= 1)).toBe(true);
  });

  it.each([
    ["no requests list", { value: [] }, 'the body has no "requests" list'],
    ["more than 20 requests", { requests: Array.from({ length: 21 }, (_, i) => ({ id: String(i), method: "GET", url: "/me" })) }, "it holds 21 requests; a batch holds at most 20"],
    ["an id given twice, in another case", { requests: [{ id: "a", method: "GET", url: "/me" }, { id: "A", method: "GET", url: "/me" }] }, 'the id "A" is given twice'],
    ["a body without Content-Type", { requests: [{ id: "1", method: "POST", url: "/applications", body: {} }] }, 'request "1" has a body and no Content-Type header'],
    ["a dependency on no earlier request", { requests: [{ id: "1", method: "GET", url: "/me", dependsOn: ["2"] }, { id: "2", method: "GET", url: "/me" }] }, 'request "1" depends on "2", which is not an earlier request of the batch'],
  ])("refuses a batch with %s, whole, with 400", async (_what, body, reason) => {
    const before = d.emulator.store.applications().length;
    const answer = await d.call("POST", "/beta/$batch", { body });
    expect([answer.status, codeOf(answer), messageOf(answer)]).toEqual([400, "BadRequest", `Invalid batch request: ${reason}.`]);
    expect(d.emulator.store.applications().length).toBe(before);
  });
});
