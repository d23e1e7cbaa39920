import { cliHint } from "../report";
import { isReplicationAadsts } from "../../lib/aadsts";
import { ClaimsError, NotJwtError } from "../../lib/errors";
import type { GraphCallOptions, GraphClient, GraphResult } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import { HOP_STEPS } from "../../lib/token-flows";
import { providerFor } from "../settings";
import { TokenEndpointError } from "../../lib/token-client";
import type { RetryHooks } from "../../lib/retry";
import { isLoopbackUrl } from "../../lib/urls";
import { isGraphResource, isGuid, MICROSOFT_GRAPH_APP_ID, resourceKey, tokenExchangeAudience } from "../../lib/entra-rules";
import { getIfExists, odataString } from "../../lib/graph-reads";
import { agentIdentityPath, agentUserPath, AGENT_USERS, blueprintPath, blueprintPrincipalPath, BLUEPRINTS, BLUEPRINT_PRINCIPALS } from "../../lib/graph-paths";
import { failed, ok, type Check } from "../checks";
import { checkCredentials, type GraphCredential, type GraphFederatedCredential } from "./credentials";
import { appRolesLink, appTokenLink, exposedApiLink, oboConsentLink } from "./flow-links";
import type { DoctorTarget } from "./target";

/**
 * `agent-user doctor`: the chain read from Graph as the provisioner, link by
 * link, then the three hops, whose failure is laid on the link that explains
 * it; and, for the flows a stack declares, their own links (flow-links.ts).
 * Every Graph call here is a GET.
 */

export type { DoctorTarget };

export interface DoctorOptions {
  warnDays: number;
  now: number;
  /** The run's retry hooks (waits shown with --verbose), for the tokens link's hops too. */
  hooks?: RetryHooks;
}

interface GraphBlueprint {
  id: string;
  appId: string;
  displayName: string;
  createdDateTime?: string | null;
  passwordCredentials?: GraphCredential[];
  keyCredentials?: GraphCredential[];
}
interface GraphPrincipal {
  id: string;
  appId: string;
  accountEnabled?: boolean;
  agentIdentityBlueprintId?: string | null;
  displayName?: string;
}
interface GraphAgentUser {
  id: string;
  userPrincipalName: string;
  accountEnabled?: boolean;
  identityParentId?: string | null;
  createdDateTime?: string | null;
}
interface GraphGrant {
  id: string;
  clientId: string;
  consentType: string;
  principalId: string | null;
  resourceId: string;
  scope?: string | null;
}

/** What the links read of each object, and its type: an answer of another shape is a malformed answer, never a crash. */
const CREDENTIAL: Shape = { keyId: "string?", displayName: "string?", hint: "string?", endDateTime: "string?" };
const BLUEPRINT: Shape = { id: "string", appId: "string?", displayName: "string?", createdDateTime: "string?", passwordCredentials: [CREDENTIAL], keyCredentials: [CREDENTIAL] };
const FEDERATED: Shape = { name: "string?", subject: "string?", audiences: "string[]?" };
const PRINCIPAL: Shape = { id: "string", appId: "string?", accountEnabled: "boolean?", agentIdentityBlueprintId: "string?", displayName: "string?" };
const AGENT_USER: Shape = { id: "string", userPrincipalName: "string?", accountEnabled: "boolean?", identityParentId: "string?", createdDateTime: "string?" };
const GRANT: Shape = { id: "string", clientId: "string?", consentType: "string?", principalId: "string?", resourceId: "string?", scope: "string?" };
const WITH_ID: Shape = { id: "string" };

/** A collection property as a list: an answer of the wrong shape counts as empty, never as a crash. */
const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
const REFRESH_UP = "run `pulumi refresh`, then `pulumi up`, which recreates it; then write the outputs again (`pulumi stack output --json --show-secrets`)";

/** What the links found, for the tokens link: which failed, and when the newest object was made. */
interface Found {
  checks: Check[];
  created: Array<{ what: string; at: string }>;
}

/*
 * Every read names the properties it reads: a type's default property set
 * (where its page documents one) may leave them out.
 */
const BLUEPRINT_SELECT = "$select=id,appId,displayName,createdDateTime,passwordCredentials,keyCredentials";
const IDENTITY_SELECT = "$select=id,displayName,accountEnabled,agentIdentityBlueprintId";
const USER_SELECT = "$select=id,userPrincipalName,accountEnabled,identityParentId,createdDateTime";

async function blueprintLinks(graph: GraphClient, t: DoctorTarget, o: DoctorOptions, found: Found): Promise<void> {
  const { outputs, settings } = t;
  const blueprint = outputs.blueprintObjectId
    ? await getIfExists<GraphBlueprint>(graph, `${blueprintPath(outputs.blueprintObjectId)}?${BLUEPRINT_SELECT}`, { shape: BLUEPRINT })
    : (await graph.list<GraphBlueprint>(`${BLUEPRINTS}?$filter=appId eq ${odataString(settings.blueprintAppId)}&${BLUEPRINT_SELECT}`, { agentId: true, shape: BLUEPRINT }))[0];
  const shownId = outputs.blueprintObjectId ?? settings.blueprintAppId;
  if (!blueprint) {
    found.checks.push(failed("blueprint", shownId, `no agent identity blueprint ${shownId} in the tenant (deleted, or another tenant)`, REFRESH_UP));
    found.checks.push(failed("blueprint credential", undefined, "not checked: the blueprint is missing", "fix the blueprint link first"));
  } else if (!same(blueprint.appId, settings.blueprintAppId)) {
    found.checks.push(failed("blueprint", blueprint.id, `its appId is ${blueprint.appId}, but the outputs name ${settings.blueprintAppId}`, REFRESH_UP));
  } else {
    if (blueprint.createdDateTime) found.created.push({ what: "blueprint", at: blueprint.createdDateTime });
    found.checks.push(ok("blueprint", blueprint.id, `"${blueprint.displayName}" (appId ${blueprint.appId})`));
    // learn.microsoft.com/graph/api/application-list-federatedidentitycredentials
    const federated = await graph.list<GraphFederatedCredential>(`/v1.0/applications/${encodeURIComponent(blueprint.id)}/federatedIdentityCredentials`, { shape: FEDERATED });
    const credentials = { passwords: list(blueprint.passwordCredentials), certificates: list(blueprint.keyCredentials), federated: list(federated) };
    found.checks.push(checkCredentials(credentials, settings.credential, o.warnDays, o.now, settings.tokenExchangeAudience ?? tokenExchangeAudience(settings.authorityUrl)));
  }

  const principal = outputs.blueprintPrincipalId
    ? await getIfExists<GraphPrincipal>(graph, `${blueprintPrincipalPath(outputs.blueprintPrincipalId)}?$select=id,appId`, { shape: PRINCIPAL })
    : (await graph.list<GraphPrincipal>(`${BLUEPRINT_PRINCIPALS}?$filter=appId eq ${odataString(settings.blueprintAppId)}&$select=id,appId`, { agentId: true, shape: PRINCIPAL }))[0];
  if (!principal) {
    found.checks.push(failed("blueprint principal", outputs.blueprintPrincipalId, `no service principal for the blueprint ${settings.blueprintAppId} in this tenant`, REFRESH_UP));
  } else if (!same(principal.appId, settings.blueprintAppId)) {
    found.checks.push(failed("blueprint principal", principal.id, `it is the principal of ${principal.appId}, not of the blueprint ${settings.blueprintAppId}`, REFRESH_UP));
  } else {
    found.checks.push(ok("blueprint principal", principal.id, `for appId ${principal.appId}`));
  }
}

async function identityLink(graph: GraphClient, t: DoctorTarget, found: Found): Promise<void> {
  const id = t.settings.agentIdentityId;
  const identity = await getIfExists<GraphPrincipal>(graph, `${agentIdentityPath(id)}?${IDENTITY_SELECT}`, { shape: PRINCIPAL });
  const link = "agent identity";
  if (!identity) return void found.checks.push(failed(link, id, "no such agent identity in the tenant (deleted, or not replicated yet)", REFRESH_UP));
  if (identity.accountEnabled === false) {
    return void found.checks.push(
      failed(link, id, `"${identity.displayName ?? id}" is disabled: no token is issued to it (AADSTS7000112)`, "enable it again in the Microsoft Entra admin center (Agent ID, agent identities), or ask who disabled it and why"),
    );
  }
  if (!same(identity.agentIdentityBlueprintId, t.settings.blueprintAppId)) {
    return void found.checks.push(failed(link, id, `its blueprint is ${identity.agentIdentityBlueprintId ?? "none"}, not ${t.settings.blueprintAppId}`, REFRESH_UP));
  }
  // A deleted user drops out of the sponsors list: an empty list means every sponsor is gone.
  const sponsors = await graph.list<{ id: string }>(`${agentIdentityPath(id)}/sponsors?$select=id`, { agentId: true, shape: WITH_ID });
  if (sponsors.length === 0) {
    return void found.checks.push(
      failed(link, id, "it has no sponsor left: every sponsor was deleted", "set agent-user-kit:sponsors to people who are still in the tenant and run `pulumi up`"),
    );
  }
  found.checks.push(ok(link, id, `enabled, of blueprint ${identity.agentIdentityBlueprintId}, ${sponsors.length} sponsor(s)`));
}

/** Returns the agent user's object id, for the grant link. */
async function userLink(graph: GraphClient, t: DoctorTarget, found: Found): Promise<string | undefined> {
  const { outputs, settings } = t;
  const link = "agent user";
  const wantedUpn = outputs.agentUserPrincipalName ?? (isGuid(settings.agentUser) ? undefined : settings.agentUser);
  const userId = outputs.agentUserId ?? (isGuid(settings.agentUser) ? settings.agentUser : undefined);
  const user = userId
    ? await getIfExists<GraphAgentUser>(graph, `${agentUserPath(userId)}?${USER_SELECT}`, { shape: AGENT_USER })
    : (await graph.list<GraphAgentUser>(`${AGENT_USERS}?$filter=userPrincipalName eq ${odataString(wantedUpn!)}&${USER_SELECT}`, { agentId: true, shape: AGENT_USER }))[0];
  const shown = userId ?? wantedUpn;
  if (!user) return void found.checks.push(failed(link, shown, "no such agent user in the tenant (deleted, or not replicated yet)", REFRESH_UP));
  if (user.createdDateTime) found.created.push({ what: "agent user", at: user.createdDateTime });
  if (!same(user.identityParentId, settings.agentIdentityId)) {
    found.checks.push(
      failed(link, user.id, `its identityParentId is ${user.identityParentId ?? "none"}, not the agent identity ${settings.agentIdentityId}: hop 3 cannot act as it`, REFRESH_UP),
    );
  } else if (user.accountEnabled === false) {
    found.checks.push(failed(link, user.id, `${user.userPrincipalName} is disabled (AADSTS50057)`, "enable the account again (accountEnabled) in the Microsoft Entra admin center"));
  } else if (wantedUpn && !same(user.userPrincipalName, wantedUpn)) {
    found.checks.push(failed(link, user.id, `its UPN is ${user.userPrincipalName}, the outputs say ${wantedUpn}`, "run `pulumi refresh` and write the outputs again, or `pulumi up` to set the configured name"));
  } else {
    found.checks.push(ok(link, user.id, `${user.userPrincipalName}, enabled, parented to ${user.identityParentId}`));
  }
  return user.id;
}

/**
 * The $filters, tried in order, that find the service principal of the
 * resource the token is for, as Entra resolves a scope's resource: Graph's appId for Graph's URL
 * (or the emulator's loopback Graph, which answers for Graph), the appId for
 * a GUID, else the URL among its servicePrincipalNames (its identifier URIs).
 */
function resourceFilters(resourceUrl: string, graphUrl: string): string[] {
  const r = resourceKey(resourceUrl);
  if (isGraphResource(r, graphUrl) || isLoopbackUrl(r)) return [`appId eq ${odataString(MICROSOFT_GRAPH_APP_ID)}`];
  if (isGuid(r)) return [`appId eq ${odataString(r)}`];
  // learn.microsoft.com/graph/api/resources/serviceprincipal: servicePrincipalNames supports $filter (eq) with any().
  // eq is exact, and Entra takes a scope's resource with or without a trailing slash: a name registered with one is tried too.
  const bare = resourceUrl.trim().replace(/\/+$/, "");
  return [bare, `${bare}/`].map((name) => `servicePrincipalNames/any(n:n eq ${odataString(name)})`);
}

async function grantLink(graph: GraphClient, t: DoctorTarget, userId: string | undefined, found: Found): Promise<void> {
  const { outputs, settings } = t;
  const link = "grant";
  let resource: { id: string; appId: string } | undefined;
  for (const filter of resourceFilters(settings.resource, settings.graphUrl)) {
    // learn.microsoft.com/graph/api/serviceprincipal-list ($filter on appId, or on servicePrincipalNames with any)
    [resource] = await graph.list<{ id: string; appId: string }>(`/v1.0/servicePrincipals?$filter=${encodeURIComponent(filter)}&$select=id,appId`, { shape: { id: "string", appId: "string?" } });
    if (resource) break;
  }
  if (!resource) {
    return void found.checks.push(failed(link, undefined, `the resource ${settings.resource} has no service principal in the tenant`, "add the resource API to the tenant (admin consent), or fix --resource, then `pulumi up`"));
  }
  // learn.microsoft.com/graph/api/oauth2permissiongrant-list: $filter (eq) on clientId and consentType only; a clientId filter also minimizes replication delay.
  const grants = (await graph.list<GraphGrant>(`/v1.0/oauth2PermissionGrants?$filter=clientId eq ${odataString(settings.agentIdentityId)}`, { shape: GRANT })).filter((g) =>
    same(g.resourceId, resource.id),
  );
  const mine = grants.find((g) => g.consentType === "AllPrincipals" || (g.consentType === "Principal" && same(g.principalId, userId)));
  if (!mine) {
    const elsewhere = grants.find((g) => g.consentType === "Principal");
    const detail = elsewhere
      ? `the agent identity's grant is for user ${elsewhere.principalId}, not the agent user ${userId ?? settings.agentUser}: hop 3 fails with AADSTS65001`
      : "no delegated permission grant from the agent identity to this resource for the agent user: hop 3 fails with AADSTS65001";
    return void found.checks.push(failed(link, elsewhere?.id, detail, "run `pulumi refresh`, then `pulumi up`, which grants the scopes to the agent user"));
  }
  const held = (mine.scope ?? "").split(/\s+/).filter(Boolean);
  const missing = (outputs.grantScopes ?? "").split(/\s+/).filter((s) => s && !held.includes(s));
  if (missing.length > 0) {
    return void found.checks.push(failed(link, mine.id, `the grant lacks ${missing.join(", ")}, which the outputs name`, "run `pulumi up` to grant the configured scopes"));
  }
  found.checks.push(ok(link, mine.id, `${mine.consentType} grant on ${resource.appId}: ${held.join(" ")}`));
}

/** The link an AADSTS code points at (the table), else the hop's own link. */
function explainingLink(codes: readonly number[], hop: number): string {
  // The grant link also finds the resource's service principal, whose absence is AADSTS500011.
  if (codes.includes(65001) || codes.includes(500011)) return "grant";
  if (codes.some((c) => [700016, 7000112].includes(c))) return hop === 1 ? "blueprint" : "agent identity";
  if (codes.some((c) => [7000215, 7000222, 7000216, 700027, 70021, 700211, 700213, 7002121].includes(c))) return "blueprint credential";
  if (codes.includes(7000229)) return "blueprint principal";
  if (codes.some((c) => [50034, 50057].includes(c))) return "agent user";
  return hop === 1 ? "blueprint credential" : hop === 2 ? "agent identity" : "agent user";
}

function ago(iso: string, now: number): string {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000));
  return minutes < 120 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}

async function tokensLink(t: DoctorTarget, o: DoctorOptions, found: Found): Promise<void> {
  const link = "tokens";
  try {
    const token = await providerFor(t.settings, o.hooks).getToken();
    found.checks.push(ok(link, undefined, `hops 1 to 3 minted a token for ${String(token.claims.upn ?? token.claims.oid)} (scp ${String(token.claims.scp ?? "")})`));
  } catch (err) {
    // A network failure or throttling is the run's problem, not the chain's: it ends the command (exit 4).
    if (!(err instanceof TokenEndpointError) && !(err instanceof ClaimsError) && !(err instanceof NotJwtError)) throw err;
    const hop = err.hop ?? 3;
    const codes = err instanceof TokenEndpointError ? err.codes : [];
    const what = `${HOP_STEPS[hop as 1 | 2 | 3]} failed: ${err.detail.replace(/\.$/, "")}`;
    const cause = explainingLink(codes, hop);
    const causeCheck = found.checks.find((c) => c.link === cause);
    if (causeCheck && causeCheck.status === "failed") return void found.checks.push(failed(link, undefined, `${what}; explained by the ${cause} link`, `fix the ${cause} link (above)`));
    if (codes.some(isReplicationAadsts)) {
      const newest = found.created.sort((a, b) => Date.parse(b.at) - Date.parse(a.at))[0];
      const age = newest ? `; the newest object, the ${newest.what}, was created ${ago(newest.at, o.now)}` : "";
      return void found.checks.push(
        failed(link, undefined, `${what}; the objects look right, so this is likely replication lag${age}`, "wait 2 to 5 minutes and run doctor again, or mint with --consistency-window 120"),
      );
    }
    found.checks.push(failed(link, undefined, `${what}; points at the ${cause} link`, cliHint(err.hint) ?? `check the ${cause} link`));
  }
}

/**
 * The client for one doctor run, each GET asked once per URL: the agents of a
 * fleet share their blueprint, its credentials and principal, and the
 * resource, which `--all` over 100 agents would otherwise read 100 times
 * against the tenant's throttle. The run reads one snapshot of the tenant;
 * nothing is written, so nothing it remembers goes stale within it.
 */
export function readOnce(graph: GraphClient): GraphClient {
  const reads = new Map<string, Promise<GraphResult<unknown>>>();
  const once = Object.create(graph) as GraphClient;
  once.call = <T>(method: Parameters<GraphClient["call"]>[0], pathOrUrl: string, call: GraphCallOptions = {}): Promise<GraphResult<T>> => {
    if (method !== "GET") return graph.call<T>(method, pathOrUrl, call);
    const key = `${pathOrUrl}\n${JSON.stringify(call)}`;
    let read = reads.get(key);
    if (!read) reads.set(key, (read = graph.call(method, pathOrUrl, call)));
    return read as Promise<GraphResult<T>>;
  };
  return once;
}

/** Every link of one agent's chain, in order. */
export async function diagnose(graph: GraphClient, target: DoctorTarget, options: DoctorOptions): Promise<Check[]> {
  const found: Found = { checks: [], created: [] };
  await blueprintLinks(graph, target, options, found);
  await identityLink(graph, target, found);
  const userId = await userLink(graph, target, found);
  await grantLink(graph, target, userId, found);
  const { appRoles, blueprintIdentifierUri, onBehalfOfGrantId } = target.outputs;
  const roles = appRoles && appRoles.length > 0 ? await appRolesLink(graph, target, appRoles) : undefined;
  if (roles) found.checks.push(roles);
  if (blueprintIdentifierUri !== undefined) found.checks.push(await exposedApiLink(graph, target));
  if (blueprintIdentifierUri !== undefined || onBehalfOfGrantId !== undefined) found.checks.push(await oboConsentLink(graph, target, userId));
  await tokensLink(target, options, found);
  if (roles) found.checks.push(await appTokenLink(target, appRoles!, roles.status === "ok", options.hooks));
  return found.checks;
}
