/**
 * T1 and T2 are cached per agent identity, the final token per identity, user
 * and resource; concurrent callers share one in-flight request per hop.
 * Counted on the wire: the emulator's own request log.
 */
import { addAgent, addGrant, addResource, agentUserToken, seededChain, seededRequest, tokenStatuses, useEmulator } from "../../harness";

const MCP_AUDIENCE = "api://mcp-word-server";

const ctx = useEmulator();
beforeAll(() => {
  const resource = addResource(ctx.emulator, MCP_AUDIENCE);
  addGrant(ctx.emulator, ctx.out.agentIdentityId!, ctx.out.agentUserId!, { resourceId: resource.id, scope: "Tools.ListInvoke.All" });
});

const chain = () => seededChain(ctx.out);

function counted<T>(fn: () => Promise<T>): Promise<{ value: T; requests: number[] }> {
  const before = ctx.emulator.requests.length;
  return fn().then((value) => ({ value, requests: tokenStatuses(ctx.emulator, before) }));
}

const graphRequest = () => seededRequest(ctx.out);

it("20 concurrent callers cost exactly 3 requests and all get the same token", async () => {
  const runner = chain();
  const { value: tokens, requests } = await counted(() => Promise.all(Array.from({ length: 20 }, () => agentUserToken(runner, graphRequest()))));
  expect(requests).toEqual([200, 200, 200]);
  expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1);
  expect(tokens.every((t) => t.claims.idtyp === "user" && t.claims.oid === ctx.out.agentUserId)).toBe(true);
  // Exactly one caller minted each hop; the others report having shared it.
  for (const hop of [1, 2, 3]) expect(tokens.filter((t) => t.hops.find((h) => h.hop === hop)?.cached === false)).toHaveLength(1);
});

it("the same token again costs no request; a second resource costs one; fresh costs three again", async () => {
  const runner = chain();
  const first = await counted(() => agentUserToken(runner, graphRequest()));
  expect(first.requests).toHaveLength(3);

  const again = await counted(() => agentUserToken(runner, graphRequest()));
  expect(again.requests).toEqual([]);
  expect(again.value.accessToken).toBe(first.value.accessToken);
  expect(again.value.hops.map((h) => h.cached)).toEqual([true]);

  const second = await counted(() => agentUserToken(runner, { ...graphRequest(), resourceUrl: MCP_AUDIENCE }));
  expect(second.requests).toEqual([200]);
  expect(second.value.hops.map((h) => [h.hop, h.cached])).toEqual([
    [1, true],
    [2, true],
    [3, false],
  ]);
  expect(second.value.claims).toMatchObject({ idtyp: "user", azp: ctx.out.agentIdentityId, oid: ctx.out.agentUserId });
  expect(second.value.claims.scp).toMatch(/\bTools\.ListInvoke\.All\b/);
  expect(second.value.claims.aud).not.toBe("https://graph.microsoft.com");

  const fresh = await counted(() => agentUserToken(runner, { ...graphRequest(), fresh: true }));
  expect(fresh.requests).toEqual([200, 200, 200]);
  expect(fresh.value.hops.every((h) => !h.cached)).toBe(true);
});

it("fresh shows a scope granted after the first token; the cached token does not", async () => {
  const runner = chain();
  await agentUserToken(runner, graphRequest());
  const { store } = ctx.emulator;
  const scope = store.grant(ctx.out.grantId!)!.scope;
  store.changeGrantScope(ctx.out.grantId!, `${scope} Mail.Send`);
  try {
    expect((await agentUserToken(runner, graphRequest())).claims.scp).not.toMatch(/Mail\.Send/);
    expect((await agentUserToken(runner, { ...graphRequest(), fresh: true })).claims.scp).toMatch(/\bMail\.Send\b/);
  } finally {
    store.changeGrantScope(ctx.out.grantId!, scope);
  }
});

it("T1 and T2 are per agent identity: a second identity costs its own three requests, concurrently too", async () => {
  const runner = chain();
  const b = addAgent(ctx.emulator);
  const { value, requests } = await counted(() =>
    Promise.all([
      ...Array.from({ length: 5 }, () => agentUserToken(runner, graphRequest())),
      ...Array.from({ length: 5 }, () => agentUserToken(runner, { agentIdentityId: b.identity.id, agentUser: b.user.id, resourceUrl: ctx.out.resourceUrl })),
    ]),
  );
  expect(requests).toEqual([200, 200, 200, 200, 200, 200]);
  expect(value.slice(0, 5).every((t) => t.claims.appid === ctx.out.agentIdentityId)).toBe(true);
  expect(value.slice(5).every((t) => t.claims.appid === b.identity.id && t.claims.oid === b.user.id)).toBe(true);
});

it("a failed hop is not cached: the next call tries again", async () => {
  const runner = chain();
  const grant = ctx.emulator.store.grant(ctx.out.grantId!)!;
  ctx.emulator.store.deleteGrant(grant.id);
  try {
    const failed = await counted(() => agentUserToken(runner, graphRequest()).catch((e: unknown) => e));
    expect(failed.requests).toEqual([200, 200, 400]);
  } finally {
    ctx.emulator.store.createGrant(grant);
  }
  const ok = await counted(() => agentUserToken(runner, graphRequest()));
  expect(ok.requests).toEqual([200]);
  expect(ok.value.claims.idtyp).toBe("user");
});
