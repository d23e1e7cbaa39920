/**
 * A real Microsoft client takes AgentUserCredential with no glue code:
 * @microsoft/microsoft-graph-client's TokenCredentialAuthenticationProvider
 * asks for https://graph.microsoft.com/.default, and reads the seeded shared
 * file's drive item from the emulator's Graph over real HTTP.
 */
import { Client } from "@microsoft/microsoft-graph-client";
import { Agent } from "undici";
import { TokenCredentialAuthenticationProvider } from "@microsoft/microsoft-graph-client/authProviders/azureTokenCredentials";
import { AgentUserCredential, AgentUserTokenProvider, UsageError } from "../../lib";
import { SHARE_URLS } from "../../emulator/seed";
import { shareIdFor } from "../../probes/comments/share-id";
import { useEmulator } from "../token/helpers";

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

it("getToken maps Graph's scopes to the provider's resource and reports Azure SDK timestamps", async () => {
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
