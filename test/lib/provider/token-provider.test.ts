/**
 * AgentUserTokenProvider, the runtime entry's token source, over real HTTP
 * against the emulator: defaults, caching, the background refresh, aborts.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import type { AccessToken } from "@azure/core-auth";
import { AbortError, AgentUserTokenProvider, UsageError } from "../../../lib";
import { EXPIRY_MARGIN_MS } from "../../../lib/token-cache";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { addAgent, tokenStatuses, useEmulator } from "../../harness";

const ctx = useEmulator();

/** A clock the test moves, as the wall clock and as the monotonic one: the provider and its chain read it for every expiry decision. */
function fakeClock(start = Date.now()) {
  const clock = { now: start, hooks: { now: () => clock.now, monotonicNow: () => clock.now, random: () => 0.5 } };
  return clock;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("AgentUserTokenProvider", () => {
  it("fromStackOutputs: getToken() with no argument mints the one agent's token, then serves it from the cache", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    const first = await provider.getToken();
    expect(first.claims).toMatchObject({ idtyp: "user", oid: ctx.out.agentUserId, tid: ctx.out.tenantId });
    // expires_in is measured from the answer, exp from the emulator's clock: within a couple of seconds of each other.
    expect(Math.abs(first.expiresOnTimestamp - (first.claims.exp as number) * 1000)).toBeLessThan(2000);
    expect(first.expiresOnTimestamp).toBeGreaterThan(Date.now() + EXPIRY_MARGIN_MS);
    expect(first.refreshAfterTimestamp).toBeLessThan(first.expiresOnTimestamp - EXPIRY_MARGIN_MS);
    // The served token is an Azure SDK AccessToken as it stands (the typecheck holds that), with a Bearer type.
    const asAccessToken: AccessToken = first;
    expect(asAccessToken.tokenType).toBe("Bearer");
    const second = await provider.getToken();
    expect(second.token).toBe(first.token);
    expect(second.hops.every((h) => h.cached)).toBe(true);
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
  });

  it("fromEnvironment reads the AGENT_USER_* variables the CLI reads; a request may name another agent", async () => {
    const other = addAgent(ctx.emulator);
    ctx.emulator.store.replicateGrantAt(other.grantId!, 0);
    const env = {
      AGENT_USER_TENANT_ID: ctx.out.tenantId,
      AGENT_USER_AUTHORITY_URL: ctx.out.authorityUrl,
      AGENT_USER_BLUEPRINT_APP_ID: ctx.out.blueprintAppId,
      AGENT_USER_BLUEPRINT_SECRET: ctx.out.blueprintClientSecret,
      AGENT_USER_RESOURCE_URL: ctx.out.resourceUrl,
    };
    const provider = AgentUserTokenProvider.fromEnvironment(env);
    await expect(provider.getToken()).rejects.toThrow(UsageError);
    const token = await provider.getToken({ agentIdentityId: other.identity.id, agentUser: other.user.userPrincipalName });
    expect(token.claims).toMatchObject({ idtyp: "user", upn: other.user.userPrincipalName });
    expect(token.claims.azp ?? token.claims.appid).toBe(other.identity.id);
  });

  it("fromStackOutputs picks a fleet agent by name and lists the names when none is given", () => {
    const outputs = {
      ...ctx.emulator.outputs(),
      agents: {
        a: { agentIdentityId: DEFAULT_IDS.agentIdentityId, agentUserId: DEFAULT_IDS.agentUserId, agentUserPrincipalName: "a@contoso.onmicrosoft.com" },
        b: { agentIdentityId: DEFAULT_IDS.agentIdentityId, agentUserId: DEFAULT_IDS.agentUserId, agentUserPrincipalName: "b@contoso.onmicrosoft.com" },
      },
    };
    expect(() => AgentUserTokenProvider.fromStackOutputs(outputs)).toThrow(/2 agents; pick one/);
    expect(AgentUserTokenProvider.fromStackOutputs(outputs, { agent: "b" })).toBeInstanceOf(AgentUserTokenProvider);
    expect(() => AgentUserTokenProvider.fromStackOutputs("[]")).toThrow(/not a JSON object of stack outputs/);
  });

  it("refreshes in the background inside the refresh window: the valid token is served meanwhile, and only hop 3 is sent", async () => {
    const clock = fakeClock();
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { hooks: clock.hooks, refreshWindowMs: 10 * 60_000 });
    const first = await provider.getToken();
    // random() = 0.5: the refresh moment is half-way into the 10-minute window before the 5-minute margin.
    expect(first.refreshAfterTimestamp).toBe(first.expiresOnTimestamp - EXPIRY_MARGIN_MS - 5 * 60_000);
    clock.now = first.refreshAfterTimestamp + 1;
    const before = ctx.emulator.requests.length;
    const during = await provider.getToken();
    expect(during.token).toBe(first.token);
    await until(() => tokenStatuses(ctx.emulator, before).length === 1, "the background refresh");
    expect(ctx.emulator.requests.slice(before).map((r) => r.path)).toEqual([`/${ctx.out.tenantId}/oauth2/v2.0/token`]);
    await until(async () => (await provider.getToken()).token !== first.token, "the refreshed token");
    const after = await provider.getToken();
    expect(after.hops.every((h) => h.cached)).toBe(true);
    // Served from the cache, with no further request: the refreshed token is not due for its own refresh yet.
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200]);
  });

  it("a failed refresh keeps the valid token, and a later call tries again", async () => {
    const clock = fakeClock();
    const other = addAgent(ctx.emulator);
    ctx.emulator.store.replicateGrantAt(other.grantId!, 0);
    const grant = ctx.emulator.store.grant(other.grantId!)!;
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), {
      hooks: clock.hooks,
      agentIdentityId: other.identity.id,
      agentUser: other.user.id,
    });
    const first = await provider.getToken();
    ctx.emulator.store.deleteGrant(other.grantId!);
    clock.now = first.refreshAfterTimestamp + 1;
    let before = ctx.emulator.requests.length;
    expect((await provider.getToken()).token).toBe(first.token);
    await until(() => tokenStatuses(ctx.emulator, before).length === 1, "the failing refresh");
    expect(tokenStatuses(ctx.emulator, before)).toEqual([400]);
    await new Promise((r) => setTimeout(r, 20));
    // Still served: the token has minutes left.
    expect((await provider.getToken()).token).toBe(first.token);
    ctx.emulator.store.createGrant(grant);
    clock.now += 60_000;
    before = ctx.emulator.requests.length;
    expect((await provider.getToken()).token).toBe(first.token);
    // T1 (65-minute lifetime) is past its own margin by now, so this refresh mints T1 and T2 again as well.
    await until(() => tokenStatuses(ctx.emulator, before).length === 3, "the second refresh");
    expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
    await until(async () => (await provider.getToken()).token !== first.token, "the refreshed token");
  });

  it("spreads refresh moments of tokens minted together across the window", async () => {
    const values = [0.1, 0.9];
    const refreshAfter: number[] = [];
    for (const v of values) {
      const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { hooks: { random: () => v }, refreshWindowMs: 600_000 });
      const t = await provider.getToken();
      refreshAfter.push(t.expiresOnTimestamp - EXPIRY_MARGIN_MS - t.refreshAfterTimestamp);
    }
    expect(refreshAfter).toEqual([60_000, 540_000]);
  });

  it("an aborted signal sends nothing; an abort while waiting rejects at once with AbortError", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    await expect(provider.getToken({}, { abortSignal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(ctx.emulator.requests.length).toBe(before);
    ctx.emulator.faults.set({ latencyMs: 800 });
    try {
      const controller = new AbortController();
      const started = Date.now();
      const pending = provider.getToken({ fresh: true }, { abortSignal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(pending).rejects.toMatchObject({ name: "AbortError", exitCode: 4 });
      expect(Date.now() - started).toBeLessThan(600);
      // The request itself goes on (another caller could share it); let it finish before the emulator closes.
      await new Promise((r) => setTimeout(r, 3 * 800));
    } finally {
      ctx.emulator.faults.set({ latencyMs: 0 });
    }
  });
});

it("requiring the runtime entry loads no @pulumi package", () => {
  const entry = resolve(__dirname, "../../../dist/lib/index.js");
  const script = `require(${JSON.stringify(entry)}); const loaded = Object.keys(require.cache).filter((p) => p.includes("@pulumi")); process.stdout.write(JSON.stringify(loaded));`;
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual([]);
});

describe("a cached token lives its expires_in on the monotonic clock, whatever the wall clock does", () => {
  /** A wall clock and a monotonic one, moved apart by the test. */
  function twoClocks() {
    const clocks = { wall: Date.now(), mono: 1_000, hooks: { now: () => clocks.wall, monotonicNow: () => clocks.mono, random: () => 0.5 } };
    return clocks;
  }

  it("the wall clock stepped hours forward cuts nothing: the token is still served from the cache, with no request", async () => {
    const clocks = twoClocks();
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { hooks: clocks.hooks });
    const first = await provider.getToken();
    // Reported on the wall clock: the expiry a person or an Azure SDK reads.
    expect(first.expiresOnTimestamp).toBe(clocks.wall + first.hops[2]!.expiresIn * 1000);
    clocks.wall += 3 * 3_600_000;
    const before = ctx.emulator.requests.length;
    const later = await provider.getToken();
    expect(later.token).toBe(first.token);
    expect(later.hops.every((h) => h.cached)).toBe(true);
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it("the wall clock stepped hours back extends nothing: once its lifetime has passed on the monotonic clock, a new token is minted", async () => {
    const clocks = twoClocks();
    // No background refresh: the token is served until its margin, then minted again on the caller's request.
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { hooks: clocks.hooks, refreshWindowMs: 0 });
    const mintedAt = clocks.wall;
    const first = await provider.getToken();
    const servedFor = first.expiresOnTimestamp - EXPIRY_MARGIN_MS - mintedAt;
    clocks.wall -= 3 * 3_600_000;
    clocks.mono += servedFor - 1_000;
    expect((await provider.getToken()).token).toBe(first.token);
    clocks.mono += 2_000;
    const before = ctx.emulator.requests.length;
    const renewed = await provider.getToken();
    expect(renewed.token).not.toBe(first.token);
    expect(renewed.hops.find((h) => h.hop === 3)?.cached).toBe(false);
    expect(tokenStatuses(ctx.emulator, before).length).toBeGreaterThanOrEqual(1);
  });
});
