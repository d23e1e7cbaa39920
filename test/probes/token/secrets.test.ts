/**
 * A client secret never shows: not on stdout, not on stderr, not in any error
 * object a caller might log (its JSON, message or stack), whatever fails.
 * Tokens (T1, T2, the final one) never show either without --show-token.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestToken, tokenEndpoint } from "../../../lib/token-client";
import { password } from "../../../emulator/seed";
import type { HopChainConfig } from "../../../lib/token-source";
import { addAgent, agentUserToken, blueprintCertificate, EXCHANGE_SCOPE, everythingAbout, JWT_SHAPE, onlyJson, runCli, seededChain, seededRequest, useEmulator, writeOutputs, type AgentFixture } from "../../harness";

const ALIAS_TENANT = "7e7e7e7e-1111-4222-8333-944444444444";
const WRONG = `wrong-sentinel-${randomUUID()}`;
const RIGHT = `right-sentinel-${randomUUID()}`;

const ctx = useEmulator();
let stranger: AgentFixture;

beforeAll(() => {
  ctx.emulator.store.addDomain(ALIAS_TENANT);
  ctx.emulator.store.applicationByAppId(ctx.emulator.outputs().blueprintAppId!)!.passwordCredentials.push(password("sentinel", RIGHT));
  // Outputs without the seeded secret: the sentinel in the environment is the only credential.
  ctx.out = { ...ctx.emulator.outputs(), blueprintClientSecret: undefined };
  stranger = addAgent(ctx.emulator);
});
afterEach(() => ctx.emulator.faults.reset());

interface Case {
  name: string;
  secret: string;
  argv?: string[];
  setup?: () => () => void;
  exit: number;
  /** Cases that wait on retries run in one output mode only, to keep the suite quick. */
  modes?: Array<"json" | "human">;
}

function withoutGrant(): () => void {
  const grant = ctx.emulator.store.grant(ctx.out.grantId!)!;
  ctx.emulator.store.deleteGrant(grant.id);
  return () => void ctx.emulator.store.createGrant(grant);
}

const CASES: Case[] = [
  { name: "a wrong secret (7000215)", secret: WRONG, exit: 3 },
  { name: "an unknown blueprint (700016)", secret: RIGHT, argv: ["--blueprint-app-id", randomUUID()], exit: 3 },
  { name: "no grant (65001) after T1 and T2 were minted", secret: RIGHT, setup: withoutGrant, exit: 3 },
  { name: "another identity's agent user ([emulator rule])", secret: RIGHT, argv: ["--agent-user", "<stranger>"], exit: 3 },
  { name: "a claims mismatch", secret: RIGHT, argv: ["--tenant", ALIAS_TENANT, "--show-token"], exit: 5 },
  { name: "throttled on every attempt", secret: RIGHT, setup: () => (ctx.emulator.faults.set({ throttle: 1000, retryAfterS: 0 }), () => undefined), exit: 4 },
  { name: "every connection dropped", secret: RIGHT, setup: () => (ctx.emulator.faults.set({ drop: 1000 }), () => undefined), exit: 4, modes: ["json"] },
  { name: "a wrong secret that is also dropped", secret: WRONG, setup: () => (ctx.emulator.faults.set({ drop: 1 }), () => undefined), exit: 3, modes: ["human"] },
  { name: "an unreachable authority", secret: RIGHT, argv: ["--authority", "http://127.0.0.1:9"], exit: 4, modes: ["human"] },
  { name: "a usage error", secret: RIGHT, argv: ["--agent-user", "nobody"], exit: 2 },
];

describe.each(["json", "human"] as const)("agent-user token output (%s)", (mode) => {
  const cases = CASES.filter((c) => !c.modes || c.modes.includes(mode));
  it.each(cases.map((c) => [c.name, c] as const))("%s: exit code as documented, no secret, no token", async (_name, c) => {
    const undo = c.setup?.() ?? (() => undefined);
    try {
      const argv = (c.argv ?? []).map((a) => (a === "<stranger>" ? stranger.user.id : a));
      const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), ...argv, ...(mode === "json" ? ["--json"] : [])], { AGENT_USER_BLUEPRINT_SECRET: c.secret });
      expect(run.code).toBe(c.exit);
      const printed = run.stdout + run.stderr;
      expect(printed.length).toBeGreaterThan(0);
      expect(printed).not.toContain(c.secret);
      expect(printed).not.toContain(c.secret.slice(0, 20));
      expect(printed).not.toMatch(JWT_SHAPE);
      if (mode === "json") expect(onlyJson(run).ok).toBe(false);
    } finally {
      undo();
    }
  });
});

it("the secret given through --blueprint-secret-file does not show either", async () => {
  const file = join(ctx.scratch.dir, "secret.txt");
  writeFileSync(file, `${WRONG}\n`, { mode: 0o600 });
  const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--blueprint-secret-file", file], {});
  expect(run.code).toBe(3);
  expect(run.stderr).toMatch(/AADSTS7000215/);
  expect(run.stdout + run.stderr).not.toContain(WRONG);
});

it("on success nothing secret is printed, and the token only with --show-token", async () => {
  const env = { AGENT_USER_BLUEPRINT_SECRET: RIGHT };
  for (const extra of [[], ["--json"]]) {
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), ...extra], env);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(RIGHT);
    expect(run.stdout + run.stderr).not.toMatch(JWT_SHAPE);
  }
  const shown = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--show-token"], env);
  expect(shown.stdout).toMatch(JWT_SHAPE);
  expect(shown.stdout).not.toContain(RIGHT);
});

describe("a secret, a key or a token given where its file's path belongs", () => {
  // Not a key, only its shape around a test secret; the label is built so that secret scanners do not report a key in the repository.
  const LABEL = ["PRIVATE", "KEY"].join(" ");
  const PEM = `-----BEGIN ${LABEL}-----\n${RIGHT}\n-----END ${LABEL}-----`;
  const TOKEN = `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(RIGHT).toString("base64url")}.c2ln`;
  it.each([
    ["the secret in --blueprint-secret-file", ["--blueprint-secret-file", RIGHT], () => ({}), RIGHT, /^configuration: cannot read the file --blueprint-secret-file names: ENOENT$/],
    [
      "the key in AGENT_USER_BLUEPRINT_KEY",
      [],
      () => ({ AGENT_USER_BLUEPRINT_CERT: blueprintCertificate(ctx.emulator, ctx.scratch.dir, { upload: false }).certFile, AGENT_USER_BLUEPRINT_KEY: PEM }),
      PEM,
      /^configuration: cannot read the file AGENT_USER_BLUEPRINT_KEY names: ENOENT$/,
    ],
    ["the token in AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE", [], () => ({ AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE: TOKEN }), TOKEN, /cannot read the managed identity token file: ENOENT$/],
  ])("%s: exit 2 naming where the path came from, never the value", async (_name, argv, env, value, message) => {
    for (const extra of [["--json"], []]) {
      const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), ...argv, ...extra], env());
      expect(run.code).toBe(2);
      expect(run.stdout + run.stderr).not.toContain(value);
      expect(run.stdout + run.stderr).not.toContain(RIGHT);
      if (extra.length > 0) {
        const body = onlyJson(run);
        expect(body.message).toMatch(message);
        expect(body.hint).toMatch(/takes the path of a file that holds .*, not .* itself/);
      }
    }
  });

  it("a secret in AGENT_USER_BLUEPRINT_SECRET is used without the line break a shell or CI variable can add", async () => {
    const run = await runCli(["token", "--outputs", writeOutputs(ctx.scratch.dir, ctx.out), "--json"], { AGENT_USER_BLUEPRINT_SECRET: ` ${RIGHT}\n` });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});

describe("errors thrown to a library caller", () => {
  const token = (secret: string, config: Partial<HopChainConfig> = {}, request = seededRequest(ctx.out)) =>
    agentUserToken(seededChain(ctx.out, { credential: { kind: "secret", secret }, ...config }), request);

  async function thrown(promise: Promise<unknown>): Promise<unknown> {
    const err = await promise.then(
      () => {
        throw new Error("expected a failure");
      },
      (e: unknown) => e,
    );
    return err;
  }

  it.each([
    ["a wrong secret", () => token(WRONG), WRONG],
    ["no grant", async () => {
      const undo = withoutGrant();
      try {
        return await token(RIGHT);
      } finally {
        undo();
      }
    }, RIGHT],
    ["a claims mismatch", () => token(RIGHT, { tenantId: ALIAS_TENANT }), RIGHT],
    ["another identity's agent user", () => token(RIGHT, {}, { ...seededRequest(ctx.out), agentUser: stranger.user.id }), RIGHT],
    ["dropped connections", () => (ctx.emulator.faults.set({ drop: 2, throttle: 1000, retryAfterS: 0 }), token(RIGHT)), RIGHT],
    ["an unreachable authority", () => token(RIGHT, { authorityUrl: "http://127.0.0.1:9" }), RIGHT],
    ["a raw token request", () => requestToken("hop 1", tokenEndpoint(ctx.out.authorityUrl, ctx.out.tenantId), { grant_type: "client_credentials", client_id: ctx.out.blueprintAppId!, scope: EXCHANGE_SCOPE, client_secret: WRONG }), WRONG],
  ] as const)("%s: no secret or token in JSON.stringify, message or stack", async (_name, fail, secret) => {
    const err = await thrown(fail());
    const text = everythingAbout(err);
    expect(text).not.toContain(secret);
    expect(text).not.toMatch(JWT_SHAPE);
    expect((err as Error).message.length).toBeGreaterThan(0);
  });
});
