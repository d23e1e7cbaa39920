/**
 * The token-exchange audience as a connection input of `token` and `doctor`:
 * --token-exchange-audience, else AGENT_USER_TOKEN_EXCHANGE_AUDIENCE, else
 * the --outputs key tokenExchangeAudience (what the stack exports), else the
 * authority's cloud's. Hop 1 asks for it, and doctor checks the blueprint's
 * federated credential against it. The emulator's tenant knows only
 * api://AzureADTokenExchange, so another audience is refused there by name.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { forgetProvisioner } from "../../provisioner-state";
import { NO_ENV, onlyJson, runCli, useEmulator, writeOutputs } from "../../harness";

const ctx = useEmulator();
const USGOV = "api://AzureADTokenExchangeUSGov";
const file = (patch: Record<string, unknown> = {}) => writeOutputs(ctx.scratch.dir, ctx.out, patch);

/** `token --json`'s failure: hop 1 refused, the resource it asked for named. */
async function hopOneRefused(argv: string[], env: NodeJS.ProcessEnv = NO_ENV): Promise<Record<string, unknown>> {
  const run = await runCli(["token", ...argv, "--json"], env);
  expect(run.code).toBe(3);
  const body = onlyJson(run);
  expect(body).toMatchObject({ ok: false, hop: 1, codes: [500011] });
  expect(String(body.message)).toContain(`The resource principal named ${USGOV} was not found`);
  return body;
}

describe("token: hop 1's audience", () => {
  it("is the authority's cloud's when not given: the public cloud's for the emulator", async () => {
    expect((await runCli(["token", "--outputs", file()], NO_ENV)).code).toBe(0);
  });

  it("comes from --token-exchange-audience, and the hint of hop 1's refusal names that flag", async () => {
    const body = await hopOneRefused(["--outputs", file(), "--token-exchange-audience", USGOV]);
    expect(String(body.hint)).toContain("--token-exchange-audience (AGENT_USER_TOKEN_EXCHANGE_AUDIENCE)");
  });

  it("comes from AGENT_USER_TOKEN_EXCHANGE_AUDIENCE, and from the --outputs key tokenExchangeAudience; the flag wins over both", async () => {
    await hopOneRefused(["--outputs", file()], { AGENT_USER_TOKEN_EXCHANGE_AUDIENCE: USGOV });
    await hopOneRefused(["--outputs", file({ tokenExchangeAudience: USGOV })]);
    const flagWins = await runCli(["token", "--outputs", file({ tokenExchangeAudience: USGOV }), "--token-exchange-audience", "api://AzureADTokenExchange"], {
      AGENT_USER_TOKEN_EXCHANGE_AUDIENCE: USGOV,
    });
    expect(flagWins.code).toBe(0);
  });

  it("--verbose says where it came from", async () => {
    const run = await runCli(["token", "--outputs", file({ tokenExchangeAudience: "api://AzureADTokenExchange" }), "--verbose"], NO_ENV);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('input tokenExchangeAudience = api://AzureADTokenExchange (from --outputs ("tokenExchangeAudience"))');
  });

  it.each([
    ["the flag", ["--token-exchange-audience", "https://login.microsoftonline.us"], NO_ENV, "--token-exchange-audience"],
    ["the variable", [], { AGENT_USER_TOKEN_EXCHANGE_AUDIENCE: "AzureADTokenExchange" }, "AGENT_USER_TOKEN_EXCHANGE_AUDIENCE"],
  ])("an audience that is no api:// identifier, from %s, is exit 2 naming where it came from, with nothing sent", async (_, argv, env, source) => {
    const before = ctx.emulator.requests.length;
    const run = await runCli(["token", "--outputs", file(), ...argv], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^error: configuration: ${source} must be an api:// identifier`));
    expect(run.stderr).toMatch(/^hint: leave the token-exchange audience out to use the authority's cloud's$/m);
    expect(ctx.emulator.requests.slice(before)).toEqual([]);
  });
});

describe("doctor: hop 1 and the blueprint's federated credential follow the audience", () => {
  const provisioner = () => {
    const p = ctx.emulator.provisioner()!;
    forgetProvisioner();
    return { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret };
  };

  it("with the blueprint's secret: hop 1 asks for the audience given, which the emulator's tenant does not know", async () => {
    const run = await runCli(["doctor", "--outputs", file(), "--token-exchange-audience", USGOV], provisioner());
    expect(run.code).toBe(8);
    expect(run.stdout).toMatch(/^ok\s+blueprint credential\s/m);
    expect(run.stdout).toMatch(new RegExp(`^failed\\s+tokens\\s+hop 1 \\(blueprint token\\) failed: AADSTS500011 .*The resource principal named ${USGOV} was not found`, "m"));
  });

  it("with a managed identity: the federated credential must carry the audience; the seeded one carries the public cloud's", async () => {
    // The managed identity's token, as a file: a federated credential's audience is what it carries.
    const now = Math.floor(Date.now() / 1000);
    const tokenFile = join(ctx.scratch.dir, "mi-token");
    const miToken = (aud: string) =>
      ctx.emulator.key.sign({ iss: `${ctx.out.authorityUrl}/${ctx.out.tenantId}/v2.0`, sub: DEFAULT_IDS.managedIdentityPrincipalId, aud, iat: now, nbf: now, exp: now + 3600 });
    const outputs = file({ blueprintClientSecret: undefined });
    const run = async (aud: string, args: string[]) => {
      writeFileSync(tokenFile, miToken(aud), { mode: 0o600 });
      return runCli(["doctor", "--outputs", outputs, "--managed-identity-token-file", tokenFile, ...args], provisioner());
    };
    const byDefault = await run("api://AzureADTokenExchange", []);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toMatch(/^ok\s+blueprint credential\s/m);
    const given = await run(USGOV, ["--token-exchange-audience", USGOV]);
    expect(given.code).toBe(8);
    expect(given.stdout).toMatch(new RegExp(`^failed\\s+blueprint credential\\s+.*no federated credential with audience ${USGOV} for the managed identity`, "m"));
  });
});
