/**
 * The start-up table's floors (test/bench/first-request-child.ts): a fresh
 * process that sends one real POST through undici alone, or node:http alone,
 * to a loopback server. A floor that sent nothing would make the kit's
 * start-up look like its own fault, or hang the benchmark.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

const CHILD = join(__dirname, "../../dist/test/bench/first-request-child.js");

function runChild(which: string, port: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CHILD, which, String(port)], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((done) => child.on("close", (code) => done({ code, stderr })));
}

it.each(["undici", "http"])("the %s floor sends one form POST to the loopback server and exits 0", async (which) => {
  const seen: Array<{ method?: string; url?: string; type?: string; body: string }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, type: req.headers["content-type"], body });
      res.writeHead(401, { "content-type": "application/json", connection: "close" }).end('{"error":"invalid_client"}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  try {
    const run = await runChild(which, (server.address() as AddressInfo).port);
    expect(run).toEqual({ code: 0, stderr: "" });
    expect(seen).toEqual([{ method: "POST", url: "/token", type: "application/x-www-form-urlencoded", body: "grant_type=client_credentials" }]);
  } finally {
    server.close();
  }
});

it("an unknown floor is exit 2, sending nothing", async () => {
  expect(await runChild("fetch", 9)).toEqual({ code: 2, stderr: 'first-request-child: "undici" or "http", not fetch\n' });
});
