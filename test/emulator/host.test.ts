/**
 * The emulator answers only to its own loopback names and ports: a foreign
 * Host (how a DNS-rebinding page reaches a local server) or a malformed one
 * gets 400, never a 500 that clients retry, and is never reflected.
 */
import { connect } from "node:net";
import { startEmulator, type Emulator } from "../../emulator/server";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.close());

function raw(host: string | undefined, path = `/${emulator.store.tenantId}/v2.0/.well-known/openid-configuration`): Promise<string> {
  const port = Number(new URL(emulator.httpUrl).port);
  return new Promise((done, fail) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\n${host === undefined ? "" : `Host: ${host}\r\n`}Connection: close\r\n\r\n`);
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

it.each(["rebind.attacker.example", `rebind.attacker.example:${"8400"}`, "127.0.0.1:1", "a b", ""])("refuses Host %j with 400, and never echoes it", async (host) => {
  const answer = await raw(host);
  expect(answer).toMatch(/^HTTP\/1\.1 400/);
  if (host) expect(answer).not.toContain(host);
});

it("refuses a request with no Host at all", async () => {
  expect(await raw(undefined)).toMatch(/^HTTP\/1\.1 400/);
});
