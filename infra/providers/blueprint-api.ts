import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import { configureProvisioner } from "../provisioner-credential";
import { requireState, step, type HintFor } from "./failure";
import { applicationByAppIdPath, blueprintPath, getIfExists } from "./graph-helpers";
import { awaitReplica, graphSession, type GraphSession } from "./graph-ops";
import { changesGraph, checkInputs, diffKeys, withCommonInputs, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { registeredArgs } from "./resource-args";

/**
 * A blueprint's exposed API, which the on-behalf-of flow needs: a person's
 * token can name the blueprint as its audience only once the blueprint
 * answers to an identifier URI (`api://{appId}`) and exposes a delegated
 * scope, as Entra's create-blueprint page sets them ("Configure identifier
 * URI and scope": PATCH of identifierUris and api.oauth2PermissionScopes,
 * with AgentIdentityBlueprint.UpdateAuthProperties.All). No azuread resource
 * changes a blueprint (it is not an application the provider made), so this
 * is a dynamic resource over Graph. Other scopes and identifier URIs the
 * blueprint holds are kept; this one's scope is disabled before it is
 * removed, as permissionScope requires.
 */

export interface BlueprintApiInputs extends GraphResourceInputs {
  /** The blueprint's appId: its identifier URI is `api://{appId}`. */
  blueprintAppId: string;
  /** The blueprint's object id: the first PATCH waits until the blueprint is readable. */
  blueprintObjectId: string;
  /** The delegated scope's value, e.g. access_agent: a person's token for the agent asks for `api://{appId}/{scope}`. */
  scope: string;
  /** appIds of client applications pre-authorized for the scope (no consent prompt for them), e.g. the agent's front end. */
  preAuthorizedClients: string[];
}

export interface BlueprintApiOutputs extends BlueprintApiInputs {
  identifierUri: string;
  /** The scope's id, kept across updates: a changed value is a new scope. */
  scopeId: string;
  /** Whether this resource added the identifier URI (delete removes it then only; one the blueprint had before stays). */
  identifierUriAdded: boolean;
}

interface PermissionScope {
  id: string;
  value: string;
  isEnabled: boolean;
  type?: string;
  adminConsentDisplayName?: string;
  adminConsentDescription?: string;
  userConsentDisplayName?: string | null;
  userConsentDescription?: string | null;
}
interface PreAuthorized {
  appId: string;
  delegatedPermissionIds: string[];
}
interface Api {
  identifierUris: string[];
  scopes: PermissionScope[];
  preAuthorized: PreAuthorized[];
}

const SHAPE: Shape = { identifierUris: "string[]?" };

const hints: HintFor = (err) =>
  err.status === 403
    ? "exposing an API on the blueprint needs the application permission AgentIdentityBlueprint.UpdateAuthProperties.All (docs/pulumi.md, \"Opt-in flows\"), granted with admin consent"
    : undefined;

/** The blueprint's API as Graph holds it now; undefined when the blueprint is gone. */
async function readApi(graph: GraphClient, appId: string): Promise<Api | undefined> {
  const app = await getIfExists<{ identifierUris?: string[]; api?: { oauth2PermissionScopes?: unknown; preAuthorizedApplications?: unknown } }>(
    graph,
    `${applicationByAppIdPath(appId)}?$select=identifierUris,api`,
    { shape: SHAPE },
  );
  if (!app) return undefined;
  const listOf = <T>(value: unknown, valid: (item: Record<string, unknown>) => boolean): T[] =>
    Array.isArray(value) ? (value.filter((item) => item !== null && typeof item === "object" && valid(item as Record<string, unknown>)) as T[]) : [];
  return {
    identifierUris: app.identifierUris ?? [],
    scopes: listOf<PermissionScope>(app.api?.oauth2PermissionScopes, (s) => typeof s.id === "string" && typeof s.value === "string" && typeof s.isEnabled === "boolean"),
    preAuthorized: listOf<PreAuthorized>(app.api?.preAuthorizedApplications, (p) => typeof p.appId === "string" && Array.isArray(p.delegatedPermissionIds)),
  };
}

/** The scope as this resource exposes it: a User scope, consented for the agent by users or by an admin. */
function ourScope(id: string, value: string, isEnabled = true): PermissionScope {
  return {
    id,
    value,
    type: "User",
    isEnabled,
    adminConsentDisplayName: `Access the agent (${value})`,
    adminConsentDescription: "Allow the application to access the agent on behalf of the signed-in user.",
    userConsentDisplayName: `Access the agent (${value})`,
    userConsentDescription: "Allow the application to access the agent on your behalf.",
  };
}

/**
 * The API with this resource's part set to `scope` (or removed, when
 * undefined): its identifier URI, its scope and the clients pre-authorized
 * for it; everything else the blueprint holds is kept.
 */
function withOurs(api: Api, uri: string, scopeId: string, scope: PermissionScope | undefined, clients: readonly string[], keepUri = false): Api {
  const others = api.preAuthorized
    .map((p) => ({ appId: p.appId, delegatedPermissionIds: p.delegatedPermissionIds.filter((id) => id !== scopeId) }))
    .filter((p) => p.delegatedPermissionIds.length > 0);
  return {
    identifierUris: scope ? [...new Set([...api.identifierUris, uri])] : keepUri ? api.identifierUris : api.identifierUris.filter((u) => u.toLowerCase() !== uri.toLowerCase()),
    scopes: [...api.scopes.filter((s) => s.id !== scopeId), ...(scope ? [scope] : [])],
    preAuthorized: scope?.isEnabled ? [...others, ...clients.map((appId) => ({ appId, delegatedPermissionIds: [scopeId] }))] : others,
  };
}

/**
 * The scope of the stack's value this resource made before (a create whose
 * answer was lost), to adopt with its id; undefined when the blueprint has
 * none. A scope of that value made by anyone else (its texts are not the
 * kit's) is refused, naming it: this resource would change and later remove it.
 */
function ownScope(api: Api | undefined, inputs: BlueprintApiInputs): PermissionScope | undefined {
  const held = api?.scopes.find((s) => s.value === inputs.scope);
  if (!held) return undefined;
  const ours = ourScope(held.id, held.value, held.isEnabled);
  const texts = ["type", "adminConsentDisplayName", "adminConsentDescription", "userConsentDisplayName", "userConsentDescription"] as const;
  if (texts.every((field) => held[field] === ours[field])) return held;
  throw new Error(
    `the blueprint ${inputs.blueprintAppId} already exposes a scope "${inputs.scope}" (id ${held.id}) that this stack did not make (its type or consent texts differ from the kit's); ` +
      `choose another onBehalfOfScope, or remove that scope from the blueprint (disable it first) if nothing else uses it`,
  );
}

async function patchApi(session: GraphSession, appId: string, api: Api): Promise<void> {
  const body = { identifierUris: api.identifierUris, api: { oauth2PermissionScopes: api.scopes, preAuthorizedApplications: api.preAuthorized } };
  await session.graph.call("PATCH", applicationByAppIdPath(appId), { agentId: true, body, consistencyWindowMs: session.consistencyWindowMs });
}

/** Brings the blueprint's API to `news`; an enabled scope being replaced or removed is disabled first. */
async function apply(session: GraphSession, news: BlueprintApiInputs, scopeId: string, removing: boolean, keepUri = false): Promise<void> {
  const uri = `api://${news.blueprintAppId}`;
  const api = await readApi(session.graph, news.blueprintAppId);
  if (!api) throw new Error(`the blueprint ${news.blueprintAppId} was not found to expose an API on`);
  const held = api.scopes.find((s) => s.id === scopeId);
  if (held?.isEnabled && (removing || held.value !== news.scope)) await patchApi(session, news.blueprintAppId, withOurs(api, uri, scopeId, { ...held, isEnabled: false }, []));
  const after = removing ? withOurs(api, uri, scopeId, undefined, [], keepUri) : withOurs(api, uri, scopeId, ourScope(scopeId, news.scope), news.preAuthorizedClients);
  await patchApi(session, news.blueprintAppId, after);
}

export const blueprintApiProvider: pulumi.dynamic.ResourceProvider<BlueprintApiInputs, BlueprintApiOutputs> = {
  configure: (request) => configureProvisioner(request),

  async check(_olds, news) {
    return checkInputs(news, (c) => ({
      blueprintAppId: c.guid("blueprintAppId"),
      blueprintObjectId: c.guid("blueprintObjectId"),
      scope: c.scopeValue("scope"),
      preAuthorizedClients: c.guidList("preAuthorizedClients"),
    }));
  },

  async diff(_id, olds, news) {
    return diffKeys<BlueprintApiInputs>(olds, news, { replace: ["blueprintAppId", "blueprintObjectId"], update: ["scope", "preAuthorizedClients"] });
  },

  async create(inputs) {
    return step(
      "blueprint API",
      "create",
      async () => {
        const session = graphSession(inputs);
        await awaitReplica(session, blueprintPath(inputs.blueprintObjectId));
        const uri = `api://${inputs.blueprintAppId}`;
        const before = await readApi(session.graph, inputs.blueprintAppId);
        const adopted = ownScope(before, inputs);
        const scopeId = adopted?.id ?? globalThis.crypto.randomUUID();
        await apply(session, inputs, scopeId, false);
        // The URI is this resource's when the blueprint did not answer to it, or when it came with the scope a lost answer of this resource made.
        const identifierUriAdded = adopted !== undefined || !(before?.identifierUris ?? []).some((u) => u.toLowerCase() === uri.toLowerCase());
        return { id: `${inputs.blueprintAppId}/${scopeId}`, outs: { ...inputs, identifierUri: uri, scopeId, identifierUriAdded } };
      },
      hints,
    );
  },

  async read(id, props) {
    return step("blueprint API", "read", async () => {
      const state = requireState("blueprint API", props);
      const api = await readApi(graphSession(state).graph, state.blueprintAppId);
      if (!api) return {};
      const scope = api.scopes.find((s) => s.id === state.scopeId && s.isEnabled);
      const exposed = api.identifierUris.some((u) => u.toLowerCase() === state.identifierUri.toLowerCase());
      // Drift shows as a changed scope, which the next `up` exposes again.
      const clients = api.preAuthorized.filter((p) => p.delegatedPermissionIds.includes(state.scopeId)).map((p) => p.appId.toLowerCase()).sort();
      return { id, props: { ...state, scope: scope && exposed ? scope.value : "", preAuthorizedClients: clients } };
    });
  },

  async update(_id, olds, news) {
    if (!changesGraph(olds, news, { replace: [], update: ["scope", "preAuthorizedClients"] })) return { outs: withCommonInputs(olds, news) };
    return step(
      "blueprint API",
      "update",
      async () => {
        await apply(graphSession(news), news, olds.scopeId, false);
        return { outs: { ...news, identifierUri: olds.identifierUri, scopeId: olds.scopeId, identifierUriAdded: olds.identifierUriAdded } };
      },
      hints,
    );
  },

  async delete(_id, props) {
    return step("blueprint API", "delete", async () => {
      const session = graphSession(props);
      if (!(await readApi(session.graph, props.blueprintAppId))) return;
      await apply(session, props, props.scopeId, true, props.identifierUriAdded === false);
    });
  },
};

/** The identifier URI and delegated scope a blueprint exposes, so that a person's token can name it (the on-behalf-of flow). */
export class BlueprintApiResource extends pulumi.dynamic.Resource {
  declare readonly identifierUri: pulumi.Output<string>;
  declare readonly scope: pulumi.Output<string>;
  declare readonly scopeId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<BlueprintApiInputs>, opts?: pulumi.CustomResourceOptions) {
    super(blueprintApiProvider, name, { ...registeredArgs(args), identifierUri: undefined, scopeId: undefined }, opts, "agent-user-kit", "BlueprintApi");
  }
}
