/**
 * The HTTPS listener as an Azure cloud: the metadata the azuread provider
 * reads when `metadataHost` names the emulator, in go-azure-sdk's shape.
 */
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { startEmulator, type Emulator } from "../../emulator/server";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

function fetchJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((done, fail) => {
    const onResponse = (res: import("node:http").IncomingMessage) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    };
    // Trusting only the emulator's own certificate, for the address 127.0.0.1: the IP SAN a Go client checks.
    const req = url.startsWith("https:") ? httpsGet(url, { ca: emulator.caPem }, onResponse) : httpGet(url, onResponse);
    req.on("error", fail);
  });
}

it("serves /metadata/endpoints?api-version=2022-09-01 naming its own origin for login, Resource Manager and Graph", async () => {
  const origin = emulator.httpsUrl;
  expect(new URL(origin).hostname).toBe("127.0.0.1");
  const { status, body } = await fetchJson(`${origin}/metadata/endpoints?api-version=2022-09-01`);
  expect(status).toBe(200);
  expect(body).toEqual({
    name: expect.any(String),
    portal: origin,
    authentication: { loginEndpoint: origin, audiences: [`${origin}/`], tenant: "common", identityProvider: "AAD" },
    resourceManager: `${origin}/`,
    microsoftGraphResourceId: `${origin}/`,
    suffixes: {},
  });
});

it("names a missing or unsupported api-version in ARM's error shape", async () => {
  const missing = await fetchJson(`${emulator.httpsUrl}/metadata/endpoints`);
  expect(missing.status).toBe(400);
  expect(missing.body).toMatchObject({ error: { code: "MissingApiVersionParameter" } });
  const other = await fetchJson(`${emulator.httpsUrl}/metadata/endpoints?api-version=2020-06-01`);
  expect(other.status).toBe(400);
  expect(other.body).toMatchObject({ error: { code: "InvalidApiVersionParameter", message: expect.stringContaining("2022-09-01") } });
});

it("is not served over plain HTTP, where no client of a cloud asks", async () => {
  const { status, body } = await fetchJson(`${emulator.httpUrl}/metadata/endpoints?api-version=2022-09-01`);
  expect(status).toBe(404);
  expect(JSON.stringify(body)).toContain("HTTPS listener");
});
