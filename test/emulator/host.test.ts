/**
 * The emulator answers only to its own loopback names and ports, and to
 * Microsoft's public-cloud names (clients that hard-code them are routed
 * here by a connector): a foreign Host (how a DNS-rebinding page reaches a
 * local server) or a malformed one
 * gets 400, never a 500 that clients retry, and is never reflected. So does
 * a request with more than one Host.
 */
import { connect } from "node:net";
import { startEmulator, type Emulator } from "../../emulator/server";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

function raw(host: string | string[] | undefined, path = `/${emulator.store.tenantId}/v2.0/.well-known/openid-configuration`): Promise<string> {
  const port = Number(new URL(emulator.httpUrl).port);
  return new Promise((done, fail) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\n${[host ?? []].flat().map((h) => `Host: ${h}\r\n`).join("")}Connection: close\r\n\r\n`);
    });
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString()));
    socket.on("end", () => done(text));
    socket.on("error", fail);
  });
}

it("answers its own names", async () => {
  const port = new URL(emulator.httpUrl).port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect(await raw(host)).toMatch(/^HTTP\/1\.1 200/);
});

it("answers Microsoft's public-cloud names under those names, as clients that hard-code them expect", async () => {
  for (const host of ["login.microsoftonline.com", "graph.microsoft.com"]) {
    const answer = await raw(host);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    if (host.startsWith("login.")) expect(answer).toContain(`"issuer":"http://login.microsoftonline.com/${emulator.store.tenantId}/v2.0"`);
  }
});

it.each(["rebind.attacker.example", `rebind.attacker.example:${"8400"}`, "127.0.0.1:1", "a b", ""])("refuses Host %j with 400, and never echoes it", async (host) => {
  const answer = await raw(host);
  expect(answer).toMatch(/^HTTP\/1\.1 400/);
  if (host) expect(answer).not.toContain(host);
});

it("refuses a request with no Host at all", async () => {
  expect(await raw(undefined)).toMatch(/^HTTP\/1\.1 400/);
});

it("refuses a request with two Host headers with 400, whichever comes first, as a strict HTTP/1.1 server must", async () => {
  const own = `127.0.0.1:${new URL(emulator.httpUrl).port}`;
  for (const hosts of [[own, own], [own, "rebind.attacker.example"], [own, `localhost:${new URL(emulator.httpUrl).port}`]]) {
    const answer = await raw(hosts);
    expect({ hosts, status: answer.split("\r\n")[0] }).toEqual({ hosts, status: "HTTP/1.1 400 Bad Request" });
    expect(answer).toContain("the request has 2 Host headers");
    expect(answer).not.toContain("rebind.attacker.example");
  }
});
