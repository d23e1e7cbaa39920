import { readFileSync } from "node:fs";
import { join } from "node:path";
import { selfSignedCertificate } from "../../emulator/certificate";
import {
  CONFIG_KEYS,
  ConfigError,
  DEFAULT_CONSISTENCY_WINDOW_SECONDS,
  validateConfig,
  type RawConfig,
} from "../../infra/config";
import { ALLOWED_SCOPES, DEFAULT_SCOPES } from "../../infra/scope-policy";
import { MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../../lib/entra-rules";

const SPONSOR = "5E000000-0000-0000-0000-000000000001";
const BASE: RawConfig = {
  userDomain: "Contoso.onmicrosoft.com",
  blueprintName: "Kit Blueprint",
  agentIdentityName: "Kit Agent",
  agentUserName: "kit-agent",
  sponsors: [SPONSOR],
};
const NOW = new Date("2026-11-22T00:00:00Z");

/** The message of the ConfigError that validating `raw` throws. */
function problems(raw: RawConfig, now = NOW): string {
  try {
    validateConfig(raw, now);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error("the configuration was accepted");
}

describe("validateConfig", () => {
  it("applies the documented defaults and derives the UPN", () => {
    expect(validateConfig(BASE, NOW)).toEqual({
      userDomain: "contoso.onmicrosoft.com",
      blueprintName: "Kit Blueprint",
      sponsors: [SPONSOR.toLowerCase()],
      agents: [{ name: "kit-agent", identityName: "Kit Agent", userName: "kit-agent", userPrincipalName: "kit-agent@contoso.onmicrosoft.com", scopes: [...DEFAULT_SCOPES], appRoles: [], onBehalfOfScopes: [] }],
      shorthand: true,
      allowedScopes: [...ALLOWED_SCOPES],
      resourceAppId: MICROSOFT_GRAPH_APP_ID,
      credential: { mode: "secret" },
      graphUrl: PUBLIC_CLOUD.graphUrl,
      authorityUrl: PUBLIC_CLOUD.authorityUrl,
      tokenExchangeAudience: "api://AzureADTokenExchange",
      consistencyWindowMs: DEFAULT_CONSISTENCY_WINDOW_SECONDS * 1000,
    });
  });

  it("takes lists as Pulumi hands them over (JSON) or as words", () => {
    const fromJson = validateConfig({ ...BASE, sponsors: JSON.stringify([SPONSOR, SPONSOR.toLowerCase()]), scopes: '["User.Read"]' }, NOW);
    expect(fromJson.sponsors).toEqual([SPONSOR.toLowerCase()]);
    expect(fromJson.agents[0]!.scopes).toEqual(["User.Read"]);
    expect(validateConfig({ ...BASE, scopes: "Chat.Create, User.Read Files.Read.All" }, NOW).agents[0]!.scopes).toEqual(["Chat.Create", "User.Read", "Files.Read.All"]);
  });

  it.each(["userDomain", "blueprintName", "agentIdentityName", "agentUserName", "sponsors"] as const)("requires %s", (key) => {
    const raw: RawConfig = { ...BASE };
    delete raw[key];
    expect(problems(raw)).toContain(`agent-user-kit:${key} is required`);
  });

  it("reports every problem at once, each naming its key", () => {
    const message = problems({ ...BASE, userDomain: "nodot", agentUserName: "bad name", resourceAppId: "graph" });
    expect(message).toMatch(/agent-user-kit:userDomain .*; agent-user-kit:agentUserName .*; agent-user-kit:resourceAppId /);
  });

  describe("names and lengths (Entra's documented limits)", () => {
    it.each([
      ["userDomain", "not a domain", "must be a domain name"],
      ["userDomain", "contoso.c0m", "must be a domain name"],
      ["userDomain", `${"a".repeat(40)}.onmicrosoft.com`, "at most 48 after the @"],
      ["blueprintName", "b".repeat(257), "at most 256"],
      ["agentIdentityName", "i".repeat(257), "at most 256"],
      ["agentIdentityName", "line\nbreak", "control character"],
      ["agentUserName", "u".repeat(65), "limited to 64"],
      ["agentUserName", "kit agent", "may hold only"],
      ["agentUserName", "kit@agent", "may hold only"],
      ["agentUserName", "kit-agent.", "must not end with a period"],
    ] as const)("%s = %j is refused", (key, value, expected) => {
      expect(problems({ ...BASE, [key]: value })).toContain(`agent-user-kit:${key} `);
      expect(problems({ ...BASE, [key]: value })).toContain(expected);
    });

    it("accepts the longest names Entra accepts", () => {
      const config = validateConfig(
        { ...BASE, blueprintName: "b".repeat(256), agentUserName: `${"u".repeat(63)}~`, userDomain: `${"d".repeat(30)}.onmicrosoft.com` },
        NOW,
      );
      expect(config.agents[0]!.userPrincipalName).toHaveLength(64 + 1 + 46);
    });
  });

  describe("object ids", () => {
    it.each([
      ["sponsors", [], "needs at least one user object id"],
      ["sponsors", ["admin@contoso.com"], "a UPN is not accepted"],
      ["sponsors", "[not json", "not a valid JSON list"],
      ["sponsors", Array.from({ length: 101 }, (_, i) => `5e000000-0000-0000-0000-${String(i).padStart(12, "0")}`), "at most 100"],
      ["resourceAppId", "graph", "must be an object id or app id"],
      ["blueprintName", ["a", "list"], "must be a single value"],
    ] as const)("%s = %j is refused", (key, value, expected) => {
      expect(problems({ ...BASE, [key]: value as RawConfig[typeof key] })).toContain(expected);
    });
  });

  describe("scopes", () => {
    it("refuses a scope outside the allow-list, listing the allow-list", () => {
      const message = problems({ ...BASE, scopes: ["User.Read", "Mail.Send"] });
      expect(message).toContain("agent-user-kit:scopes holds Mail.Send, not in the allow-list");
      expect(message).toContain(ALLOWED_SCOPES.join(", "));
    });

    it("accepts a scope the configured allow-list adds", () => {
      expect(validateConfig({ ...BASE, scopes: ["Mail.Send"], allowedScopes: ["Mail.Send"] }, NOW).agents[0]!.scopes).toEqual(["Mail.Send"]);
    });

    it.each([
      [[], "needs at least one delegated scope"],
      [["User Read"], "malformed scope names"],
    ] as const)("refuses %j", (scopes, expected) => {
      expect(problems({ ...BASE, scopes: scopes as unknown as string[] })).toContain(expected);
    });
  });

  describe("the exposed scope (onBehalfOfScope), by Entra's character set for permission scope values", () => {
    it.each(["access_agent", "Agent.Access:all", "a~b|c{d}`e"])("takes %j", (scope) => {
      expect(validateConfig({ ...BASE, onBehalfOfScope: scope }, NOW).onBehalfOf).toEqual({ scope, clients: [] });
    });

    it.each([
      ["an OSC 52 clipboard write", "acc\x1b]52;c;eA==\x07ess", '"acc\\x1b]52;c;eA==\\x07ess"'],
      ["a screen clear", "x\x1b[2J", '"x\\x1b[2J"'],
      ["a space", "access agent", '"access agent"'],
      ["a double quote", 'access"agent', '"access"agent"'],
      ["a backslash", "access\\agent", '"access\\agent"'],
      ["a non-ASCII letter", "accès", '"accès"'],
      ["a leading dot", ".access", '".access"'],
    ])("refuses %s, quoting it printable", (_case, scope, shown) => {
      const message = problems({ ...BASE, onBehalfOfScope: scope });
      expect(message).toContain(`agent-user-kit:onBehalfOfScope `);
      expect(message).toContain(`got ${shown}`);
      // eslint-disable-next-line no-control-regex
      expect(message).not.toMatch(/[\x00-\x1f]/);
    });

    it("refuses one longer than Entra's 120 characters", () => {
      expect(problems({ ...BASE, onBehalfOfScope: "a".repeat(121) })).toContain("onBehalfOfScope is 121 characters; Entra allows at most 120 in a scope value");
    });
  });

  describe("credential", () => {
    it("refuses an unknown mode", () => {
      expect(problems({ ...BASE, credential: "password" })).toContain("agent-user-kit:credential must be one of secret, managedIdentity, certificate");
    });

    it("takes a future secret end date, and refuses a malformed or past one", () => {
      expect(validateConfig({ ...BASE, secretEndDate: "2027-01-31T00:00:00Z" }, NOW).credential).toEqual({ mode: "secret", endDate: "2027-01-31T00:00:00.000Z" });
      expect(problems({ ...BASE, secretEndDate: "31/01/2027" })).toContain("agent-user-kit:secretEndDate must be an RFC 3339 date");
      expect(problems({ ...BASE, secretEndDate: "2020-01-01T00:00:00Z" })).toContain("agent-user-kit:secretEndDate is in the past");
    });

    it("managedIdentity: an existing principal, or a resource group and location to create one in", () => {
      const existing = "E1000000-0000-0000-0000-000000000001";
      expect(validateConfig({ ...BASE, credential: "managedIdentity", managedIdentityPrincipalId: existing }, NOW).credential).toEqual({
        mode: "managedIdentity",
        existingPrincipalId: existing.toLowerCase(),
      });
      expect(validateConfig({ ...BASE, credential: "managedIdentity", resourceGroupName: "rg", location: "westeurope", managedIdentityPrincipalId: "" }, NOW).credential).toEqual({
        mode: "managedIdentity",
        newIdentity: { resourceGroupName: "rg", location: "westeurope" },
      });
      const missing = problems({ ...BASE, credential: "managedIdentity" });
      expect(missing).toContain("agent-user-kit:resourceGroupName is required to create a user-assigned managed identity");
      expect(missing).toContain("agent-user-kit:location is required");
      expect(problems({ ...BASE, credential: "managedIdentity", managedIdentityPrincipalId: "mi" })).toContain("agent-user-kit:managedIdentityPrincipalId must be an object id");
      expect(problems({ ...BASE, credential: "managedIdentity", managedIdentityPrincipalId: existing, resourceGroupName: "rg" })).toContain(
        "agent-user-kit:resourceGroupName is not used when managedIdentityPrincipalId names an existing identity",
      );
    });

    it("certificate: a public PEM certificate that has not expired", () => {
      const cert = selfSignedCertificate({ commonName: "kit test", validDays: 30 });
      const now = new Date();
      expect(validateConfig({ ...BASE, credential: "certificate", certificatePem: cert.certificatePem }, now).credential).toEqual({
        mode: "certificate",
        certificatePem: cert.certificatePem.trim(),
        endDate: new Date(cert.certificate.validTo).toISOString(),
      });
      expect(problems({ ...BASE, credential: "certificate" }, now)).toContain("agent-user-kit:certificatePem is required when credential is certificate");
      expect(problems({ ...BASE, credential: "certificate", certificatePem: `${cert.certificatePem}\n${cert.privateKeyPem}` }, now)).toContain("contains a private key");
      expect(problems({ ...BASE, credential: "certificate", certificatePem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" }, now)).toContain(
        "is not a PEM X.509 certificate",
      );
      expect(problems({ ...BASE, credential: "certificate", certificatePem: cert.certificatePem }, new Date(now.getTime() + 31 * 86_400_000))).toContain(
        "agent-user-kit:certificatePem has expired",
      );
    });

    it("names a key that belongs to another mode", () => {
      expect(problems({ ...BASE, certificatePem: "x" })).toContain("agent-user-kit:certificatePem is used only when credential is certificate (credential is secret)");
      expect(problems({ ...BASE, credential: "certificate", secretEndDate: "2027-01-31T00:00:00Z" })).toContain(
        "agent-user-kit:secretEndDate is used only when credential is secret",
      );
    });
  });

  describe("service URLs and the replication window", () => {
    it("takes the token-exchange audience as given, else the authority's cloud's", () => {
      expect(validateConfig({ ...BASE, authorityUrl: "https://login.microsoftonline.us" }, NOW).tokenExchangeAudience).toBe("api://AzureADTokenExchangeUSGov");
      expect(validateConfig({ ...BASE, authorityUrl: "https://login.chinacloudapi.cn" }, NOW).tokenExchangeAudience).toBe("api://AzureADTokenExchangeChina");
      const given = validateConfig({ ...BASE, authorityUrl: "https://login.microsoftonline.us", tokenExchangeAudience: " api://AzureADTokenExchange " }, NOW);
      expect(given.tokenExchangeAudience).toBe("api://AzureADTokenExchange");
      // Blank, as `pulumi config set agent-user-kit:tokenExchangeAudience ""` leaves it: the cloud's.
      expect(validateConfig({ ...BASE, tokenExchangeAudience: "" }, NOW).tokenExchangeAudience).toBe("api://AzureADTokenExchange");
    });

    it("accepts https anywhere and http on loopback (the emulator), without a trailing slash", () => {
      const local = validateConfig({ ...BASE, graphUrl: "http://127.0.0.1:8443/", authorityUrl: "https://login.example.test/" }, NOW);
      expect([local.graphUrl, local.authorityUrl]).toEqual(["http://127.0.0.1:8443", "https://login.example.test"]);
    });

    it.each([
      ["graphUrl", "http://graph.example.test", "must use https"],
      ["authorityUrl", "login.microsoftonline.com", "is not an absolute URL"],
      // A base with a path doubles /v1.0 on every Graph call and puts the tenant in the wrong place of the
      // token endpoint and of the federated credential's issuer: refused at preview, not found at `up`.
      ["graphUrl", "https://graph.microsoft.com/v1.0", "must be a base URL with no path, query or fragment"],
      ["graphUrl", "https://graph.microsoft.com/?api=1", "must be a base URL with no path, query or fragment"],
      ["authorityUrl", "https://login.microsoftonline.com/contoso.onmicrosoft.com", "must be a base URL with no path, query or fragment"],
      ["tokenExchangeAudience", "https://login.microsoftonline.us", 'must be an api:// identifier such as api://AzureADTokenExchangeUSGov, got "https://login.microsoftonline.us"'],
      ["tokenExchangeAudience", "AzureADTokenExchange", 'must be an api:// identifier such as api://AzureADTokenExchangeUSGov, got "AzureADTokenExchange"'],
      ["consistencyWindowSeconds", "2.5", "must be a whole number from 0 to 1800"],
      ["consistencyWindowSeconds", 1801, "must be a whole number from 0 to 1800"],
    ] as const)("%s = %j is refused", (key, value, expected) => {
      expect(problems({ ...BASE, [key]: value })).toContain(`agent-user-kit:${key} ${expected}`);
    });
  });
});

describe("Pulumi.yaml", () => {
  const project = readFileSync(join(__dirname, "../../Pulumi.yaml"), "utf8");

  /** The indented block under `agent-user-kit:<key>:` in the project file. */
  function block(key: string): string {
    const match = new RegExp(`^  agent-user-kit:${key}:\\n((?:    .*\\n)+)`, "m").exec(project);
    if (!match) throw new Error(`Pulumi.yaml does not declare agent-user-kit:${key}`);
    return match[1]!;
  }
  const defaultOf = (key: string) => /^ {4}default: (.*)$/m.exec(block(key))?.[1];

  it("declares every configuration key with a type and a description", () => {
    // agents is a list of objects, a type Pulumi's project config cannot declare (pulumi/pulumi#11321).
    for (const key of CONFIG_KEYS) {
      if (key !== "agents") expect(block(key)).toMatch(/^ {4}type: (string|integer|array)$/m);
      expect(block(key)).toMatch(/^ {4}description: .+/m);
    }
  });

  it("states the same defaults as the code", () => {
    expect(JSON.parse(defaultOf("scopes")!)).toEqual(DEFAULT_SCOPES);
    expect(JSON.parse(defaultOf("allowedScopes")!)).toEqual(ALLOWED_SCOPES);
    expect(defaultOf("resourceAppId")).toBe(MICROSOFT_GRAPH_APP_ID);
    expect(defaultOf("credential")).toBe("secret");
    expect(defaultOf("graphUrl")).toBe(PUBLIC_CLOUD.graphUrl);
    expect(defaultOf("authorityUrl")).toBe(PUBLIC_CLOUD.authorityUrl);
    expect(Number(defaultOf("consistencyWindowSeconds"))).toBe(DEFAULT_CONSISTENCY_WINDOW_SECONDS);
  });

  it("runs infra/stack.ts with Node.js", () => {
    expect(project).toMatch(/^name: agent-user-kit$/m);
    expect(project).toMatch(/^main: infra\/stack\.ts$/m);
    expect(project).toMatch(/^ {2}name: nodejs$/m);
  });
});
