import { agentEntries, DEFAULT_IDS, SEEDED_GRANT_SCOPES, defaultTenant } from "../../emulator/seed";
import { type TenantSeed } from "../../emulator/store";
import { PUBLIC_CLOUD } from "../../lib/entra-rules";

/**
 * The bench tenant: the emulator's default tenant, plus a second resource
 * (an MCP-server-like API, so "warm" asks a token for another audience) and
 * `count` more agent identities, each with its agent user and grants for both
 * resources, the objects `pulumi up` would create for each agent.
 */

export const MCP_APP_ID = "7c3e9a12-5d4b-4e6f-8a1c-2b3d4e5f6a7b";
export const MCP_PRINCIPAL_ID = "7c3e9a12-5d4b-4e6f-8a1c-000000000001";
/** The identifier URI an agent asks a token for: `api://{appId}/.default`. */
export const MCP_RESOURCE = `api://${MCP_APP_ID}`;
export const MCP_SCOPES = "tools.read tools.invoke";

/** One agent identity and its agent user. */
export interface AgentPair {
  identity: string;
  user: string;
}

export interface BenchTenant {
  seed: TenantSeed;
  /** The default tenant's agent: the one the latency figures use. */
  main: AgentPair;
  /** The extra agents: the throughput figure mints one token for each. */
  fleet: AgentPair[];
}

/** A GUID-shaped id: `prefix`, then `n` in hex as the last group. */
export const guid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

export function benchTenant(count: number): BenchTenant {
  const ids = DEFAULT_IDS;
  const seed = defaultTenant(ids);
  seed.servicePrincipals.push({
    id: MCP_PRINCIPAL_ID,
    appId: MCP_APP_ID,
    kind: "servicePrincipal",
    displayName: "Contoso MCP tools (bench)",
    servicePrincipalType: "Application",
    servicePrincipalNames: [MCP_RESOURCE, MCP_APP_ID],
    sponsors: [],
    graphAppRoles: [],
  });
  const grant = (n: string, clientId: string, principalId: string, resourceId: string, scope: string) =>
    seed.grants.push({ id: `bench-grant-${n}`, clientId, consentType: "Principal", principalId, resourceId, scope });
  grant("main-mcp", ids.agentIdentityId, ids.agentUserId, MCP_PRINCIPAL_ID, MCP_SCOPES);

  const fleet: AgentPair[] = [];
  for (let i = 0; i < count; i++) {
    const pair = { identity: guid("be000000", i), user: guid("be100000", i) };
    fleet.push(pair);
    const agent = agentEntries({
      identityId: pair.identity,
      userId: pair.user,
      displayName: `Bench agent ${i}`,
      userPrincipalName: `bench-agent-${i}@${ids.domain}`,
      blueprintAppId: ids.blueprintAppId,
      sponsors: [ids.sponsorId],
    });
    seed.servicePrincipals.push(agent.identity);
    seed.users.push(agent.user);
    grant(`${i}-graph`, pair.identity, pair.user, ids.graphPrincipalId, SEEDED_GRANT_SCOPES);
    grant(`${i}-mcp`, pair.identity, pair.user, MCP_PRINCIPAL_ID, MCP_SCOPES);
  }
  return { seed, main: { identity: ids.agentIdentityId, user: ids.agentUserId }, fleet };
}

export const GRAPH = PUBLIC_CLOUD.resourceUrl;
