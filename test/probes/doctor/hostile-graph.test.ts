/**
 * `agent-user doctor` and `preflight` behind a hostile or broken Graph: a
 * proxy in front of the emulator's Graph passes every call through, except
 * the one a case tampers with. Each case is a named error with its exit code
 * (never 70, never out of memory), and the provisioner's bearer token, when
 * an answer echoes it, is printed nowhere.
 */
import { writeFileSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { forgetProvisioner } from "../../provisioner-state";
import { writeStackConfig } from "../preflight/stack-config";
import { runCli, scratchDir, type CliRun } from "../../harness";

const scratch = scratchDir();

/** An answer the proxy sends instead of the emulator's; `body` may be a function of the one the emulator gave and the request's headers. */
interface Tampered {
  status?: number;
  headers?: Record<string, string>;
  body: string | ((real: string, headers: IncomingHttpHeaders) => string);
}
/** Which call to tamper with (by its path) and how; every other call passes through. */
let tamper: (path: string) => Tampered | undefined = () => undefined;
/** How many answers the proxy tampered with in this case. */
let tampered = 0;

let emulator: Emulator;
let proxy: Server;
let proxyUrl: string;

beforeAll(async () => {
  emulator = await startEmulator({});
  const target = new URL(emulator.httpUrl);
  proxy = createServer((req, res) => {
    const sent: Buffer[] = [];
    req.on("data", (c: Buffer) => sent.push(c));
    req.on("end", () => {
      // The provisioner asks for a token for the proxy's Graph: the emulator knows that resource by its own origin.
      const form = Buffer.from(Buffer.concat(sent).toString().split(encodeURIComponent(proxyUrl)).join(encodeURIComponent(emulator.httpUrl)));
      const headers = { ...req.headers, host: target.host, ...(req.headers["content-length"] ? { "content-length": String(form.length) } : {}) };
      const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
        const chunks: Buffer[] = [];
        up.on("data", (c: Buffer) => chunks.push(c));
        up.on("end", () => {
          const real = Buffer.concat(chunks).toString();
          const change = tamper(new URL(req.url!, "http://x").pathname);
          if (!change) {
            res.writeHead(up.statusCode!, up.headers);
            return void res.end(real);
          }
          tampered++;
          const body = typeof change.body === "string" ? change.body : change.body(real, req.headers);
          res.writeHead(change.status ?? 200, { "content-type": "application/json", ...change.headers });
          res.end(body);
        });
      });
      forwarded.end(form);
    });
  });
  await new Promise<void>((ready) => proxy.listen(0, "127.0.0.1", ready));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => proxy.close(done));
  await emulator.close();
  scratch.remove();
});
beforeEach(() => {
  tampered = 0;
  tamper = () => undefined;
  forgetProvisioner();
});

/** doctor against the emulator's outputs, its token endpoint and Graph reached through the proxy, as its provisioner. */
async function doctor(args: string[] = []): Promise<CliRun> {
  const outputs = join(scratch.dir, "outputs.json");
  writeFileSync(outputs, JSON.stringify({ ...emulator.outputs(), graphUrl: proxyUrl, authorityUrl: proxyUrl }), { mode: 0o600 });
  const p = emulator.provisioner()!;
  return runCli(["doctor", "--outputs", outputs, ...args], { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret });
}

const GRANTS = "/v1.0/oauth2PermissionGrants";
const FEDERATED = /\/federatedIdentityCredentials$/;
const BLUEPRINT = /^\/v1\.0\/applications\/[^/]+\/microsoft\.graph\.agentIdentityBlueprint$/;

describe("doctor behind a hostile Graph", () => {
  it("through the proxy untouched, the chain is healthy (the cases below differ by one answer)", async () => {
    const run = await doctor();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  const cases: Array<[string, (path: string) => Tampered | undefined, RegExp, string]> = [
    [
      "a 302 to elsewhere",
      (path) => (path === GRANTS ? { status: 302, headers: { location: "https://login.example/" }, body: "" } : undefined),
      /Graph GET \/v1\.0\/oauth2PermissionGrants: http_302 \(HTTP 302\)/,
      "http_302",
    ],
    ["an empty 200", (path) => (path === GRANTS ? { body: "" } : undefined), /Graph GET \/v1\.0\/oauth2PermissionGrants: malformed answer: the HTTP 200 answer has no body/, "malformed_answer"],
    ["a null body", (path) => (BLUEPRINT.test(path) ? { body: "null" } : undefined), /Graph GET \/v1\.0\/applications\/[^/]+\/microsoft\.graph\.agentIdentityBlueprint: malformed answer: the answer is null, not an object/, "malformed_answer"],
    ["a value that is not a list", (path) => (path === GRANTS ? { body: JSON.stringify({ value: { id: "g" } }) } : undefined), /Graph GET \/v1\.0\/oauth2PermissionGrants: malformed answer: page 1: value is not a list/, "malformed_answer"],
    [
      "a grant whose scope is a number",
      (path) => (path === GRANTS ? { body: (real) => JSON.stringify({ value: (JSON.parse(real) as { value: object[] }).value.map((g) => ({ ...g, scope: 42 })) }) } : undefined),
      /Graph GET \/v1\.0\/oauth2PermissionGrants: malformed answer: page 1: value\[0\]\.scope is a number, not a string/,
      "malformed_answer",
    ],
    [
      "a page of ten million items",
      (path) => (FEDERATED.test(path) ? { body: `{"value":[${"0,".repeat(9_999_999)}0]}` } : undefined),
      /Graph GET \/v1\.0\/applications\/[^/]+\/federatedIdentityCredentials: malformed answer: page 1: value\[0\] is a number, not an object/,
      "malformed_answer",
    ],
  ];

  it.each(cases)("%s: exit 3 with a named error, on stderr and in --json", async (_label, how, message, code) => {
    tamper = how;
    const run = await doctor();
    expect(tampered).toBeGreaterThan(0);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe("");
    tamper = how;
    const json = await doctor(["--json"]);
    expect(json.code).toBe(3);
    const failure = JSON.parse(json.stdout) as { ok: boolean; error: string; message: string };
    expect(failure).toMatchObject({ ok: false, error: code });
    expect(failure.message).toMatch(message);
  });

  it("a page of 300,000 sponsors, more than one call's arguments can hold, is read item by item: the link counts them", async () => {
    const SPONSORS = /\/microsoft\.graph\.agentIdentity\/sponsors$/;
    tamper = (path) => (SPONSORS.test(path) ? { body: JSON.stringify({ value: Array.from({ length: 300_000 }, (_, i) => ({ id: `s${i}` })) }) } : undefined);
    const run = await doctor();
    expect(tampered).toBe(1);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/ok\s+agent identity\s+.*300000 sponsor\(s\)/);
  });

  it("a 200 that echoes the bearer token: the token is printed nowhere, in the table or in --json", async () => {
    let sent = "";
    tamper = (path) =>
      BLUEPRINT.test(path)
        ? {
            body: (real, headers) => {
              sent = String(headers.authorization).replace(/^Bearer /, "");
              return JSON.stringify({ ...(JSON.parse(real) as object), displayName: `echo ${sent}` });
            },
          }
        : undefined;
    for (const args of [[], ["--json"]]) {
      const run = await doctor(args);
      expect(sent.length).toBeGreaterThan(100);
      expect(run.code).toBe(0);
      expect(`${run.stdout}${run.stderr}`).not.toContain(sent);
      expect(run.stdout).toContain("echo [redacted]");
    }
  });

  it("a collection whose pages add up past the budget: a named error after a bounded number of pages, not out of memory", async () => {
    const PAGE = "x".repeat(16 << 20);
    let pages = 0;
    tamper = (path) => {
      if (!FEDERATED.test(path)) return undefined;
      pages++;
      return { body: JSON.stringify({ value: [], padding: PAGE, "@odata.nextLink": `${proxyUrl}/v1.0/applications/any/federatedIdentityCredentials?page=${pages}` }) };
    };
    const run = await doctor();
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/federatedIdentityCredentials: the collection, its 4 pages together, is larger than 67108864 bytes/);
    // Four pages of 16 MiB and a little more pass 64 MiB: the fifth is never asked for.
    expect(pages).toBe(4);
  });
});

/** preflight of a new stack against the proxy, as the emulator's provisioner. */
async function preflight(): Promise<CliRun> {
  const file = writeStackConfig(scratch.dir, { scopes: ["User.Read"], graphUrl: proxyUrl, authorityUrl: proxyUrl });
  const p = emulator.provisioner()!;
  return runCli(["preflight", "--config-from-stack", file], { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret });
}

describe("preflight behind a hostile Graph", () => {
  const SPONSOR = `/v1.0/users/${DEFAULT_IDS.sponsorId}`;

  it("through the proxy untouched, every check passes", async () => {
    const run = await preflight();
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  });

  it("blueprints whose tags are a number: exit 3, a malformed answer naming the call", async () => {
    tamper = (path) => (path === "/v1.0/applications/microsoft.graph.agentIdentityBlueprint" ? { body: JSON.stringify({ value: [{ id: "b", appId: "a", tags: 7 }] }) } : undefined);
    const run = await preflight();
    expect(tampered).toBe(1);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/Graph GET \/v1\.0\/applications\/microsoft\.graph\.agentIdentityBlueprint: malformed answer: page 1: value\[0\]\.tags is a number, not a list of strings/);
  });

  it("a sponsor read that echoes the bearer token in a 200: the token is printed nowhere", async () => {
    let sent = "";
    tamper = (path) =>
      path === SPONSOR
        ? {
            body: (real, headers) => {
              sent = String(headers.authorization).replace(/^Bearer /, "");
              return JSON.stringify({ ...(JSON.parse(real) as object), displayName: sent });
            },
          }
        : undefined;
    const run = await preflight();
    expect(sent.length).toBeGreaterThan(100);
    expect(run.code).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(sent);
    expect(run.stdout).toMatch(new RegExp(`sponsor\\s+${DEFAULT_IDS.sponsorId}\\s+\\[redacted\\]`));
  });

  it("a 307 on the domain read: exit 3, a GraphError naming the call and the status", async () => {
    tamper = (path) => (path.startsWith("/v1.0/domains/") ? { status: 307, headers: { location: `${proxyUrl}/elsewhere` }, body: "" } : undefined);
    const run = await preflight();
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/Graph GET \/v1\.0\/domains\/[^:]+: http_307 \(HTTP 307\)/);
    expect(run.stderr).toMatch(/Graph does not redirect these calls/);
  });
});
