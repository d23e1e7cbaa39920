import * as pulumi from "@pulumi/pulumi";
import { agentIdentityProvider } from "../../infra/providers/agent-identity";
import { agentUserProvider } from "../../infra/providers/agent-user";
import { blueprintProvider } from "../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../infra/providers/blueprint-principal";
import { step } from "../../infra/providers/failure";
import { UNKNOWN } from "../../infra/providers/inputs";

const COMMON = {
  graphUrl: "https://graph.microsoft.com",
  authorityUrl: "https://login.microsoftonline.com",
  consistencyWindowMs: 120_000,
  providerVersion: "0.1.0",
};
const BLUEPRINT = { ...COMMON, displayName: "Kit", sponsors: ["5e000000-0000-0000-0000-000000000001"], adoptionTag: "agent-user-kit:p/s/kit" };
const IDENTITY = {
  ...COMMON,
  displayName: "Kit Agent",
  blueprintAppId: "b2000000-0000-0000-0000-000000000002",
  blueprintPrincipalId: "b3000000-0000-0000-0000-000000000003",
  sponsors: ["5e000000-0000-0000-0000-000000000001"],
};
const USER = {
  ...COMMON,
  displayName: "kit-agent",
  mailNickname: "kit-agent",
  userPrincipalName: "kit-agent@contoso.onmicrosoft.com",
  identityParentId: "a1000000-0000-0000-0000-000000000001",
};

describe("check", () => {
  it("normalizes what Graph compares case-insensitively, so case and order never show as a diff", async () => {
    const { inputs, failures } = await blueprintProvider.check!({} as never, {
      ...BLUEPRINT,
      graphUrl: "https://graph.microsoft.com/",
      sponsors: ["5E000000-0000-0000-0000-000000000002", "5e000000-0000-0000-0000-000000000001", "5E000000-0000-0000-0000-000000000001"],
    });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({
      graphUrl: "https://graph.microsoft.com",
      sponsors: ["5e000000-0000-0000-0000-000000000001", "5e000000-0000-0000-0000-000000000002"],
    });
  });

  it("keeps a base URL as its origin, as the stack config does: case, the default port and a trailing slash are spelling", async () => {
    const { inputs, failures } = await agentUserProvider.check!({} as never, { ...USER, graphUrl: "https://Graph.Microsoft.com:443/", authorityUrl: "https://LOGIN.microsoftonline.com/" });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ graphUrl: "https://graph.microsoft.com", authorityUrl: "https://login.microsoftonline.com" });
  });

  it("defaults the replication window to two minutes", async () => {
    const news: Record<string, unknown> = { ...IDENTITY };
    delete news.consistencyWindowMs;
    expect((await agentIdentityProvider.check!({} as never, news as never)).inputs).toMatchObject({ consistencyWindowMs: 120_000 });
  });

  it.each([
    [blueprintProvider, { ...BLUEPRINT, sponsors: [] }, "sponsors", "non-empty list of GUIDs"],
    [blueprintProvider, { ...BLUEPRINT, displayName: "x".repeat(257) }, "displayName", "at most 256"],
    [blueprintProvider, { ...BLUEPRINT, adoptionTag: "" }, "adoptionTag", "is required"],
    [blueprintPrincipalProvider, { ...COMMON, appId: "not-a-guid", blueprintObjectId: "b1000000-0000-0000-0000-000000000001" }, "appId", "must be a GUID"],
    [agentIdentityProvider, { ...IDENTITY, blueprintPrincipalId: undefined }, "blueprintPrincipalId", "is required"],
    [agentUserProvider, { ...USER, userPrincipalName: "kit agent@contoso.com" }, "userPrincipalName", "local@domain"],
    [agentUserProvider, { ...USER, mailNickname: "m".repeat(65) }, "mailNickname", "at most 64"],
    [agentUserProvider, { ...USER, graphUrl: "http://graph.example.test" }, "graphUrl", "must use https"],
    [agentUserProvider, { ...USER, consistencyWindowMs: -1 }, "consistencyWindowMs", "from 0 to"],
    [agentUserProvider, { ...USER, providerVersion: undefined }, "providerVersion", "is required"],
  ] as Array<[pulumi.dynamic.ResourceProvider, Record<string, unknown>, string, string]>)(
    "reports a bad input by property (%#)",
    async (provider, news, property, reason) => {
      const { failures } = await provider.check!({}, news);
      expect(failures).toEqual([{ property, reason: expect.stringContaining(reason) }]);
    },
  );

  it("lets values unknown during preview through", async () => {
    const { failures } = await agentUserProvider.check!({} as never, { ...USER, identityParentId: UNKNOWN, userPrincipalName: UNKNOWN });
    expect(failures).toEqual([]);
  });

  it("uses Pulumi's own marker for unknown values", () => {
    expect(UNKNOWN).toBe(pulumi.runtime.unknownValue);
  });
});

describe("diff", () => {
  const withIds = { ...BLUEPRINT, objectId: "b1", appId: "b2" };

  it("finds no change when nothing changed", async () => {
    expect(await blueprintProvider.diff!("b1", withIds, BLUEPRINT)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("a base URL stored as an earlier version kept it (upper case, :443) is no change against its origin", async () => {
    const olds = { ...withIds, graphUrl: "https://Graph.Microsoft.com:443", authorityUrl: "https://login.microsoftonline.com/" };
    expect(await blueprintProvider.diff!("b1", olds, BLUEPRINT)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it.each([
    ["display name", blueprintProvider, withIds, { ...BLUEPRINT, displayName: "Renamed" }],
    ["sponsors", blueprintProvider, withIds, { ...BLUEPRINT, sponsors: ["5e000000-0000-0000-0000-000000000009"] }],
    ["identity sponsors", agentIdentityProvider, IDENTITY, { ...IDENTITY, sponsors: ["5e000000-0000-0000-0000-000000000009"] }],
    ["UPN", agentUserProvider, USER, { ...USER, userPrincipalName: "other@contoso.onmicrosoft.com" }],
    ["provider version (so delete and refresh run the new code)", agentUserProvider, USER, { ...USER, providerVersion: "0.2.0" }],
    ["replication window", blueprintPrincipalProvider, { ...COMMON, appId: "a" }, { ...COMMON, appId: "a", consistencyWindowMs: 5_000 }],
    ["the explicit provider's settings (so delete and refresh read the current ones)", agentUserProvider, { ...USER, provisioner: { clientSecret: "old" } }, { ...USER, provisioner: { clientSecret: "new" } }],
    ["an explicit provider given where there was none", agentUserProvider, USER, { ...USER, provisioner: { clientSecret: "new" } }],
  ] as Array<[string, pulumi.dynamic.ResourceProvider, Record<string, unknown>, Record<string, unknown>]>)(
    "updates in place for a change of %s",
    async (_what, provider, olds, news) => {
      expect(await provider.diff!("id", olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    },
  );

  it.each([
    ["the blueprint's adoption tag", blueprintProvider, withIds, { ...BLUEPRINT, adoptionTag: "agent-user-kit:p/s/other" }, ["adoptionTag"], false],
    ["the Graph endpoint", blueprintProvider, withIds, { ...BLUEPRINT, graphUrl: "https://graph.microsoft.us" }, ["graphUrl"], false],
    ["the principal's blueprint", blueprintPrincipalProvider, { ...COMMON, appId: "a", blueprintObjectId: "o" }, { ...COMMON, appId: "b", blueprintObjectId: "p" }, ["appId", "blueprintObjectId"], false],
    ["the identity's blueprint", agentIdentityProvider, IDENTITY, { ...IDENTITY, blueprintAppId: "b9000000-0000-0000-0000-000000000009" }, ["blueprintAppId"], true],
    ["the agent user's identity", agentUserProvider, USER, { ...USER, identityParentId: "a9000000-0000-0000-0000-000000000009" }, ["identityParentId"], true],
    ["a value unknown in preview", agentUserProvider, USER, { ...USER, identityParentId: UNKNOWN }, ["identityParentId"], true],
  ] as Array<[string, pulumi.dynamic.ResourceProvider, Record<string, unknown>, Record<string, unknown>, string[], boolean]>)(
    "replaces for a change of %s",
    async (_what, provider, olds, news, replaces, deleteBeforeReplace) => {
      expect(await provider.diff!("id", olds, news)).toEqual({ changes: true, replaces, deleteBeforeReplace });
    },
  );
});

describe("update", () => {
  it("writes a new provider version or provisioner to the state without a Graph call", async () => {
    // No Graph endpoint answers at this URL: a Graph call would fail the update.
    const olds = { ...USER, graphUrl: "https://127.0.0.1:9", userId: "u1", provisioner: { clientSecret: "old" } };
    const news = { ...USER, graphUrl: "https://127.0.0.1:9", providerVersion: "9.9.9", provisioner: { clientSecret: "new" } };
    expect(await agentUserProvider.update!("u1", olds, news)).toEqual({ outs: { ...olds, ...news } });
  });

  it("drops an explicit provider's settings from the state when the program no longer gives them", async () => {
    const olds = { ...USER, graphUrl: "https://127.0.0.1:9", userId: "u1", provisioner: { clientSecret: "old" } };
    const news = { ...USER, graphUrl: "https://127.0.0.1:9" };
    expect(await agentUserProvider.diff!("u1", olds, news)).toMatchObject({ changes: true, replaces: [] });
    const { outs } = await agentUserProvider.update!("u1", olds, news);
    expect(outs).toEqual({ ...news, userId: "u1" });
    expect(outs).not.toHaveProperty("provisioner");
  });
});

// How Graph's refusals read (call, code, likely fix) runs over HTTP in test/infra/http/refusals.test.ts.
describe("failures", () => {
  it("are not wrapped twice", async () => {
    const inner = step("agent user", "create", () => Promise.reject(new Error("boom")));
    await expect(step("outer", "create", () => inner)).rejects.toThrow(/^agent user create failed: boom$/);
  });
});
