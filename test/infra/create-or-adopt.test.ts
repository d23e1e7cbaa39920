import { NetworkError } from "../../lib/errors";
import { GraphError } from "../../lib/graph-client";
import { createOrAdopt, type GraphSession } from "../../infra/providers/graph-ops";

const graphError = (status: number, code: string) =>
  new GraphError("Graph POST /v1.0/servicePrincipals/microsoft.graph.agentIdentity", {
    status,
    headers: {},
    body: JSON.stringify({ error: { code, message: "m" } }),
    ms: 1,
  });

/** createOrAdopt only reads the window from the session; the steps are the test's. */
const session = (consistencyWindowMs: number) => ({ consistencyWindowMs }) as GraphSession;

function steps(lookups: Array<string | undefined>, creates: Array<string | Error>) {
  const calls = { lookup: 0, create: 0 };
  return {
    calls,
    lookup: async () => lookups[Math.min(calls.lookup++, lookups.length - 1)],
    create: async () => {
      const next = creates[calls.create++]!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

describe("createOrAdopt", () => {
  it("adopts an object an earlier run made, without posting", async () => {
    const s = steps(["existing"], []);
    await expect(createOrAdopt(session(0), s)).resolves.toEqual({ object: "existing", adopted: true });
    expect(s.calls.create).toBe(0);
  });

  it("creates once when there is nothing to adopt", async () => {
    const s = steps([undefined], ["created"]);
    await expect(createOrAdopt(session(0), s)).resolves.toEqual({ object: "created", adopted: false });
    expect(s.calls).toEqual({ lookup: 1, create: 1 });
  });

  it("after a lost answer, adopts what the first POST committed instead of posting again", async () => {
    const s = steps([undefined, "committed"], [new NetworkError("Graph POST", "ECONNRESET", "socket hang up"), "duplicate"]);
    await expect(createOrAdopt(session(0), s)).resolves.toEqual({ object: "committed", adopted: true });
    expect(s.calls).toEqual({ lookup: 2, create: 1 });
  });

  it("retries a parent's replication lag within the window", async () => {
    const s = steps([undefined], [graphError(404, "Request_ResourceNotFound"), "created"]);
    await expect(createOrAdopt(session(5_000), s)).resolves.toEqual({ object: "created", adopted: false });
    expect(s.calls.create).toBe(2);
  });

  it.each([
    ["a not-found with no window", 0, graphError(404, "Request_ResourceNotFound")],
    ["a 400", 120_000, graphError(400, "Request_BadRequest")],
    ["a 403", 120_000, graphError(403, "Authorization_RequestDenied")],
  ])("does not retry %s", async (_what, window, error) => {
    const s = steps([undefined], [error, "never"]);
    await expect(createOrAdopt(session(window), s)).rejects.toBe(error);
    expect(s.calls.create).toBe(1);
  });
});
