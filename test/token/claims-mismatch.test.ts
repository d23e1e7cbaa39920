/**
 * A token that was minted but is not the token asked for is a failure
 * (exit 5), not a success: here the identity provider answers for a tenant id
 * that is not the one in the token's tid.
 */
import { ClaimsError } from "../../lib/errors";
import type { StackOutputs } from "../../lib/stack-outputs";
import { startEmulator, type Emulator } from "../../emulator/server";
import { HopChain } from "../../probes/hop-chain";
import { JWT_SHAPE, NO_ENV, onlyJson, runCli, scratchDir, tokenStatuses, writeOutputs } from "./helpers";

/** Another GUID the emulated tenant answers to (as if it were an alias), so every hop succeeds. */
const ALIAS_TENANT = "7e7e7e7e-1111-4222-8333-944444444444";

let emulator: Emulator;
let out: StackOutputs;
let scratch: ReturnType<typeof scratchDir>;

beforeAll(async () => {
  emulator = await startEmulator();
  emulator.store.domains.push(ALIAS_TENANT);
  out = emulator.outputs();
  scratch = scratchDir();
});
afterAll(async () => {
  await emulator.close();
  scratch.remove();
});

it("the hop chain throws a ClaimsError naming tid, its expected and its actual value", async () => {
  const chain = new HopChain({
    authorityUrl: out.authorityUrl,
    tenantId: ALIAS_TENANT,
    blueprintAppId: out.blueprintAppId!,
    credential: { kind: "secret", secret: out.blueprintClientSecret! },
  });
  const err = await chain.agentUserToken({ agentIdentityId: out.agentIdentityId!, agentUser: out.agentUserId!, resourceUrl: out.resourceUrl }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ClaimsError);
  expect((err as ClaimsError).mismatches).toEqual([{ claim: "tid", expected: ALIAS_TENANT, actual: out.tenantId }]);
  expect((err as ClaimsError).exitCode).toBe(5);
});

it("agent-user token exits 5 with a claims_mismatch failure after three successful hops, and prints no token", async () => {
  const before = emulator.requests.length;
  const run = await runCli(["token", "--outputs", writeOutputs(scratch.dir, out), "--tenant", ALIAS_TENANT, "--json", "--show-token"], NO_ENV);
  expect(run.code).toBe(5);
  expect(tokenStatuses(emulator, before)).toEqual([200, 200, 200]);
  const body = onlyJson(run);
  expect(body).toMatchObject({ ok: false, hop: 3, status: null, error: "claims_mismatch", codes: [] });
  expect(body.message).toContain(`tid is "${out.tenantId}", expected "${ALIAS_TENANT}"`);
  expect(body.hint).toMatch(/agent identity, agent user and tenant in the configuration belong together/);
  expect(run.stdout).not.toMatch(JWT_SHAPE);

  const human = await runCli(["token", "--outputs", writeOutputs(scratch.dir, out), "--tenant", ALIAS_TENANT], NO_ENV);
  expect(human.code).toBe(5);
  expect(human.stdout).toBe("");
  expect(human.stderr).toMatch(/^error: hop 3 \(agent user token\): the token's claims are wrong: tid is/);
  expect(human.stderr).not.toMatch(JWT_SHAPE);
});

it("the same tenant by its verified domain is not a mismatch (tid is only compared with a GUID)", async () => {
  const run = await runCli(["token", "--outputs", writeOutputs(scratch.dir, out), "--tenant", "contoso.onmicrosoft.com", "--json"], NO_ENV);
  expect(run.code).toBe(0);
});
