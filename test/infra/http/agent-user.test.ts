import { agentUserProvider } from "../../../infra/providers/agent-user";
import { createIdentityChain, createUser, DOMAIN, startTenant, userInputs, type Tenant } from "./tenant";

describe("agent user provider over HTTP", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await startTenant();
  });
  afterAll(() => t.close());

  const stored = (id: string) => t.emulator.store.user(id);

  it("creates the agent user of an agent identity, enabled and without a password", async () => {
    const { identity } = await createIdentityChain(t);
    const inputs = await userInputs(t, identity);
    const { id, outs } = await agentUserProvider.create!(inputs);
    expect(outs!.userId).toBe(id);
    expect(stored(id)).toMatchObject({
      kind: "agentUser",
      accountEnabled: true,
      identityParentId: identity.identityId,
      userPrincipalName: inputs.userPrincipalName,
      mailNickname: inputs.mailNickname,
    });
  });

  it("reads drift in UPN and name, and a deleted user as gone", async () => {
    const user = await createUser(t, (await createIdentityChain(t)).identity);
    await expect(agentUserProvider.read!(user.userId, user)).resolves.toEqual({ id: user.userId, props: user });
    t.emulator.store.updateUser(user.userId, { userPrincipalName: `moved@${DOMAIN}`, displayName: "Renamed in the portal" });
    expect((await agentUserProvider.read!(user.userId, user)).props).toMatchObject({ userPrincipalName: `moved@${DOMAIN}`, displayName: "Renamed in the portal" });
    t.emulator.store.deleteUser(user.userId);
    await expect(agentUserProvider.read!(user.userId, user)).resolves.toEqual({});
  });

  it("changes UPN, nickname and name in place", async () => {
    const { identity } = await createIdentityChain(t);
    const olds = await createUser(t, identity);
    const news = await userInputs(t, identity, { displayName: "Renamed", mailNickname: "renamed", userPrincipalName: `renamed-${olds.userId.slice(0, 8)}@${DOMAIN}` });
    expect(await agentUserProvider.diff!(olds.userId, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs } = await agentUserProvider.update!(olds.userId, olds, news);
    expect(outs).toMatchObject({ userId: olds.userId, userPrincipalName: news.userPrincipalName });
    expect(stored(olds.userId)).toMatchObject({ displayName: "Renamed", mailNickname: "renamed", userPrincipalName: news.userPrincipalName });
  });

  it("is replaced, deleting first, for another identity: the new user takes over the UPN", async () => {
    const olds = await createUser(t, (await createIdentityChain(t)).identity);
    const { identity: other } = await createIdentityChain(t);
    const news = await userInputs(t, other, { mailNickname: olds.mailNickname, userPrincipalName: olds.userPrincipalName });
    expect(await agentUserProvider.diff!(olds.userId, olds, news)).toEqual({ changes: true, replaces: ["identityParentId"], deleteBeforeReplace: true });
    await agentUserProvider.delete!(olds.userId, olds);
    const { id } = await agentUserProvider.create!(news);
    expect(stored(id)).toMatchObject({ identityParentId: other.identityId, userPrincipalName: olds.userPrincipalName });
    expect(stored(olds.userId)).toBeUndefined();
  });

  it("deletes the user, and counts one already gone as deleted", async () => {
    const user = await createUser(t, (await createIdentityChain(t)).identity);
    await agentUserProvider.delete!(user.userId, user);
    expect(stored(user.userId)).toBeUndefined();
    await expect(agentUserProvider.delete!(user.userId, user)).resolves.toBeUndefined();
  });
});
