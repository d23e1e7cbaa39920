import { cliHint } from "../report";
import { ClaimsError, NotJwtError } from "../../lib/errors";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import { isObject } from "../../lib/json-value";
import { getIfExists, odataString } from "../../lib/graph-reads";
import { applicationByAppIdPath } from "../../lib/graph-paths";
import { isGraphResource, MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD } from "../../lib/entra-rules";
import type { RetryHooks } from "../../lib/retry";
import type { AppRoleOutputs } from "../../lib/stack-outputs";
import { TokenEndpointError } from "../../lib/token-client";
import { providerFor } from "../settings";
import { failed, ok, type Check } from "../checks";
import type { DoctorTarget } from "./target";

/*
 * The links of the two flows beside the agent user's, read when the outputs
 * declare them: the app roles an agent's identity holds (and its app token
 * minted with them checked), and the on-behalf-of flow's exposed API and
 * delegated consent. The on-behalf-of token itself needs a person's token,
 * which doctor does not hold: its hop 1 is the tokens link's.
 */

interface Assignment {
  appRoleId: string;
  resourceId: string;
}
interface Resource {
  id: string;
  appId: string;
  appRoles?: Array<{ id: string; value: string }>;
}
interface ExposedApi {
  identifierUris?: string[];
  api?: unknown;
}
interface Grant {
  id: string;
  consentType?: string;
  principalId?: string | null;
  resourceId?: string;
  scope?: string | null;
}

const ASSIGNMENT: Shape = { appRoleId: "string", resourceId: "string" };
const RESOURCE: Shape = { id: "string", appId: "string", appRoles: [{ id: "string", value: "string" }] };
// The shapes reach one level: `api` is read below, each scope checked as it is read.
const EXPOSED: Shape = { identifierUris: "string[]?" };
const GRANT: Shape = { id: "string", consentType: "string?", principalId: "string?", resourceId: "string?", scope: "string?" };

const UP_APP_ROLES = "run `pulumi up`: the agent's appRoles assign them (the provisioner needs AppRoleAssignment.ReadWrite.All); then allow a few minutes before new tokens carry them";
const UP_OBO = "run `pulumi up` with the kit's onBehalfOfScope (the blueprint's exposed API) and the agent's onBehalfOfScopes (its delegated consent)";

/** The app roles the agent identity holds, against those the outputs declare. */
export async function appRolesLink(graph: GraphClient, t: DoctorTarget, declared: readonly AppRoleOutputs[]): Promise<Check> {
  const link = "app roles";
  const id = t.settings.agentIdentityId;
  // learn.microsoft.com/graph/api/serviceprincipal-list-approleassignments
  const held = await graph.list<Assignment>(`/v1.0/servicePrincipals/${encodeURIComponent(id)}/appRoleAssignments?$select=appRoleId,resourceId`, { shape: ASSIGNMENT });
  const missing: string[] = [];
  for (const entry of declared) {
    const [resource] = await graph.list<Resource>(`/v1.0/servicePrincipals?$filter=${encodeURIComponent(`appId eq ${odataString(entry.resource)}`)}&$select=id,appId,appRoles`, { shape: RESOURCE });
    if (!resource) return failed(link, id, `the resource ${entry.resource} has no service principal in the tenant`, "add the resource API to the tenant, or fix the agent's appRoles");
    const values = new Set(held.filter((a) => a.resourceId === resource.id).map((a) => resource.appRoles?.find((r) => r.id === a.appRoleId)?.value));
    missing.push(...entry.roles.filter((role) => !values.has(role)).map((role) => `${role} on ${entry.resource}`));
  }
  if (missing.length > 0) return failed(link, id, `the agent identity holds no app role assignment for ${missing.join(", ")}: its app tokens lack them`, UP_APP_ROLES);
  return ok(link, id, declared.map((e) => `${e.roles.join(" ")} on ${e.resource}`).join("; "));
}

/** The app token for each declared resource, its roles checked; a refusal is laid on the app roles or identity link. */
export async function appTokenLink(t: DoctorTarget, declared: readonly AppRoleOutputs[], appRolesOk: boolean, hooks?: RetryHooks): Promise<Check> {
  const link = "app token";
  const provider = providerFor(t.settings, hooks);
  try {
    for (const entry of declared) {
      const resource = entry.resource.toLowerCase() === MICROSOFT_GRAPH_APP_ID ? (isGraphResource(t.settings.resource, t.settings.graphUrl) ? t.settings.resource : PUBLIC_CLOUD.resourceUrl) : entry.resource;
      await provider.getAppToken({ agentIdentityId: t.settings.agentIdentityId, resource, roles: [...entry.roles], fresh: true });
    }
    return ok(link, undefined, `hops 1 and 2 minted the agent identity's app token${declared.length > 1 ? "s" : ""} with the declared roles`);
  } catch (err) {
    if (!(err instanceof TokenEndpointError) && !(err instanceof ClaimsError) && !(err instanceof NotJwtError)) throw err;
    const rolesMissing = err instanceof ClaimsError && err.mismatches.every((m) => m.claim === "roles");
    if (rolesMissing && !appRolesOk) return failed(link, undefined, `${err.detail}; explained by the app roles link`, "fix the app roles link (above)");
    if (rolesMissing) return failed(link, undefined, `${err.detail}; the assignments are there, so this is likely replication lag`, "wait 2 to 5 minutes and run doctor again");
    return failed(link, undefined, `${err.step} failed: ${err.detail}`, cliHint(err.hint) ?? "check the agent identity link");
  }
}

/** The blueprint's exposed API: the identifier URI and enabled scope the outputs name, which a person's token must be for. */
export async function exposedApiLink(graph: GraphClient, t: DoctorTarget): Promise<Check> {
  const link = "exposed API";
  const { blueprintIdentifierUri: uri, blueprintScope: scope } = t.outputs;
  const appId = t.settings.blueprintAppId;
  // learn.microsoft.com/graph/api/application-get (the appId alternate key)
  const app = await getIfExists<ExposedApi>(graph, `${applicationByAppIdPath(appId)}?$select=identifierUris,api`, { shape: EXPOSED });
  if (!app) return failed(link, appId, `no blueprint ${appId} to read the API of`, "fix the blueprint link first");
  const uris = app.identifierUris ?? [];
  const listed = isObject(app.api) && Array.isArray(app.api.oauth2PermissionScopes) ? (app.api.oauth2PermissionScopes as unknown[]) : [];
  const scopes = listed.filter((s): s is { value: string } => isObject(s) && s.isEnabled === true && typeof s.value === "string").map((s) => s.value);
  if (uri && !uris.some((u) => u.toLowerCase() === uri.toLowerCase())) {
    return failed(link, appId, `the blueprint's identifier URIs are ${uris.join(", ") || "none"}, not ${uri}: a person's token for it is refused (AADSTS500131)`, UP_OBO);
  }
  if (scope && !scopes.includes(scope)) return failed(link, appId, `the blueprint exposes no enabled scope ${scope} (it exposes ${scopes.join(", ") || "none"})`, UP_OBO);
  return ok(link, appId, `${uri ?? uris[0] ?? "no identifier URI"} with ${scopes.join(", ") || "no scope"}`);
}

/** The agent identity's delegated consent to act for people on the resource: the grant the outputs name, holding their scopes. */
export async function oboConsentLink(graph: GraphClient, t: DoctorTarget, agentUserId: string | undefined): Promise<Check> {
  const link = "on-behalf-of consent";
  const { onBehalfOfGrantId: grantId, onBehalfOfScopes } = t.outputs;
  const grants = await graph.list<Grant>(`/v1.0/oauth2PermissionGrants?$filter=clientId eq ${odataString(t.settings.agentIdentityId)}`, { shape: GRANT });
  const forPeople = grants.filter((g) => g.consentType === "AllPrincipals" || (g.consentType === "Principal" && g.principalId !== agentUserId));
  const grant = forPeople.find((g) => g.id === grantId) ?? (grantId === undefined ? forPeople[0] : undefined);
  if (!grant) {
    return failed(link, grantId, "the agent identity has no delegated consent to act for people on the resource: the on-behalf-of hop fails with AADSTS65001", UP_OBO);
  }
  const held = (grant.scope ?? "").split(/\s+/).filter(Boolean);
  const missing = (onBehalfOfScopes ?? "").split(/\s+/).filter((s) => s && !held.includes(s));
  if (missing.length > 0) return failed(link, grant.id, `the consent lacks ${missing.join(", ")}, which the outputs name`, UP_OBO);
  return ok(link, grant.id, `${grant.consentType} consent: ${held.join(" ")}`);
}
