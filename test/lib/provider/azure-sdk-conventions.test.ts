/**
 * AgentUserCredential behaves as @azure/identity's credentials do where Azure
 * SDK code depends on it: @azure/core-rest-pipeline's
 * bearerTokenAuthenticationPolicy recovers from a CAE claims challenge,
 * ChainedTokenCredential falls through when the configuration is missing,
 * a tenant it was not allowed is refused, and a scope gets its own resource.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { ChainedTokenCredential } from "@azure/identity";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { bearerTokenAuthenticationPolicy, createDefaultHttpClient, createEmptyPipeline, createPipelineRequest } from "@azure/core-rest-pipeline";
import { AgentUserCredential, AgentUserTokenProvider, CredentialUnavailableError, TokenEndpointError } from "../../../lib";
import { selfSignedCertificate } from "../../../emulator/certificate";
import { PUBLIC_CLOUD } from "../../../lib/entra-rules";
import { addResource, claimsOf, recordingDispatcher, useEmulator } from "../../harness";

const ctx = useEmulator();
const GRAPH = `${PUBLIC_CLOUD.graphUrl}/.default`;

/** A resource server over https that answers its first request with a CAE claims challenge, as Microsoft Graph does after a revocation. */
async function challengingResource(nbf: number): Promise<{ url: string; ca: string; seen: string[]; close: () => Promise<void> }> {
  const cert = selfSignedCertificate({ commonName: "claims challenge test", hosts: ["127.0.0.1"] });
  const seen: string[] = [];
  const claims = Buffer.from(JSON.stringify({ access_token: { nbf: { essential: true, value: String(nbf) } } })).toString("base64");
  const server: Server = createServer({ cert: cert.certificatePem, key: cert.privateKeyPem }, (req, res) => {
    const token = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    seen.push(token);
    const c = token ? claimsOf(token) : {};
    // Satisfied only by a token minted for the challenge: issued at or after nbf, from a client declaring cp1.
    if (seen.length > 1 && typeof c.iat === "number" && c.iat >= nbf && Array.isArray(c.xms_cc) && c.xms_cc.includes("cp1")) {
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    }
    res
      .writeHead(401, {
        "www-authenticate": `Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", error="insufficient_claims", claims="${claims}"`,
      })
      .end();
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/v1.0/me`, ca: cert.certificatePem, seen, close: () => new Promise((done) => server.close(() => done())) };
}

describe("bearerTokenAuthenticationPolicy", () => {
  it("recovers from a claims challenge: the claims go to hop 3 with the cp1 capability, a new token is minted, the retry succeeds", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { dispatcher });
    const credential = new AgentUserCredential(provider);
    // The token cached before the challenge: the policy's first call must not be what answers it.
    const before = await credential.getToken(GRAPH, { enableCae: true });
    const nbf = claimsOf(before.token).iat as number;
    const resource = await challengingResource(nbf);
    try {
      const pipeline = createEmptyPipeline();
      pipeline.addPolicy(bearerTokenAuthenticationPolicy({ credential, scopes: GRAPH }));
      const request = createPipelineRequest({ url: resource.url });
      request.tlsSettings = { ca: resource.ca };
      const response = await pipeline.sendRequest(createDefaultHttpClient(), request);
      expect(response.status).toBe(200);
      expect(resource.seen).toHaveLength(2);
      expect(resource.seen[0]).toBe(before.token);
      expect(resource.seen[1]).not.toBe(before.token);
      const hop3 = sent.filter((r) => r.form.grant_type === "user_fic");
      expect(hop3).toHaveLength(2);
      expect(JSON.parse(hop3[0]!.form.claims!)).toEqual({ access_token: { xms_cc: { values: ["cp1"] } } });
      expect(JSON.parse(hop3[1]!.form.claims!)).toEqual({ access_token: { nbf: { essential: true, value: String(nbf) }, xms_cc: { values: ["cp1"] } } });
      // The challenged token replaced the cached one: the next caller gets it without a request.
      expect((await credential.getToken(GRAPH, { enableCae: true })).token).toBe(resource.seen[1]);
      expect(sent.filter((r) => r.form.grant_type === "user_fic")).toHaveLength(2);
    } finally {
      await resource.close();
    }
  });
});

describe("enableCae", () => {
  it("declares cp1: the token carries xms_cc; without it no xms_cc and no claims parameter, each cached apart", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const credential = new AgentUserCredential(AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { dispatcher }));
    const cae = await credential.getToken(GRAPH, { enableCae: true });
    const plain = await credential.getToken(GRAPH);
    expect(claimsOf(cae.token).xms_cc).toEqual(["cp1"]);
    expect(claimsOf(plain.token)).not.toHaveProperty("xms_cc");
    const hop3 = sent.filter((r) => r.form.grant_type === "user_fic");
    expect(hop3.map((r) => r.form.claims)).toEqual([JSON.stringify({ access_token: { xms_cc: { values: ["cp1"] } } }), undefined]);
    expect((await credential.getToken(GRAPH, { enableCae: true })).token).toBe(cae.token);
    expect((await credential.getToken(GRAPH)).token).toBe(plain.token);
  });

  it("a claims value that is no JSON object is refused before any request, naming the option", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const credential = new AgentUserCredential(AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { dispatcher }));
    await expect(credential.getToken(GRAPH, { claims: "not json" })).rejects.toThrow(/claims must be a claims request, a JSON object/);
    expect(sent).toHaveLength(0);
  });
});

describe("ChainedTokenCredential", () => {
  const fallback: TokenCredential = { getToken: async (): Promise<AccessToken> => ({ token: "the next credential's", expiresOnTimestamp: Date.now() + 3_600_000 }) };

  it("falls through to the next credential when the environment holds no configuration; construction does not throw", async () => {
    const credential = AgentUserCredential.fromEnvironment({});
    const failure = await credential.getToken(GRAPH).then(() => undefined, (err: unknown) => err as Error);
    expect(failure).toBeInstanceOf(CredentialUnavailableError);
    expect(failure!.name).toBe("CredentialUnavailableError");
    expect(failure!.message).toMatch(/AGENT_USER_TENANT_ID/);
    expect(failure!.message).not.toMatch(/--tenant/);
    expect((await new ChainedTokenCredential(credential, fallback).getToken(GRAPH))!.token).toBe("the next credential's");
  });

  it("uses the agent user's token when the configuration is there", async () => {
    const credential = AgentUserCredential.fromStackOutputs(ctx.emulator.outputs());
    const token = (await new ChainedTokenCredential(credential, fallback).getToken(GRAPH))!.token;
    expect(claimsOf(token)).toMatchObject({ idtyp: "user", oid: ctx.emulator.outputs().agentUserId });
  });
});

describe("tenantId", () => {
  const OTHER = "11111111-2222-3333-4444-555555555555";

  it("the provider's own tenant, in any case, is served; another is a CredentialUnavailableError with nothing sent", async () => {
    const { dispatcher, sent } = recordingDispatcher();
    const credential = AgentUserCredential.fromStackOutputs(ctx.emulator.outputs(), { dispatcher });
    const own = await credential.getToken(GRAPH, { tenantId: ctx.emulator.outputs().tenantId.toUpperCase() });
    expect(claimsOf(own.token).tid).toBe(ctx.emulator.outputs().tenantId);
    const count = sent.length;
    const refused = credential.getToken(GRAPH, { tenantId: OTHER });
    await expect(refused).rejects.toThrow(CredentialUnavailableError);
    await expect(refused).rejects.toThrow(/additionallyAllowedTenants/);
    expect(sent).toHaveLength(count);
  });

  it("an allowed tenant (listed, or \"*\") is asked for its own token", async () => {
    for (const allowed of [[OTHER], ["*"]]) {
      const { dispatcher, sent } = recordingDispatcher();
      const credential = AgentUserCredential.fromStackOutputs(ctx.emulator.outputs(), { dispatcher }, { additionallyAllowedTenants: allowed });
      // The emulator holds one tenant: Entra's answer for an unknown one proves the request went there.
      const err = await credential.getToken(GRAPH, { tenantId: OTHER }).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(TokenEndpointError);
      expect((err as TokenEndpointError).codes).toContain(90002);
      expect(sent[0]!.url).toContain(`/${OTHER}/oauth2/v2.0/token`);
    }
  });
});

it("a scope gets a token for its own resource, whatever the provider's default resource", async () => {
  const vault = "https://vault.azure.net";
  addResource(ctx.emulator, vault);
  const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs(), { resource: vault });
  const token = await new AgentUserCredential(provider).getToken(GRAPH);
  expect(claimsOf(token.token).aud).toBe(PUBLIC_CLOUD.resourceUrl);
});

describe("library errors name the variables and outputs keys they read, never the CLI's flags", () => {
  const noFlag = (err: unknown) => expect((err as Error).message).not.toMatch(/--[a-z]/);
  const thrownBy = (attempt: () => unknown): Error & { hint?: string } => {
    try {
      attempt();
    } catch (e) {
      return e as Error & { hint?: string };
    }
    throw new Error("it did not throw");
  };

  it("fromEnvironment: every missing variable", () => {
    const err = thrownBy(() => AgentUserTokenProvider.fromEnvironment({}));
    expect(err.message).toBe(
      "configuration: missing AGENT_USER_TENANT_ID; missing AGENT_USER_BLUEPRINT_APP_ID; missing a blueprint credential (AGENT_USER_BLUEPRINT_SECRET, AGENT_USER_BLUEPRINT_CERT and AGENT_USER_BLUEPRINT_KEY, or AGENT_USER_MANAGED_IDENTITY_CLIENT_ID)",
    );
    expect(err.hint).toMatch(/fromStackOutputs\(\)/);
  });

  it("fromStackOutputs: the missing keys, and a fleet's agent picked with the agent override", () => {
    const out = ctx.emulator.outputs();
    expect(() => AgentUserTokenProvider.fromStackOutputs({ tenantId: out.tenantId })).toThrow(
      'configuration: missing "blueprintAppId" in the stack outputs; missing a blueprint credential ("blueprintClientSecret" or "managedIdentityClientId" in the stack outputs)',
    );
    const agent = { agentIdentityId: out.agentIdentityId, agentUserId: out.agentUserId, agentUserPrincipalName: out.agentUserPrincipalName };
    const fleet = { ...out, agents: { alpha: agent, beta: agent } };
    for (const attempt of [() => AgentUserTokenProvider.fromStackOutputs(fleet), () => AgentUserTokenProvider.fromStackOutputs(out, { agent: "alpha" })]) {
      const err = thrownBy(attempt);
      expect(err.message).toMatch(/agent/);
      noFlag(err);
      expect(`${err.message} ${err.hint ?? ""}`).toMatch(/the agent override/);
    }
  });
});
