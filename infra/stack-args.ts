import type { AgentUserKitArgs } from "./components/agent-user-kit";
import type { KitConfig } from "./config";

/** The stack configuration as the component's arguments. */
export function kitArgs(config: KitConfig): AgentUserKitArgs {
  const credential = config.credential;
  return {
    blueprintName: config.blueprintName,
    sponsors: config.sponsors,
    userDomain: config.userDomain,
    agents: config.agents.map(({ name, identityName, userName, scopes }) => ({ name, identityName, userName, scopes })),
    allowedScopes: config.allowedScopes,
    resourceAppId: config.resourceAppId,
    // The certificate's expiry is its own: the kit reads it from the certificate again.
    credential: credential.mode === "certificate" ? { mode: "certificate", certificatePem: credential.certificatePem } : credential,
    graphUrl: config.graphUrl,
    authorityUrl: config.authorityUrl,
    tokenExchangeAudience: config.tokenExchangeAudience,
    consistencyWindowSeconds: config.consistencyWindowMs / 1000,
    // A stack configured with the one-agent keys keeps the resource names it had before fleets.
    singleAgentNames: config.shorthand,
  };
}
