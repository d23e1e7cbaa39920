/**
 * A real Microsoft client takes AgentUserCredential with no glue code:
 * @microsoft/microsoft-graph-client's TokenCredentialAuthenticationProvider
 * asks for https://graph.microsoft.com/.default, and reads the seeded shared
 * file's drive item from the emulator's Graph over real HTTP.
 */
import { Client } from "@microsoft/microsoft-graph-client";
import { Agent } from "undici";
import { TokenCredentialAuthenticationProvider } from "@microsoft/microsoft-graph-client/authProviders/azureTokenCredentials";
import { AgentUserCredential, AgentUserTokenProvider, UsageError } from "../../../lib";
import { SHARE_URLS } from "../../../emulator/seed";
import { shareIdFor } from "../../../probes/comments/share-id";
import { claimsOf, useEmulator } from "../../harness";

const ctx = useEmulator();

function graphClient(credential: AgentUserCredential): Client {
  const authProvider = new TokenCredentialAuthenticationProvider(credential, { scopes: ["https://graph.microsoft.com/.default"] });
  // The SDK attaches the token only over https, for Graph's own hosts and the custom host names (no port) it is told about.
  const host = new URL(ctx.emulator.httpsUrl).hostname;
  const dispatcher = new Agent({ connect: { ca: ctx.emulator.caPem } });
  return Client.initWithMiddleware({
    authProvider,
    baseUrl: ctx.emulator.httpsUrl,
    defaultVersion: "v1.0",
    customHosts: new Set([host]),
    // Node's fetch takes an undici dispatcher; the SDK types fetchOptions with the DOM's RequestInit.
    fetchOptions: { dispatcher } as object,
  });
}

it("the Graph SDK reads a shared file's drive item with an agent user token", async () => {
  const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
  const item = await graphClient(new AgentUserCredential(provider)).api(`/shares/${shareIdFor(SHARE_URLS.workbook)}/driveItem`).get();
  expect(item).toMatchObject({ name: "Quarterly plan.xlsx", parentReference: { driveId: expect.any(String) } });
  const graphCalls = ctx.emulator.requests.filter((r) => r.surface === "graph");
  expect(graphCalls.map((r) => [r.method, r.status])).toEqual([["GET", 200]]);
});

it("getToken maps each spelling of Graph's scopes to Graph and reports Azure SDK timestamps", async () => {
  const provider = AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs());
  const credential = new AgentUserCredential(provider);
  const token = await credential.getToken("https://graph.microsoft.com/.default");
  expect(token.tokenType).toBe("Bearer");
  expect(token.expiresOnTimestamp).toBeGreaterThan(Date.now());
  expect(token.refreshAfterTimestamp).toBeLessThan(token.expiresOnTimestamp);
  // User.Read and Graph's appId name the same resource, so the same cached token comes back.
  expect((await credential.getToken(["User.Read"]))!.token).toBe(token.token);
  expect((await credential.getToken("00000003-0000-0000-c000-000000000000/.default"))!.token).toBe(token.token);
  await expect(credential.getToken(["https://graph.microsoft.com/.default", "api://other/.default"])).rejects.toThrow(UsageError);
});

describe("the signed-in agent user's own profile", () => {
  const USER_DEFAULT_SET = ["businessPhones", "displayName", "givenName", "id", "jobTitle", "mail", "mobilePhone", "officeLocation", "preferredLanguage", "surname", "userPrincipalName"];

  it("the Graph SDK reads /me over https: user-get's default property set, as Graph serves it", async () => {
    const out = ctx.emulator.outputs();
    const me = (await graphClient(AgentUserCredential.fromStackOutputs(out)).api("/me").get()) as Record<string, unknown>;
    const user = ctx.emulator.store.userByIdOrUpn(out.agentUserId!)!;
    expect(Object.keys(me).filter((k) => !k.startsWith("@odata")).sort()).toEqual([...USER_DEFAULT_SET].sort());
    expect(me).toMatchObject({ id: out.agentUserId, displayName: user.displayName, userPrincipalName: user.userPrincipalName, businessPhones: [], mail: null });
    expect(me["@odata.context"]).toBe(`${ctx.emulator.httpsUrl}/v1.0/$metadata#users/$entity`);
  });

  it("with User.Read: /users/{own id} answers as /me; another user is 403; an application token cannot call /me", async () => {
    const out = ctx.emulator.outputs();
    const token = (await AgentUserCredential.fromStackOutputs(out).getToken("https://graph.microsoft.com/.default")).token;
    expect(String(claimsOf(token).scp).split(" ")).toContain("User.Read");
    expect(String(claimsOf(token).scp).split(" ")).not.toContain("User.ReadBasic.All");
    const get = async (path: string, bearer = token) => {
      const res = await fetch(`${ctx.emulator.httpUrl}/v1.0${path}`, { headers: { authorization: `Bearer ${bearer}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const me = await get("/me");
    expect(me.status).toBe(200);
    expect(await get(`/users/${out.agentUserId}`)).toEqual(me);
    const other = ctx.emulator.store.users().find((u) => u.id !== out.agentUserId)!;
    const refused = await get(`/users/${other.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: "Authorization_RequestDenied" } });
    const p = ctx.emulator.provisioner()!;
    const appToken = (await (
      await fetch(`${out.authorityUrl}/${out.tenantId}/oauth2/v2.0/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "client_credentials", client_id: p.clientId, client_secret: p.clientSecret, scope: "https://graph.microsoft.com/.default" }),
      })
    ).json()) as { access_token: string };
    expect((await get("/me", appToken.access_token)).status).toBe(403);
  });
});
