import { createHash, randomBytes } from "node:crypto";
import { AGENT_ID_WRITE_BLOCKERS, GRAPH_OPERATIONS, OPERATION_IDS } from "../lib/graph-permissions";
import { MICROSOFT_GRAPH_APP_ID } from "../lib/entra-rules";
import type { AppRole, PermissionScope, TenantSeed } from "./store";

/** The fixed ids of the built-in tenant these parts name (seed.ts DEFAULT_IDS). */
interface FlowIds {
  sponsorId: string;
  testClientAppId: string;
  testClientObjectId: string;
  testClientPrincipalId: string;
  blueprintObjectId: string;
  blueprintAppId: string;
  agentIdentityId: string;
  oboGrantId: string;
}

/** A stable GUID per kind and name (a Graph scope, an app role): the emulator's own, not Microsoft's (which differ per name and are not needed here). */
export function stableId(kind: string, value: string): string {
  const hex = createHash("sha256").update(`${kind}:${value}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What the built-in tenant holds for the two flows beside the agent user's:
 * Microsoft Graph's application permissions (its app roles), a human user
 * who signs in with a password through a public client (the test-only
 * resource owner password grant stands in for a sign-in page), and, once
 * `pulumi up` has run, a blueprint that exposes an API to that client, and
 * an agent holding User.Read.All and delegated consent for User.Read.
 */

/** The application permissions the emulated Graph publishes: those of the kit's permission table, the two that block Agent ID writes, and the ones an agent is most often given. */
export const GRAPH_APP_ROLE_VALUES: readonly string[] = [
  ...new Set([...OPERATION_IDS.flatMap((id) => GRAPH_OPERATIONS[id].application), ...AGENT_ID_WRITE_BLOCKERS, "User.Read.All", "Mail.Read", "Files.Read.All", "Sites.Read.All", "Group.Read.All"]),
];

export function graphAppRoles(): AppRole[] {
  return GRAPH_APP_ROLE_VALUES.map((value) => ({
    id: stableId("graph-role", value),
    value,
    displayName: value,
    description: `Application permission ${value} (emulated).`,
    allowedMemberTypes: ["Application"],
    isEnabled: true,
  }));
}

/** The scope the seeded blueprint exposes, named as Entra's create-blueprint page names its example. */
const BLUEPRINT_SCOPE = "access_agent";

/** The delegated scope the seeded agent may use for the seeded person (its on-behalf-of consent on Graph). */
const SEEDED_OBO_SCOPES = "User.Read";

/** The app role the seeded agent identity holds on Graph. */
export const SEEDED_APP_ROLES = ["User.Read.All"] as const;

/** A delegated scope an API exposes, as Graph's permissionScope holds it. */
function exposedScope(value: string, id: string): PermissionScope {
  return {
    id,
    value,
    type: "User",
    isEnabled: true,
    adminConsentDisplayName: `Access the agent as the signed-in user (${value})`,
    adminConsentDescription: "Allow the application to access the agent on behalf of the signed-in user.",
    userConsentDisplayName: null,
    userConsentDescription: null,
  };
}

/**
 * Graph's app roles and the public client a person signs in through: what a
 * tenant holds before `pulumi up`. No one has a password here: a start that
 * asks for a person gives one (withTestPassword).
 */
export function addTestSignIn(seed: TenantSeed, ids: FlowIds): void {
  const graph = seed.servicePrincipals.find((sp) => sp.appId === MICROSOFT_GRAPH_APP_ID);
  if (graph) graph.appRoles = graphAppRoles();
  seed.applications.push({
    id: ids.testClientObjectId,
    appId: ids.testClientAppId,
    kind: "application",
    displayName: "Agent front end (emulator test client)",
    publicClient: true,
    sponsors: [],
    owners: [],
    passwordCredentials: [],
    keyCredentials: [],
    federatedIdentityCredentials: [],
  });
  seed.servicePrincipals.push({
    id: ids.testClientPrincipalId,
    appId: ids.testClientAppId,
    kind: "servicePrincipal",
    displayName: "Agent front end (emulator test client)",
    servicePrincipalType: "Application",
    servicePrincipalNames: [ids.testClientAppId],
    sponsors: [],
    graphAppRoles: [],
  });
}

/**
 * TEST ONLY: the seed with a fresh password (as every secret is fresh on each
 * start) on its first person, for the test-only password grant; the seed as
 * it is when one of its people has a password already (a tenant file's own,
 * or a test's). A password every start held would let anything on loopback
 * sign in as the sponsor, so only a start that asks for a person calls this.
 */
export function withTestPassword(seed: TenantSeed): TenantSeed {
  const people = seed.users.filter((u) => u.kind === "user");
  if (people.length === 0 || people.some((u) => u.password !== undefined)) return seed;
  const person = people[0]!;
  return { ...seed, users: seed.users.map((u) => (u === person ? { ...u, password: `emu-pw~${randomBytes(18).toString("base64url")}` } : u)) };
}

/**
 * The seeded blueprint's exposed API (its identifier URI and one scope,
 * pre-authorized for the test client), and the seeded agent's app role on
 * Graph and its delegated consent for the seeded person: what a stack with
 * the kit's appRoles and onBehalfOf leaves, but for the consent's reach.
 */
export function addAgentFlows(seed: TenantSeed, ids: FlowIds): void {
  const blueprint = seed.applications.find((a) => a.id === ids.blueprintObjectId);
  const graph = seed.servicePrincipals.find((sp) => sp.appId === MICROSOFT_GRAPH_APP_ID);
  if (!blueprint || !graph) return;
  const scopeId = stableId("blueprint-scope", BLUEPRINT_SCOPE);
  blueprint.identifierUris = [`api://${ids.blueprintAppId}`];
  blueprint.api = { oauth2PermissionScopes: [exposedScope(BLUEPRINT_SCOPE, scopeId)], preAuthorizedApplications: [{ appId: ids.testClientAppId, delegatedPermissionIds: [scopeId] }] };
  const identity = seed.servicePrincipals.find((sp) => sp.id === ids.agentIdentityId);
  seed.appRoleAssignments = SEEDED_APP_ROLES.map((value) => ({
    id: `${stableId("assignment", value).replace(/-/g, "")}seeded`,
    appRoleId: stableId("graph-role", value),
    principalId: ids.agentIdentityId,
    principalType: "ServicePrincipal",
    principalDisplayName: identity?.displayName ?? "",
    resourceId: graph.id,
    resourceDisplayName: graph.displayName,
  }));
  // Consent for the one person who signs in here: consent for every user (AllPrincipals, what the kit's onBehalfOf makes)
  // would cover the agent user too, and change what its own grant decides.
  seed.grants.push({ id: ids.oboGrantId, clientId: ids.agentIdentityId, consentType: "Principal", principalId: ids.sponsorId, resourceId: graph.id, scope: SEEDED_OBO_SCOPES });
}
