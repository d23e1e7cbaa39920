import { enablePrivateCompileCache } from "../../probes/compile-cache";

/**
 * `node first-request-child.js undici|http PORT`: a fresh process that sends
 * one POST to a loopback server and does nothing else, for the start-up
 * table's two floors. `undici` sends it through the kit's own undici bundle
 * (lib/undici-request.ts), with Node's compile cache on as the bin has it:
 * what any client built on undici pays before its first request, the kit
 * aside. `http` sends it through node:http, Node's built-in client, which
 * needs no package.
 */
const [which, port] = process.argv.slice(2);
const url = `http://127.0.0.1:${port}/token`;
const headers = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
const body = "grant_type=client_credentials";
const ignore = () => undefined;

enablePrivateCompileCache();
/* eslint-disable @typescript-eslint/no-require-imports -- loaded after the line above, as the bin loads its bundles */
if (which === "undici") {
  const { loadRequest } = require("../../lib/undici-request") as typeof import("../../lib/undici-request");
  loadRequest()(url, { method: "POST", headers, body }).then((res) => res.body.dump(), ignore);
} else if (which === "http") {
  const { request } = require("node:http") as typeof import("node:http");
  request(url, { method: "POST", headers }, (res) => res.resume()).on("error", ignore).end(body);
} else {
  process.stderr.write(`first-request-child: "undici" or "http", not ${String(which)}\n`);
  process.exitCode = 2;
}
/* eslint-enable @typescript-eslint/no-require-imports */
