/**
 * A token that was minted but is not the token asked for is a failure
 * (exit 5), not a success: here the identity provider answers for a tenant id
 * that is not the one in the token's tid.
 */
import { ClaimsError } from "../../../lib/errors";
import { agentUserToken, JWT_SHAPE, NO_ENV, onlyJson, runCli, seededChain, seededRequest, tokenStatuses, useEmulator, writeOutputs } from "../../harness";

/** Another GUID the emulated tenant answers to (as if it were an alias), so every hop succeeds. */
const ALIAS_TENANT = "7e7e7e7e-1111-4222-8333-944444444444";

const ctx = useEmulator();
beforeAll(() => {
  ctx.emulator.store.addDomain(ALIAS_TENANT);
});

it("the hop chain throws a ClaimsError naming tid, its expected and its actual value", async () => {
  const chain = seededChain(ctx.out, { tenantId: ALIAS_TENANT });
  const err = await agentUserToken(chain, seededRequest(ctx.out)).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClaimsError);
  expect((err as ClaimsError).mismatches).toEqual([{ claim: "tid", expected: ALIAS_TENANT, actual: ctx.out.tenantId }]);
  expect((err as ClaimsError).exitCode).toBe(5);
  // A refused token is not cached: asking again sends hop 3 again (T1 and T2 are served from the cache) and is refused again.
  const before = ctx.emulator.requests.length;
  const again = await agentUserToken(chain, seededRequest(ctx.out)).catch((e: unknown) => e);
  expect(again).toBeInstanceOf(ClaimsError);
  expect(tokenStatuses(ctx.emulator, before)).toEqual([200]);
});

it("agent-user token exits 5 with a claims_mismatch failure after three successful hops, and prints no token", async () => {
  const before = ctx.emulator.requests.length;
  const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--tenant", ALIAS_TENANT, "--json", "--show-token"], NO_ENV);
  expect(run.code).toBe(5);
  expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
  const body = onlyJson(run);
  expect(body).toMatchObject({ ok: false, hop: 3, status: null, error: "claims_mismatch", codes: [] });
  expect(body.message).toContain(`tid is "${ctx.out.tenantId}", expected "${ALIAS_TENANT}"`);
  expect(body.hint).toMatch(/agent identity, agent user and tenant in the configuration belong together/);
  expect(run.stdout).not.toMatch(JWT_SHAPE);

  const human = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--tenant", ALIAS_TENANT], NO_ENV);
  expect(human.code).toBe(5);
  expect(human.stdout).toBe("");
  expect(human.stderr).toMatch(/^error: hop 3 \(agent user token\): the token's claims are wrong: tid is/);
  expect(human.stderr).not.toMatch(JWT_SHAPE);
});

it("the same tenant by its verified domain is not a mismatch (tid is only compared with a GUID)", async () => {
  const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--tenant", "contoso.onmicrosoft.com", "--json"], NO_ENV);
  expect(run.code).toBe(0);
});
