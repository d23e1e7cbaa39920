import { MalformedAnswerError } from "../../lib/errors";
import { GraphError } from "../../lib/graph-client";
import { createOrAdopt, type GraphSession } from "../../infra/providers/graph-ops";

/*
 * createOrAdopt's answer to a create POST that itself meets replication lag.
 * Over HTTP the providers first wait for the parent to be readable, so the
 * emulator never lets the POST see it; these cases pin the rule down.
 * Adoption after a lost answer or an earlier run, and the refusal to retry a
 * 400 or 403, run over HTTP in test/infra/http/.
 */

const notFound = () =>
  new GraphError("Graph POST /v1.0/servicePrincipals/microsoft.graph.agentIdentity", {
    status: 404,
    headers: {},
    body: JSON.stringify({ error: { code: "Request_ResourceNotFound", message: "m" } }),
    ms: 1,
  });

/** createOrAdopt only reads the window and the clock from the session, a clock that moves only when it waits; the steps are the test's. */
function session(consistencyWindowMs: number): GraphSession {
  let now = 0;
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };
  return { consistencyWindowMs, clock } as unknown as GraphSession;
}

function steps(creates: Array<string | Error>) {
  const calls = { lookup: 0, create: 0 };
  return {
    calls,
    lookup: async () => (calls.lookup++, undefined),
    create: async () => {
      const next = creates[calls.create++]!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

describe("createOrAdopt, when the POST answers not-found", () => {
  it("retries within the consistency window, looking for the object again first", async () => {
    const s = steps([notFound(), "created"]);
    await expect(createOrAdopt(session(5_000), s)).resolves.toEqual({ object: "created", adopted: false });
    expect(s.calls).toEqual({ lookup: 2, create: 2 });
  });

  it("fails at once with no window", async () => {
    const error = notFound();
    const s = steps([error, "never"]);
    await expect(createOrAdopt(session(0), s)).rejects.toBe(error);
    expect(s.calls.create).toBe(1);
  });
});

describe("createOrAdopt, when the POST succeeds but its answer cannot be read", () => {
  it("adopts the object the POST made, once a lookup finds it, and never POSTs again", async () => {
    const calls = { lookup: 0, create: 0 };
    const result = await createOrAdopt(session(0), {
      // The list shows the new object from the third lookup on.
      lookup: async () => (++calls.lookup >= 3 ? "made" : undefined),
      create: async () => {
        calls.create++;
        throw new MalformedAnswerError("Graph POST /v1.0/users/microsoft.graph.agentUser", "the answer.id is missing, not a string");
      },
    });
    expect(result).toEqual({ object: "made", adopted: true });
    expect(calls).toEqual({ lookup: 3, create: 1 });
  });

  it("fails with the malformed answer when no lookup finds the object", async () => {
    const error = new MalformedAnswerError("Graph POST /v1.0/users/microsoft.graph.agentUser", "the HTTP 201 answer has no body");
    const s = steps([error, "never"]);
    await expect(createOrAdopt(session(0), s)).rejects.toBe(error);
    expect(s.calls.create).toBe(1);
  });
});
