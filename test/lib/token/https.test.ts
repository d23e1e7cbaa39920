/**
 * The emulator's HTTPS listener serves the same flow to a client that trusts
 * its CA, and only to such a client; plain http is refused for anything but
 * loopback.
 */
import { Agent } from "undici";
import { NetworkError } from "../../../lib/errors";
import { agentUserToken, claimsOf, runCli, onlyJson, recordingDispatcher, seededChain, seededRequest, tokenStatuses, useEmulator, writeOutputs, NO_ENV } from "../../harness";

const ctx = useEmulator();
const out = () => ctx.emulator.outputs("https");
const request = () => seededRequest(out());

it("listens for https on 127.0.0.1 with a certificate of its own", () => {
  expect(ctx.emulator.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(ctx.emulator.caPem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
});

it("a client trusting the emulator's CA mints the agent user token over https", async () => {
  const recorder = recordingDispatcher(new Agent({ connect: { ca: ctx.emulator.caPem } }));
  const before = ctx.emulator.requests.length;
  const token = await agentUserToken(seededChain(out(), { http: { dispatcher: recorder.dispatcher } }), request());
  expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
  expect(recorder.sent.map((r) => r.url.startsWith(`${ctx.emulator.httpsUrl}/`))).toEqual([true, true, true]);
  expect(token.claims).toMatchObject({ idtyp: "user", oid: request().agentUser, appid: request().agentIdentityId });
  expect(claimsOf(recorder.sent[1]!.form.client_assertion!).iss).toBe(`${ctx.emulator.httpsUrl}/${out().tenantId}/v2.0`);
});

it("a client that does not trust it fails at once, sending nothing: exit 4, hint names NODE_EXTRA_CA_CERTS", async () => {
  const before = ctx.emulator.requests.length;
  const retries: unknown[] = [];
  const err = await agentUserToken(seededChain(out(), { http: { dispatcher: new Agent() }, hooks: { onRetry: (e) => void retries.push(e) } }), request()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(NetworkError);
  // An untrusted certificate is not transient: retrying it only delays the answer.
  expect(retries).toEqual([]);
  expect((err as NetworkError).code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
  expect((err as NetworkError).exitCode).toBe(4);
  expect((err as NetworkError).step).toBe("hop 1 (blueprint token)");
  expect((err as NetworkError).hint).toMatch(/NODE_EXTRA_CA_CERTS/);
  expect(ctx.emulator.requests.slice(before)).toEqual([]);
});

it("agent-user token --authority http://example.com is refused with exit 2 and sends nothing", async () => {
  const before = ctx.emulator.requests.length;
  const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.emulator.outputs("http")), "--authority", "http://example.com", "--json"], NO_ENV);
  expect(run.code).toBe(2);
  expect(onlyJson(run).message).toMatch(/--authority must use https .*"http:\/\/example\.com"/);
  const human = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.emulator.outputs("http")), "--authority", "http://example.com"], NO_ENV);
  expect(human.code).toBe(2);
  expect(human.stderr).toMatch(/plain http is accepted only for loopback hosts/);
  expect(ctx.emulator.requests.slice(before)).toEqual([]);
});
