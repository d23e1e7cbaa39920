/**
 * One retry budget per provisioning operation: the provisioner's token
 * request, the Graph client and createOrAdopt do not multiply their retries.
 * Counted on the wire: before, one create facing an identity provider that
 * always answered 503 sent up to 10 x 5 x 5 token requests.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { blueprintProvider } from "../../../infra/providers/blueprint";
import { agentUserProvider } from "../../../infra/providers/agent-user";
import { forgetProvisioner } from "../../provisioner-state";
import { createOrAdopt, graphSession, LOST_ANSWER_MIN_SETTLE_MS } from "../../../infra/providers/graph-ops";
import { agentUserSteps, blueprintInputs, createIdentityChain, graphCalls, startTenant, userInputs, waitDrivenClock, type Tenant } from "./tenant";

let t: Tenant;
let idp: Server;
let idpUrl: string;
let tokenRequests = 0;

beforeAll(async () => {
  t = await startTenant();
  idp = createServer((req, res) => {
    tokenRequests++;
    req.resume();
    res.writeHead(503, { "content-type": "application/json", "retry-after": "0" });
    res.end(JSON.stringify({ error: "temporarily_unavailable", error_description: "AADSTS90024: busy", error_codes: [90024] }));
  });
  await new Promise<void>((ready) => idp.listen(0, "127.0.0.1", ready));
  idpUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => idp.close(done));
  await t.close();
});
afterEach(() => {
  t.emulator.faults.reset();
  t.emulator.store.now = Date.now;
  forgetProvisioner();
});

// That Retry-After: 0 does not replace the backoff between these attempts is tested in test/lib/retry-final.test.ts.
it("an identity provider that always answers 503 with Retry-After: 0 gets 5 token requests for one create", async () => {
  const inputs = await blueprintInputs(t, { authorityUrl: idpUrl });
  await expect(blueprintProvider.create!(inputs)).rejects.toThrow(/provisioner token for Graph .*AADSTS90024 temporarily_unavailable \(HTTP 503\)/);
  expect(tokenRequests).toBe(5);
});

it("a Graph that answers every POST with 503 gets two POSTs for one create: the second after the lookups looked for the settle time, then the budget is spent", async () => {
  const { identity } = await createIdentityChain(t);
  const inputs = await userInputs(t, identity);
  const from = t.emulator.requests.length;
  t.emulator.faults.set({ unavailable: 1_000, method: "POST", target: "graph" });
  const clock = waitDrivenClock(t);
  const started = clock.now();
  const postAt: number[] = [];
  const steps = agentUserSteps(inputs);
  const create = createOrAdopt(graphSession(inputs, clock), { lookup: steps.lookup, create: (graph) => (postAt.push(clock.now() - started), steps.create(graph)) });
  await expect(create).rejects.toThrow(/Graph POST \/v1\.0\/users\/microsoft\.graph\.agentUser: serviceNotAvailable \(HTTP 503\)/);
  const calls = graphCalls(t, from);
  expect(calls.filter((c) => c.startsWith("POST "))).toHaveLength(2);
  // A 503'd POST may have committed: the next one waits until the lookups have looked for the settle time.
  expect(postAt[1]! - postAt[0]!).toBeGreaterThanOrEqual(LOST_ANSWER_MIN_SETTLE_MS);
  expect(calls.filter((c) => c.startsWith("GET /v1.0/users/microsoft.graph.agentUser ")).length).toBeGreaterThan(2);
});

it("a 429 on a create is not taken for a lost answer: the next attempt looks once, then POSTs", async () => {
  const { identity } = await createIdentityChain(t);
  const inputs = await userInputs(t, identity);
  const from = t.emulator.requests.length;
  t.emulator.faults.set({ throttle: 1, retryAfterS: 0, method: "POST", target: "graph" });
  const created = await agentUserProvider.create!(inputs);
  expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
  const sequence = graphCalls(t, from).map((c) => c.replace(/\/[0-9a-f-]{36}/g, "/{id}"));
  expect(sequence).toEqual([
    "GET /v1.0/servicePrincipals/{id}/microsoft.graph.agentIdentity 200",
    "GET /v1.0/users/microsoft.graph.agentUser 200",
    "POST /v1.0/users/microsoft.graph.agentUser 429",
    "GET /v1.0/users/microsoft.graph.agentUser 200",
    "POST /v1.0/users/microsoft.graph.agentUser 201",
  ]);
});
