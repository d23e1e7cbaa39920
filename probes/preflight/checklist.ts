import { cliHint } from "../report";
import { decodeJwtClaims } from "../../lib/jwt";
import { GraphError, type GraphClient } from "../../lib/graph-client";
import {
  AGENT_ID_WRITE_BLOCKERS,
  CHECK_OPERATIONS,
  CHECK_PERMISSIONS,
  FEATURE_PERMISSIONS,
  featureOperations,
  PROVISIONER_PERMISSIONS,
  PROVISIONING_OPERATIONS,
  uncovered,
  type Feature,
  type OperationId,
} from "../../lib/graph-permissions";
import type { Shape } from "../../lib/graph-shape";
import type { KitConfig } from "../../infra/config";
import { getIfExists, odataString } from "../../lib/graph-reads";
import { BLUEPRINTS, agentIdentityPath, agentUserPath, blueprintPath } from "../../lib/graph-paths";
import { CREATION_SELECT, madeBy, madeByAnother, type Creation } from "../../lib/object-creator";
import { failed, ok, warning, type Check } from "../checks";
import { didYouMean } from "../../lib/did-you-mean";

/**
 * `agent-user preflight`: what `pulumi up` would otherwise find out halfway.
 * Every Graph call here is a GET, as the provisioner.
 */

const CONSENT =
  "in the Microsoft Entra admin center, App registrations → the provisioner → API permissions → Add a permission → Microsoft Graph → Application permissions, add it, then Grant admin consent";

/** user-get's default property set may leave anything out: every read names what it reads. */
const USER_SELECT = "$select=id,displayName,userPrincipalName";
const AGENT_USER_TYPE = "#microsoft.graph.agentUser";

interface PermissionScope {
  value: string;
  isEnabled?: boolean;
}
interface GraphUser {
  id: string;
  displayName?: string;
  userPrincipalName?: string;
  "@odata.type"?: string;
  identityParentId?: string | null;
}
const USER: Shape = { id: "string", displayName: "string?", userPrincipalName: "string?", "@odata.type": "string?", identityParentId: "string?" };

/** A read the provisioner may not make (403): Graph's code, and the permission the table says the call takes. */
interface Denied {
  denied: GraphError;
}

/** What `request` answers, or Denied when the provisioner may not make it (403): a line of the checklist, never its end. */
async function guarded<T>(request: () => Promise<T>): Promise<T | Denied> {
  try {
    return await request();
  } catch (err) {
    if (err instanceof GraphError && err.status === 403) return { denied: err };
    throw err;
  }
}

/** The object (with the fields `shape` names), undefined when not found, or Denied when the provisioner may not read it (403). */
function read<T extends object>(graph: GraphClient, path: string, shape: Shape): Promise<T | undefined | Denied> {
  return guarded(() => getIfExists<T>(graph, path, { agentId: false, shape }));
}

const isDenied = (answer: object | undefined): answer is Denied => answer !== undefined && "denied" in answer && answer.denied instanceof GraphError;

/** "P (to do X, to do Y)" for each permission of `wanted` that would make an operation `held` cannot make. */
function lacking(operations: readonly OperationId[], wanted: readonly string[], held: readonly string[]): string[] {
  const missing = uncovered(operations, held);
  return wanted
    .filter((p) => !held.includes(p))
    .flatMap((p) => {
      const fails = missing.filter(({ op }) => op.application.includes(p)).map(({ op }) => op.summary);
      return fails.length > 0 ? [`${p} (to ${fails.join(", to ")})`] : [];
    });
}

/** The provisioner's application id, as its token names it (appid in v1 tokens, azp in v2): what Graph records as createdByAppId of what it creates. */
function appOf(token: string): string {
  const claims = decodeJwtClaims(token) ?? {};
  return String(claims.appid ?? claims.azp ?? "");
}

/** The opt-in features a stack uses: their permissions are asked of its provisioner, and of no other stack's. */
export function stackFeatures(config: KitConfig): Feature[] {
  return [...(config.agents.some((a) => a.appRoles.length > 0) ? (["appRoles"] as const) : []), ...(config.onBehalfOf ? (["onBehalfOf"] as const) : [])];
}

function permissionsCheck(token: string, config: KitConfig): Check {
  const claims = decodeJwtClaims(token) ?? {};
  const held = [...(Array.isArray(claims.roles) ? claims.roles.map(String) : []), ...(typeof claims.scp === "string" ? claims.scp.split(/\s+/) : [])];
  const link = "provisioner permissions";
  const app = appOf(token);
  const blocker = AGENT_ID_WRITE_BLOCKERS.find((p) => held.includes(p));
  if (blocker) {
    return failed(
      link,
      app,
      `the token carries ${blocker}, with which Entra ignores the Agent ID permissions of every create, update and delete (403)`,
      `use a dedicated provisioner application with the application permissions of docs/pulumi.md and without ${blocker}; never an Azure CLI sign-in`,
    );
  }
  const features = stackFeatures(config);
  const operations = [...PROVISIONING_OPERATIONS, ...features.flatMap(featureOperations)];
  const wanted = [...PROVISIONER_PERMISSIONS, ...features.flatMap((f) => FEATURE_PERMISSIONS[f])];
  const missing = lacking(operations, wanted, held);
  if (missing.length > 0) return failed(link, app, `the token's roles lack ${missing.join("; ")}`, `for each of them: ${CONSENT}`);
  const withFeatures = features.length > 0 ? ` (with this stack's ${features.join(" and ")}: ${features.flatMap((f) => FEATURE_PERMISSIONS[f]).join(", ")})` : "";
  const reads = lacking(CHECK_OPERATIONS, CHECK_PERMISSIONS, held);
  if (reads.length > 0) return warning(link, app, `every provisioning permission${withFeatures}; not ${reads.join("; ")}, so some checks below cannot run`, `optional, read-only: ${CONSENT}`);
  return ok(link, app, `every provisioning permission${withFeatures}, and ${CHECK_PERMISSIONS.join(", ")} for these checks`);
}

/** A check a 403 kept from running: Graph's code, and the permission the call takes (the same hint doctor gives), as the fix. */
const denied = (link: string, id: string, { denied: err }: Denied) =>
  warning(link, id, `not checked: the provisioner may not read it (403 ${err.code})`, `${cliHint(err.hint) ?? "grant the provisioner the permission this read takes"}; or check it by hand`);

async function domainCheck(graph: GraphClient, config: KitConfig): Promise<Check> {
  const link = "upn domain";
  // learn.microsoft.com/graph/api/domain-get
  const domain = await read<{ isVerified?: boolean }>(graph, `/v1.0/domains/${encodeURIComponent(config.userDomain)}`, { isVerified: "boolean?" });
  if (isDenied(domain)) return denied(link, config.userDomain, domain);
  if (!domain) return failed(link, config.userDomain, "not a domain of this tenant", "set agent-user-kit:userDomain to one of the tenant's verified domains (e.g. <tenant>.onmicrosoft.com)");
  if (domain.isVerified !== true) return failed(link, config.userDomain, "the domain is not verified", "verify it (Entra admin center → Domain names) or pick a verified one");
  return ok(link, config.userDomain, "a verified domain of the tenant");
}

async function sponsorChecks(graph: GraphClient, config: KitConfig): Promise<Check[]> {
  const fix = "set agent-user-kit:sponsors to the object ids of people in this tenant";
  return Promise.all(
    config.sponsors.map(async (id): Promise<Check> => {
      // learn.microsoft.com/graph/api/user-get
      const user = await read<GraphUser>(graph, `/v1.0/users/${encodeURIComponent(id)}?${USER_SELECT}`, USER);
      if (isDenied(user)) return denied("sponsor", id, user);
      if (!user) return failed("sponsor", id, "no user with this object id in the tenant", fix);
      if (user["@odata.type"] === AGENT_USER_TYPE) return failed("sponsor", id, `${user.userPrincipalName} is an agent user; a sponsor is a person`, fix);
      return ok("sponsor", id, `${user.displayName ?? ""} <${user.userPrincipalName ?? "?"}>`);
    }),
  );
}

async function resourceChecks(graph: GraphClient, config: KitConfig): Promise<Check[]> {
  // learn.microsoft.com/graph/api/serviceprincipal-list ($filter on appId); oauth2PermissionScopes is a servicePrincipal property
  const found = await guarded(() =>
    graph.list<{ id: string; displayName?: string; oauth2PermissionScopes?: PermissionScope[] }>(
      `/v1.0/servicePrincipals?$filter=appId eq ${odataString(config.resourceAppId)}&$select=id,appId,displayName,oauth2PermissionScopes`,
      { shape: { id: "string", displayName: "string?", oauth2PermissionScopes: [{ value: "string?", isEnabled: "boolean?" }] } },
    ),
  );
  if (isDenied(found)) return [denied("resource", config.resourceAppId, found)];
  const [sp] = found;
  if (!sp) {
    return [failed("resource", config.resourceAppId, "the resource API has no service principal in this tenant", "add it to the tenant (an admin consents to it once), or fix agent-user-kit:resourceAppId")];
  }
  // An answer of the wrong shape publishes nothing: every scope then fails, by name, never a crash.
  const published = (Array.isArray(sp.oauth2PermissionScopes) ? sp.oauth2PermissionScopes : []).filter((s) => s?.isEnabled !== false && typeof s?.value === "string").map((s) => s.value);
  const wanted = [...new Set(config.agents.flatMap((a) => a.scopes))];
  return [
    ok("resource", sp.id, `${sp.displayName ?? config.resourceAppId} publishes ${published.length} delegated scopes`),
    ...wanted.map((scope) => {
      if (published.includes(scope)) return ok("scope", scope, "published by the resource");
      const guess = didYouMean(scope, published);
      return failed("scope", scope, `not a delegated scope of ${sp.displayName ?? config.resourceAppId}${guess ? `; did you mean ${guess}?` : ""}`, `fix the scope in agent-user-kit:scopes (and allowedScopes, or the agent's own scopes)${guess ? `: ${guess}` : ""}`);
    }),
  ];
}

/** Which stack's blueprint `preflight` looks for: its project and stack, each any when unknown. */
export interface StackIdentity {
  project?: string;
  stack?: string;
}

/**
 * The adoption tag of the stack among `tags`, as the component writes it:
 * `agent-user-kit:<project>/<stack>/<component>`, and since tags end in the
 * stack's nonce, `.../<component>/<nonce>`, which only the stack's state
 * holds: preflight knows the form, never the nonce.
 */
function stackTag(tags: readonly string[] | undefined, of: StackIdentity): string | undefined {
  return (tags ?? []).find((tag) => {
    const [project, stack, ...component] = tag.startsWith("agent-user-kit:") ? tag.slice("agent-user-kit:".length).split("/") : [];
    return component.length > 0 && (of.project === undefined || project === of.project) && (of.stack === undefined || stack === of.stack);
  });
}

interface ListedBlueprint extends Creation {
  appId: string;
  tags?: string[];
}

/** What `pulumi up` does with a blueprint carrying the stack's tag that another application made. */
const FOREIGN_TAGGED =
  "carrying this stack's adoption tag form, made by another application: `pulumi up` neither adopts them nor stops for them (only the stack's state holds its blueprint tag's nonce)";

/** What `pulumi up` would do with an object of the stack another application made: refuse it. */
const FOREIGN_FIX =
  "`pulumi up` adopts only what its provisioner created and would stop here: find out who made it from its owners and creator, and delete it in Entra; or, if your stack made it as another provisioner application, run preflight and `pulumi up` as that application";

/** The blueprint of the stack among `blueprints`: tagged by it and made by the provisioner, as `pulumi up` would adopt it. */
function stackBlueprint(blueprints: readonly ListedBlueprint[], of: StackIdentity, app: string): ListedBlueprint | undefined {
  return blueprints.find((b) => stackTag(b.tags, of) !== undefined && madeBy(b, app));
}

/**
 * The blueprint display name: free, held by this stack's blueprint, or
 * carried by others. One carrying this stack's tag that another application
 * made is one of the others, named with its creator: `pulumi up` leaves it
 * alone, as it does here.
 */
async function blueprintNameCheck(graph: GraphClient, config: KitConfig, blueprints: ListedBlueprint[], of: StackIdentity, app: string): Promise<Check> {
  const link = "blueprint name";
  const mine = stackBlueprint(blueprints, of, app);
  const others = blueprints.filter((b) => b !== mine);
  if (others.length > 0) {
    const foreign = others.filter((b) => stackTag(b.tags, of) !== undefined);
    const made = await Promise.all(foreign.map((b) => madeByAnother(graph, "the blueprint", b, blueprintPath(b.id), app)));
    const tagged = foreign.length > 0 ? `; ${made.join("; ")}: ${foreign.length === 1 ? "one" : foreign.length} ${FOREIGN_TAGGED}` : "";
    return warning(link, config.blueprintName, `${others.length} other blueprint(s) already carry this display name (${others.map((b) => b.id).join(", ")})${tagged}`, "display names are not unique in Entra, but people will confuse them: set agent-user-kit:blueprintName to another name");
  }
  return mine ? ok(link, config.blueprintName, `held by this stack's blueprint ${mine.id} (tag ${stackTag(mine.tags, of)})`) : ok(link, config.blueprintName, "free");
}

interface ParentIdentity extends Creation {
  agentIdentityBlueprintId?: string;
}
const PARENT: Shape = { id: "string", displayName: "string?", agentIdentityBlueprintId: "string?", createdByAppId: "string?" };

/** Each agent user UPN: free, held by this stack's agent user (under an identity of its blueprint that the provisioner made), or taken. */
async function upnCheck(graph: GraphClient, upn: string, mine: ListedBlueprint | undefined | Denied, app: string): Promise<Check> {
  const link = "agent user upn";
  // learn.microsoft.com/graph/api/user-get (by userPrincipalName)
  const user = await read<GraphUser>(graph, `/v1.0/users/${encodeURIComponent(upn)}?${USER_SELECT}`, USER);
  if (isDenied(user)) return denied(link, upn, user);
  if (!user) return ok(link, upn, "free");
  const isAgentUser = user["@odata.type"] === AGENT_USER_TYPE;
  // Whose agent user it is cannot be told without these reads: saying "another chain's" would be a guess.
  if (isAgentUser && isDenied(mine)) return denied(link, upn, mine);
  // identityParentId is an agentUser property: read on the typed URL, never from the user type's default set.
  const typed = isAgentUser ? await read<GraphUser>(graph, `${agentUserPath(user.id)}?$select=id,identityParentId`, { identityParentId: "string?" }) : undefined;
  if (isDenied(typed)) return denied(link, upn, typed);
  const parentId = typed?.identityParentId;
  const parentPath = parentId ? agentIdentityPath(parentId) : undefined;
  const parent = parentPath ? await read<ParentIdentity>(graph, `${parentPath}?$select=${CREATION_SELECT},agentIdentityBlueprintId`, PARENT) : undefined;
  if (isDenied(parent)) return denied(link, upn, parent);
  if (mine && !isDenied(mine) && parent && parentPath && parent.agentIdentityBlueprintId === mine.appId) {
    if (madeBy(parent, app)) return ok(link, upn, `held by this stack's agent user ${user.id}`);
    return failed(link, upn, `held by agent user ${user.id}, whose ${await madeByAnother(graph, "agent identity", parent, parentPath, app)}`, FOREIGN_FIX);
  }
  return failed(link, upn, `already taken by ${isAgentUser ? "another chain's agent user" : "a user"} (${user.id})`, "pick another agent-user-kit:agentUserName (or the agent's userName)");
}

async function nameChecks(graph: GraphClient, config: KitConfig, of: StackIdentity, app: string): Promise<Check[]> {
  // learn.microsoft.com/graph/api/agentidentityblueprint-list ($filter on displayName)
  const blueprints = await guarded(() =>
    graph.list<ListedBlueprint>(`${BLUEPRINTS}?$filter=displayName eq ${odataString(config.blueprintName)}&$select=appId,tags,${CREATION_SELECT}`, {
      agentId: true,
      shape: { id: "string", appId: "string?", tags: "string[]?", displayName: "string?", createdByAppId: "string?" },
    }),
  );
  const name = isDenied(blueprints) ? denied("blueprint name", config.blueprintName, blueprints) : await blueprintNameCheck(graph, config, blueprints, of, app);
  const mine = isDenied(blueprints) ? blueprints : stackBlueprint(blueprints, of, app);
  const upns: Check[] = [];
  for (const agent of config.agents) upns.push(await upnCheck(graph, agent.userPrincipalName, mine, app));
  return [name, ...upns];
}

/** The whole checklist, in the order a person fixes things; `of` names the stack whose objects count as its own. */
export async function preflight(graph: GraphClient, token: string, config: KitConfig, of: StackIdentity): Promise<Check[]> {
  return [
    permissionsCheck(token, config),
    await domainCheck(graph, config),
    ...(await sponsorChecks(graph, config)),
    ...(await resourceChecks(graph, config)),
    ...(await nameChecks(graph, config, of, appOf(token))),
  ];
}
