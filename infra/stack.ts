import * as pulumi from "@pulumi/pulumi";
import { AgentUserKit } from "./components/agent-user-kit";
import { CONFIG_KEYS, CONFIG_NAMESPACE, type RawConfig } from "./config";

/**
 * Reads `agent-user-kit:*` from the stack. Here, not in config.ts: doctor
 * and preflight validate the same keys from a file, and must not need the
 * Pulumi SDK (an optional peer) to do it.
 */
function readConfig(): RawConfig {
  const config = new pulumi.Config(CONFIG_NAMESPACE);
  const raw: RawConfig = {};
  for (const key of CONFIG_KEYS) {
    const value = config.get(key);
    if (value !== undefined) raw[key] = value;
  }
  return raw;
}

// The kit checks the configuration before it registers any resource, so a bad key fails preview, not `up` halfway.
// The stack file is where a placeholder would have come from: the problems name it.
const kit = new AgentUserKit("agent-user-kit", { stackConfig: readConfig(), stackFile: `Pulumi.${pulumi.getStack()}.yaml` });

// The names `agent-user token --outputs` reads; the top-level agent keys describe the first agent.
export const tenantId = kit.outputs.tenantId;
export const authorityUrl = kit.outputs.authorityUrl;
export const graphUrl = kit.outputs.graphUrl;
export const resourceUrl = kit.outputs.resourceUrl;
export const tokenExchangeAudience = kit.outputs.tokenExchangeAudience;
export const blueprintAppId = kit.outputs.blueprintAppId;
export const blueprintObjectId = kit.outputs.blueprintObjectId;
export const blueprintPrincipalId = kit.outputs.blueprintPrincipalId;
/** A Pulumi secret; present only when credential is `secret`. */
export const blueprintClientSecret = kit.outputs.blueprintClientSecret;
/** Present only when credential is `managedIdentity`. */
export const managedIdentityClientId = kit.outputs.managedIdentityClientId;
export const agentIdentityId = kit.outputs.agentIdentityId;
export const agentUserId = kit.outputs.agentUserId;
export const agentUserPrincipalName = kit.outputs.agentUserPrincipalName;
export const grantId = kit.outputs.grantId;
export const grantScopes = kit.outputs.grantScopes;
/** Only when the first agent declares appRoles: the app roles its identity holds, [{ resource, roles }]. */
export const appRoles = kit.outputs.appRoles;
/** Only when the first agent declares onBehalfOfScopes: its consent to act for any person (grant id, scopes). */
export const onBehalfOfGrantId = kit.outputs.onBehalfOfGrantId;
export const onBehalfOfScopes = kit.outputs.onBehalfOfScopes;
/** Only with onBehalfOfScope: the blueprint's identifier URI (api://{appId}) and the scope it exposes. */
export const blueprintIdentifierUri = kit.outputs.blueprintIdentifierUri;
export const blueprintScope = kit.outputs.blueprintScope;
/** Every agent by name: { agentIdentityId, agentUserId, agentUserPrincipalName, grantId, grantScopes }, and its opt-in keys. */
export const agents = kit.outputs.agents;
