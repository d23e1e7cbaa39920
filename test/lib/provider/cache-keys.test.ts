/**
 * No caller is served another caller's token: what a getToken() request names
 * is checked as the provider's own options are, and the cache keys of the hop
 * chain are structured, so values holding a separator never meet on one key.
 * Over real HTTP against the emulator, counted in its request log.
 */
import { AgentUserTokenProvider, UsageError } from "../../../lib";
import { AGENT_USER_FLOW } from "../../../lib/token-flows";
import { addGrant, addResource, agentUserToken, seededChain, tokenStatuses, useEmulator } from "../../harness";

/** A resource whose identifier holds the separator the old cache keys joined their parts with. */
const PIPE_RESOURCE = "api://r|x";

const ctx = useEmulator();
beforeAll(() => {
  const resource = addResource(ctx.emulator, PIPE_RESOURCE);
  const grantId = addGrant(ctx.emulator, ctx.out.agentIdentityId!, ctx.out.agentUserId!, { resourceId: resource.id, scope: "Tools.ListInvoke.All" });
  ctx.emulator.store.replicateGrantAt(grantId, 0);
});

const upn = () => ctx.out.agentUserPrincipalName!;

describe("getToken() checks the agent identity, agent user and resource it is asked for, as the constructor does", () => {
  it("the token of { agentUser, resource: 'api://r|x' } is never served to { agentUser: agentUser + '|api://r', resource: 'x' }", async () => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const first = await provider.getToken({ agentUser: upn(), resource: PIPE_RESOURCE });
    expect(first.claims).toMatchObject({ idtyp: "user", upn: upn() });
    const before = ctx.emulator.requests.length;
    const second = provider.getToken({ agentUser: `${upn()}|api://r`, resource: "x" });
    await expect(second).rejects.toBeInstanceOf(UsageError);
    await expect(second).rejects.toThrow(`agentUser of getToken() must be the agent user's object id (a GUID) or its UPN, got ${JSON.stringify(`${upn()}|api://r`)}`);
    expect(ctx.emulator.requests.length).toBe(before);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["an agent user that is neither GUID nor UPN", { agentUser: "alice" }, 'agentUser of getToken() must be the agent user\'s object id (a GUID) or its UPN, got "alice"'],
    ["an agent user that is no string", { agentUser: 42 }, "agentUser of getToken() must be the agent user's object id (a GUID) or its UPN, got 42"],
    ["an agent identity that is no GUID", { agentIdentityId: "research" }, 'agentIdentityId of getToken() must be the agent identity\'s object id (a GUID), got "research"'],
    ["an empty resource", { resource: "" }, 'resource of getToken() must be a non-empty string such as https://graph.microsoft.com, got ""'],
    ["a resource that is no string", { resource: ["https://graph.microsoft.com"] }, "resource of getToken() must be a non-empty string such as https://graph.microsoft.com, got an array"],
    ["fresh that is no boolean", { fresh: "yes" }, 'fresh of getToken() must be true or false, got "yes"'],
  ])("%s is a UsageError naming the field, with no request", async (_what, request, message) => {
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    await expect(provider.getToken(request)).rejects.toMatchObject({ name: "UsageError", code: "usage", exitCode: 2, message: expect.stringContaining(message) });
    expect(ctx.emulator.requests.length).toBe(before);
  });
});

it("the hop chain's cache keys are structured: values that join to one string with '|' are two keys", async () => {
  // The chain itself checks nothing (the provider does), so its keys must hold whatever they are given.
  const chain = seededChain(ctx.out);
  const before = ctx.emulator.requests.length;
  const minted = await agentUserToken(chain, { agentIdentityId: ctx.out.agentIdentityId!, agentUser: upn(), resourceUrl: PIPE_RESOURCE });
  expect(tokenStatuses(ctx.emulator, before)).toEqual([200, 200, 200]);
  expect(chain.cached(AGENT_USER_FLOW, { agentIdentityId: ctx.out.agentIdentityId!, agentUser: upn(), resourceUrl: PIPE_RESOURCE })?.accessToken).toBe(minted.accessToken);
  expect(chain.cached(AGENT_USER_FLOW, { agentIdentityId: ctx.out.agentIdentityId!, agentUser: `${upn()}|api://r`, resourceUrl: "x" })).toBeUndefined();
});
