import { PUBLIC_CLOUD } from "../lib/entra-rules";

/** The --help section for the connection flags every token-minting command takes (lib/settings.ts). */
/** `graph`: whether the command reads Graph (comments) and so takes --graph. */
export const connectionHelp = (graph: boolean): string => `Connection (flags, else environment, else --outputs FILE):
  --outputs FILE                     JSON of \`pulumi stack output --json --show-secrets\`
  --agent NAME                       the agent of a fleet's --outputs file (its "agents" map)
  --tenant ID                        AGENT_USER_TENANT_ID (GUID or verified domain)
  --authority URL                    AGENT_USER_AUTHORITY_URL (default ${PUBLIC_CLOUD.authorityUrl})
  --blueprint-app-id ID              AGENT_USER_BLUEPRINT_APP_ID
  --blueprint-secret-file FILE       AGENT_USER_BLUEPRINT_SECRET (the value itself)
  --blueprint-cert FILE              AGENT_USER_BLUEPRINT_CERT (PEM certificate)
  --blueprint-key FILE               AGENT_USER_BLUEPRINT_KEY (PEM private key)
  --managed-identity-client-id ID    AGENT_USER_MANAGED_IDENTITY_CLIENT_ID (token from IMDS)
  --managed-identity-token-file FILE AGENT_USER_MANAGED_IDENTITY_TOKEN_FILE
                                     (IMDS base: AGENT_USER_IMDS_ENDPOINT, default http://169.254.169.254)
  --agent-identity ID                AGENT_USER_AGENT_IDENTITY_ID
  --agent-user ID|UPN                AGENT_USER_AGENT_USER_ID (object id or UPN)
  --resource URL                     AGENT_USER_RESOURCE_URL (default ${PUBLIC_CLOUD.resourceUrl})
${graph ? `  --graph URL                        AGENT_USER_GRAPH_URL (default ${PUBLIC_CLOUD.graphUrl})\n` : ""}  --timeout SECONDS                  per-request timeout (default 15)
  --replication-window SECONDS       keep retrying AADSTS700016/65001/50034 this long after a fresh
                                     \`pulumi up\` (default 0: fail at once)
  http:// URLs are accepted only for loopback hosts.`;
