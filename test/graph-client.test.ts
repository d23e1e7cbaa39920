import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GraphClient, GraphError } from "../lib/graph-client";

/** A server that answers what real Graph never should: HTML from a proxy, and a collection that pages forever. */
let server: Server;
let base: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
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
  it("turns a 2xx body that is not JSON into a GraphError naming the call, without repeating the body", async () => {
    const err = await client()
      .call("GET", "/html/v1.0/users")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphError);
    expect((err as GraphError).code).toBe("invalidResponse");
    expect((err as GraphError).exitCode).toBe(4);
    expect((err as GraphError).message).toContain("Graph GET /html/v1.0/users");
    expect((err as GraphError).message).toContain("text/html");
    expect((err as GraphError).message).not.toContain("secret-tenant");
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
});
