/**
 * The kit declares the Azure SDK's credential types itself (so that a token-only
 * install has no @azure/core-auth); they must stay interchangeable with
 * core-auth's own. The assignments are checked by `npm run typecheck`; the
 * test runs core-auth's own duck-typing check on a real credential.
 */
import { isTokenCredential, type AccessToken as CoreAccessToken, type GetTokenOptions as CoreGetTokenOptions, type TokenCredential as CoreTokenCredential } from "@azure/core-auth";
import { AgentUserCredential, AgentUserTokenProvider } from "../../../lib";
import type { AccessToken, GetTokenOptions, TokenCredential } from "../../../lib/azure-token-credential";
import { useEmulator } from "../../harness";

const ctx = useEmulator();

// Each way round: what an SDK hands the kit, and what the kit hands an SDK.
export const typeChecks = {
  sdkOptionsToKit: (o: CoreGetTokenOptions): GetTokenOptions => o,
  kitTokenToSdk: (t: AccessToken): CoreAccessToken => t,
  sdkTokenToKit: (t: CoreAccessToken): AccessToken => t,
  kitCredentialToSdk: (c: AgentUserCredential): CoreTokenCredential => c,
  sdkCredentialToKit: (c: CoreTokenCredential): TokenCredential => c,
};

it("core-auth recognises an AgentUserCredential as a TokenCredential, and its token as an AccessToken", async () => {
  const sdkView: CoreTokenCredential = new AgentUserCredential(AgentUserTokenProvider.fromStackOutputs(ctx.emulator.outputs()));
  expect(isTokenCredential(sdkView)).toBe(true);
  const token = await sdkView.getToken("https://graph.microsoft.com/.default");
  expect(Object.keys(token!).sort()).toEqual(["expiresOnTimestamp", "refreshAfterTimestamp", "token", "tokenType"]);
});
