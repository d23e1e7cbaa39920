/**
 * Entra's rules, pinned once (lib/entra-rules.ts). The stack config, the
 * providers' check, the CLI and the emulator call these; the last block shows
 * the config and the providers refuse the same values, which they did not
 * before (a URL with a path, a UPN such as `a.@x`, a control character).
 */
import type * as pulumi from "@pulumi/pulumi";
import { ConfigError, validateConfig, type RawConfig } from "../../infra/config";
import { agentUserProvider } from "../../infra/providers/agent-user";
import { blueprintProvider } from "../../infra/providers/blueprint";
import {
  baseUrlProblem,
  displayNameProblem,
  isDomainName,
  isGraphResource,
  isGuid,
  isPlaceholderGuid,
  isUpn,
  LIMITS,
  MICROSOFT_GRAPH_APP_ID,
  scopeValueProblem,
  PUBLIC_CLOUD,
  TOKEN_EXCHANGE_APP_ID,
  TOKEN_EXCHANGE_AUDIENCE,
  tokenExchangeAudience,
  upnDomainProblem,
  upnLocalPartProblem,
  upnProblem,
} from "../../lib/entra-rules";

describe("ids", () => {
  it.each(["5e000000-0000-0000-0000-000000000001", "5E000000-ABCD-0000-0000-00000000000F", MICROSOFT_GRAPH_APP_ID])("%s is a GUID", (value) => {
    expect(isGuid(value)).toBe(true);
  });

  it.each(["", "not-a-guid", "5e000000-0000-0000-0000-00000000000", "5e000000-0000-0000-0000-0000000000011", "{5e000000-0000-0000-0000-000000000001}", "5e0000000000000000000000000000001", "5g000000-0000-0000-0000-000000000001", " 5e000000-0000-0000-0000-000000000001", 42, undefined])(
    "%j is not a GUID",
    (value) => {
      expect(isGuid(value)).toBe(false);
    },
  );

  it("knows the example files' all-zero placeholder, which is a GUID but never a real id", () => {
    expect(isPlaceholderGuid(" 00000000-0000-0000-0000-000000000000 ")).toBe(true);
    expect(isGuid("00000000-0000-0000-0000-000000000000")).toBe(true);
    expect(isPlaceholderGuid("00000000-0000-0000-0000-000000000001")).toBe(false);
  });
});

describe("well-known ids and URLs", () => {
  it("are the ones Entra fixes in every tenant", () => {
    expect(MICROSOFT_GRAPH_APP_ID).toBe("00000003-0000-0000-c000-000000000000");
    expect(TOKEN_EXCHANGE_AUDIENCE).toBe("api://AzureADTokenExchange");
    expect(TOKEN_EXCHANGE_APP_ID).toBe("fb60f99c-7a34-4190-8149-302f77469936");
    expect(PUBLIC_CLOUD).toEqual({ authorityUrl: "https://login.microsoftonline.com", graphUrl: "https://graph.microsoft.com", resourceUrl: "https://graph.microsoft.com" });
  });
});

describe("display names", () => {
  it("allow 256 characters, any printable text", () => {
    expect(LIMITS.displayName).toBe(256);
    expect(displayNameProblem("d".repeat(256))).toBeUndefined();
    expect(displayNameProblem("Agent — Ünïcode 🤖")).toBeUndefined();
  });

  it.each([
    ["d".repeat(257), "is 257 characters; Entra allows at most 256 in a display name"],
    ["line\nbreak", "contains a control character"],
    ["tab\there", "contains a control character"],
    ["del\u007f", "contains a control character"],
  ])("%j is refused", (value, problem) => {
    expect(displayNameProblem(value)).toBe(problem);
  });
});

describe("UPNs (Entra's username policy)", () => {
  it("has the documented bounds: 64 before the @, 48 after, so 113 in all", () => {
    expect(LIMITS).toMatchObject({ upnLocalPart: 64, upnDomain: 48, mailNickname: 64 });
    const longest = `${"u".repeat(63)}~@${"d".repeat(32)}.onmicrosoft.com`;
    expect(longest).toHaveLength(113);
    expect(isUpn(longest)).toBe(true);
  });

  it.each(["kit-agent@contoso.onmicrosoft.com", "O'Brien.Agent_1!#^~@Contoso.COM", "a@x-y.io"])("%s is a UPN", (value) => {
    expect(upnProblem(value)).toBeUndefined();
    expect(isUpn(value)).toBe(true);
  });

  it.each([
    ["a.@contoso.com", "before the @ may hold only"],
    ["kit agent@contoso.com", "before the @ may hold only"],
    ["ü@contoso.com", "before the @ may hold only"],
    ["a@b@contoso.com", "before the @ may hold only"],
    ["@contoso.com", "before the @ may hold only"],
    [`${"u".repeat(65)}@contoso.com`, "before the @ is 65 characters"],
    ["kit-agent", "must be local@domain"],
    ["kit@x", "after the @ must be a domain name"],
    ["kit@contoso.c0m", "after the @ must be a domain name"],
    ["kit@-contoso.com", "after the @ must be a domain name"],
    ["kit@contoso..com", "after the @ must be a domain name"],
    [`kit@${"d".repeat(40)}.onmicrosoft.com`, "after the @ is 56 characters; a UPN allows at most 48 after the @"],
  ])("%j is refused", (value, problem) => {
    expect(upnProblem(value)).toContain(problem);
    expect(isUpn(value)).toBe(false);
  });

  it("names each part's problem on its own, for the config keys that hold one part", () => {
    expect(upnLocalPartProblem("kit-agent.")).toBe(`may hold only A-Z a-z 0-9 ' . - _ ! # ^ ~ and must not end with a period (got "kit-agent.")`);
    expect(upnLocalPartProblem("u".repeat(65))).toBe("is 65 characters; it is the mail nickname and the UPN before the @, both limited to 64");
    expect(upnDomainProblem("nodot")).toMatch(/^must be a domain name such as contoso.onmicrosoft.com \(got "nodot"\)/);
    expect(isDomainName("contoso.onmicrosoft.com")).toBe(true);
    expect(isDomainName(`${"d".repeat(64)}.com`)).toBe(false);
  });
});

describe("base URLs", () => {
  it.each(["https://graph.microsoft.com", "https://graph.microsoft.com/", "http://127.0.0.1:8443", "http://localhost:1/", "http://[::1]:9"])("%s is a base URL", (value) => {
    expect(baseUrlProblem(value)).toBeUndefined();
  });

  it.each([
    ["login.microsoftonline.com", "is not an absolute URL"],
    ["http://graph.example.test", "must use https (plain http is accepted only for loopback hosts"],
    ["https://user:pw@graph.example.test", "must not carry a user name or password"],
    ["https://graph.microsoft.com/v1.0", "must be a base URL with no path, query or fragment, such as https://graph.microsoft.com"],
    ["https://graph.microsoft.com/?api=1", "must be a base URL with no path, query or fragment"],
    ["https://graph.microsoft.com/#x", "must be a base URL with no path, query or fragment"],
  ])("%j is refused", (value, problem) => {
    expect(baseUrlProblem(value)).toContain(problem);
  });

  it("never repeats a URL that carries a credential", () => {
    expect(baseUrlProblem("https://user:s3cret@graph.example.test/v1.0")).not.toContain("s3cret");
    // One that does not even parse (a port that is no number) may hold a password all the same.
    expect(baseUrlProblem("https://user:s3cret@graph.example.test:port")).toBe("is not an absolute URL");
  });
});

describe("the stack config and the providers' check agree", () => {
  const NOW = new Date("2026-06-01T00:00:00Z");
  const CONFIG: RawConfig = { userDomain: "contoso.onmicrosoft.com", blueprintName: "Kit", agentIdentityName: "Kit Agent", agentUserName: "kit-agent", sponsors: '["5e000000-0000-0000-0000-000000000001"]' };
  const COMMON = { graphUrl: PUBLIC_CLOUD.graphUrl, authorityUrl: PUBLIC_CLOUD.authorityUrl, consistencyWindowMs: 0, providerVersion: "0.1.0" };
  const USER = { ...COMMON, displayName: "kit-agent", mailNickname: "kit-agent", userPrincipalName: "kit-agent@contoso.onmicrosoft.com", identityParentId: "a1000000-0000-0000-0000-000000000001" };
  const BLUEPRINT = { ...COMMON, displayName: "Kit", sponsors: ["5e000000-0000-0000-0000-000000000001"], adoptionTag: "agent-user-kit:p/s/kit" };

  /** The stack config's refusal (its message, naming the key), or false; any other failure fails the test. */
  const configRefuses = (raw: RawConfig): string | false => {
    try {
      validateConfig({ ...CONFIG, ...raw }, NOW);
      return false;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return err.message;
    }
  };
  const checkFailures = async (provider: pulumi.dynamic.ResourceProvider, news: Record<string, unknown>) => (await provider.check!({}, news)).failures ?? [];

  it("both accept the values of a good stack", async () => {
    expect(configRefuses({})).toBe(false);
    expect(await checkFailures(agentUserProvider, USER)).toEqual([]);
    expect(await checkFailures(blueprintProvider, BLUEPRINT)).toEqual([]);
  });

  it("both refuse a Graph URL with a path", async () => {
    expect(configRefuses({ graphUrl: "https://graph.microsoft.com/v1.0" })).toMatch(/graphUrl/);
    expect(await checkFailures(agentUserProvider, { ...USER, graphUrl: "https://graph.microsoft.com/v1.0" })).toEqual([
      { property: "graphUrl", reason: expect.stringContaining("must be a base URL with no path") },
    ]);
  });

  it("both refuse a UPN with a period right before the @", async () => {
    expect(configRefuses({ agentUserName: "a." })).toMatch(/agentUserName/);
    expect(await checkFailures(agentUserProvider, { ...USER, userPrincipalName: "a.@contoso.onmicrosoft.com" })).toEqual([
      { property: "userPrincipalName", reason: expect.stringContaining("must not end with a period") },
    ]);
  });

  it("both refuse more sponsors than Entra allows", async () => {
    expect(LIMITS.sponsors).toBe(100);
    const sponsors = Array.from({ length: LIMITS.sponsors + 1 }, (_, i) => `5e000000-0000-0000-0000-${String(i).padStart(12, "0")}`);
    expect(configRefuses({ sponsors: JSON.stringify(sponsors) })).toMatch(/sponsors/);
    expect(configRefuses({ sponsors: JSON.stringify(sponsors.slice(1)) })).toBe(false);
    expect(await checkFailures(blueprintProvider, { ...BLUEPRINT, sponsors })).toEqual([{ property: "sponsors", reason: "holds 101 ids; at most 100 are allowed" }]);
    expect(await checkFailures(blueprintProvider, { ...BLUEPRINT, sponsors: sponsors.slice(1) })).toEqual([]);
  });

  it("both refuse a display name with a control character", async () => {
    expect(configRefuses({ blueprintName: "Kit\u0007" })).toMatch(/blueprintName/);
    expect(await checkFailures(blueprintProvider, { ...BLUEPRINT, displayName: "Kit\u0007" })).toEqual([{ property: "displayName", reason: "contains a control character" }]);
    expect(await checkFailures(agentUserProvider, { ...USER, displayName: "kit\nagent" })).toEqual([{ property: "displayName", reason: "contains a control character" }]);
  });
});

describe("tokenExchangeAudience", () => {
  it.each([
    ["https://login.microsoftonline.com", TOKEN_EXCHANGE_AUDIENCE],
    ["https://login.microsoftonline.us", "api://AzureADTokenExchangeUSGov"],
    ["https://login.usgovcloudapi.net", "api://AzureADTokenExchangeUSGov"],
    ["https://login.partner.microsoftonline.cn", "api://AzureADTokenExchangeChina"],
    ["https://login.chinacloudapi.cn", "api://AzureADTokenExchangeChina"],
    ["http://127.0.0.1:8400", TOKEN_EXCHANGE_AUDIENCE],
    ["https://login.microsoftonline.us.example.com", TOKEN_EXCHANGE_AUDIENCE],
  ])("%s: %s", (authority, audience) => {
    expect(tokenExchangeAudience(authority)).toBe(audience);
  });
});

describe("isGraphResource", () => {
  it.each([
    ["https://graph.microsoft.com", undefined, true],
    ["HTTPS://Graph.Microsoft.com/", undefined, true],
    ["00000003-0000-0000-c000-000000000000", undefined, true],
    ["https://graph.microsoft.us", "https://graph.microsoft.us", true],
    ["https://graph.microsoft.us", undefined, false],
    ["api://7c3e9a12-5d4b-4e6f-8a1c-2b3d4e5f6a7b", undefined, false],
  ] as const)("%s (Graph in use: %s) is Graph: %s", (resource, graphUrl, expected) => {
    expect(isGraphResource(resource, graphUrl)).toBe(expected);
  });
});

describe("a permission scope value", () => {
  // permissionscope.md's `value`, as the page lists it: these, letters and digits; nothing else of ASCII.
  const LISTED = ":!#$%&'()*+,-./:;<=>?@[]^+_`{|}~";
  it("takes exactly the characters Entra's permissionScope page lists, of all 128 ASCII ones", () => {
    const taken = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).filter((c) => scopeValueProblem(`a${c}`) === undefined);
    const expected = [...new Set([...LISTED, ..."0123456789", ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ", ..."abcdefghijklmnopqrstuvwxyz"])].sort();
    expect(taken.sort()).toEqual(expected);
  });

  it("refuses a value longer than 120 characters, one starting with a dot, and an empty one", () => {
    expect([scopeValueProblem("a".repeat(120)), scopeValueProblem("a".repeat(121)), scopeValueProblem(".a"), scopeValueProblem("")]).toEqual([
      undefined,
      "is 121 characters; Entra allows at most 120 in a scope value",
      "must not start with '.'",
      "must not be empty",
    ]);
  });
});
