import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MalformedAnswerError } from "../../lib/errors";
import { GraphClient, GraphError } from "../../lib/graph-client";
import { findByUpn } from "../../infra/providers/agent-user";
import type { AgentUserInputs } from "../../infra/providers/agent-user";

/** A server that answers what real Graph never should: HTML from a proxy, a collection that pages forever, a field of the wrong type. */
let server: Server;
let base: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.url?.startsWith("/v1.0/users/microsoft.graph.agentUser")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ value: [{ id: "u", userPrincipalName: "a@contoso.com", identityParentId: 5 }] }));
      return;
    }
    if (req.url?.startsWith("/html")) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>proxy login page for secret-tenant</html>");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ value: [{ id: "x" }], "@odata.nextLink": `${base}/v1.0/loop?page=1` }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const client = () => new GraphClient({ baseUrl: base, getToken: async () => "t", timeoutMs: 2_000 });

describe("GraphClient guards", () => {
  it("turns a 2xx body that is not JSON into a malformed answer naming the call, without repeating the body", async () => {
    const err = await client()
      .call("GET", "/html/v1.0/users")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedAnswerError);
    expect((err as MalformedAnswerError).code).toBe("malformed_answer");
    expect((err as MalformedAnswerError).exitCode).toBe(3);
    expect((err as MalformedAnswerError).message).toContain("Graph GET /html/v1.0/users");
    expect((err as MalformedAnswerError).message).toContain("text/html");
    expect((err as MalformedAnswerError).message).not.toContain("secret-tenant");
  });

  it("stops following an @odata.nextLink that repeats a page, after a bounded number of requests", async () => {
    requests = 0;
    const err = await client()
      .list("/v1.0/loop?page=0")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphError);
    expect((err as GraphError).code).toBe("pagingLoop");
    expect(requests).toBe(2);
  });

  it("a provider's lookup that meets a field of the wrong type fails with a malformed answer naming the call, not a TypeError", async () => {
    const inputs = { userPrincipalName: "a@contoso.com", identityParentId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9" } as AgentUserInputs;
    const err = await findByUpn(client(), inputs, "5b0c8e7a-1f2d-4c3b-9a8e-7d6c5b4a3f21").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedAnswerError);
    expect((err as MalformedAnswerError).message).toBe(
      "Graph GET /v1.0/users/microsoft.graph.agentUser: malformed answer: page 1: value[0].identityParentId is a number, not a string",
    );
  });
});
