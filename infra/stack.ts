import * as pulumi from "@pulumi/pulumi";
import { AgentUserKit } from "./components/agent-user-kit";
import { CONFIG_KEYS, CONFIG_NAMESPACE, STACK_CONFIG, validateConfig, type KitConfig, type RawConfig } from "./config";
import { kitArgs } from "./stack-args";

/**
 * Reads `agent-user-kit:*` from the stack and validates it. Here, not in
 * config.ts: doctor and preflight validate the same keys from a file, and
 * must not need the Pulumi SDK (an optional peer) to do it.
 */
function readConfig(): KitConfig {
  const config = new pulumi.Config(CONFIG_NAMESPACE);
  const raw: RawConfig = {};
  for (const key of CONFIG_KEYS) {
    const value = config.get(key);
    if (value !== undefined) raw[key] = value;
  }
  // The stack file is where a placeholder would have come from: name it.
  return validateConfig(raw, new Date(), { ...STACK_CONFIG, hint: `in Pulumi.${pulumi.getStack()}.yaml: ${STACK_CONFIG.hint}` });
}

// readConfig throws before any resource is registered, so a bad key fails preview, not `up` halfway.
const config = readConfig();
const kit = new AgentUserKit("agent-user-kit", kitArgs(config));

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
/** Every agent by name: { agentIdentityId, agentUserId, agentUserPrincipalName, grantId, grantScopes }. */
export const agents = kit.outputs.agents;
