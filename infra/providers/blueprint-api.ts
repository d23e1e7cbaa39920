import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import { printable } from "./graph-helpers";
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
 * The scope of the stack's value this resource made before (a create whose
 * answer was lost), to adopt with its id; undefined when the blueprint has
 * none. A scope of that value made by anyone else (its texts are not the
 * kit's) is refused, naming it: this resource would change and later remove it.
 */
function ownScope(api: Api, inputs: BlueprintApiInputs): PermissionScope | undefined {
  const held = api.scopes.find((s) => s.value === inputs.scope);
  if (!held) return undefined;
  const ours = ourScope(held.id, held.value, held.isEnabled);
  const texts = ["type", "adminConsentDisplayName", "adminConsentDescription", "userConsentDisplayName", "userConsentDescription"] as const;
  if (texts.every((field) => held[field] === ours[field])) return held;
  throw new Error(
    `the blueprint ${inputs.blueprintAppId} already exposes a scope "${inputs.scope}" (id ${held.id}) that this stack did not make (its type or consent texts differ from the kit's); ` +
      `choose another onBehalfOfScope, or remove that scope from the blueprint (disable it first) if nothing else uses it`,
  );
}

/** Whether the API answers to `uri`: Entra compares identifier URIs without case. */
function answersTo(api: Api, uri: string): boolean {
  return api.identifierUris.some((u) => u.toLowerCase() === uri.toLowerCase());
}

/**
 * What this resource wants of the blueprint's API: its scope (undefined to
 * remove it), the clients it pre-authorizes for it, and what becomes of its
 * identifier URI; everything else the blueprint holds is another owner's.
 */
interface Wanted {
  scope?: PermissionScope;
  clients: readonly string[];
  /** The clients it pre-authorized before (an update's): taken off its scope unless still wanted; another client of its scope stays. */
  former: readonly string[];
  /** add: put on the blueprint when missing; remove: taken off when there; leave: never sent. */
  uri: "add" | "remove" | "leave";
}

/**
 * The identifierUris to send, or undefined to send none: Graph replaces the
 * whole list, so it is sent only when this resource's URI comes or goes, and
 * a URI another owner adds meanwhile is never overwritten by an unchanged one.
 */
function urisToSend(api: Api, uri: string, action: Wanted["uri"]): string[] | undefined {
  if (action === "add" && !answersTo(api, uri)) return [...api.identifierUris, uri];
  if (action === "remove" && answersTo(api, uri)) return api.identifierUris.filter((u) => u.toLowerCase() !== uri.toLowerCase());
  return undefined;
}

/** The appIds pre-authorized for the scope, lower-cased. */
function clientsOf(api: Api, scopeId: string): string[] {
  return api.preAuthorized.filter((p) => p.delegatedPermissionIds.includes(scopeId)).map((p) => p.appId.toLowerCase());
}

/** The pre-authorizations with the scope granted to exactly `clients`; those of other scopes kept, a client's entry shared. */
function preAuthorizedFor(list: readonly PreAuthorized[], scopeId: string, clients: readonly string[]): PreAuthorized[] {
  const pending = [...new Set(clients.map((c) => c.toLowerCase()))];
  const entries: PreAuthorized[] = [];
  for (const p of list) {
    const ids = p.delegatedPermissionIds.filter((id) => id !== scopeId);
    const granted = pending.indexOf(p.appId.toLowerCase());
    if (granted >= 0) pending.splice(granted, 1);
    const delegatedPermissionIds = granted >= 0 ? [...ids, scopeId] : ids;
    if (delegatedPermissionIds.length > 0) entries.push({ appId: p.appId, delegatedPermissionIds });
  }
  return [...entries, ...pending.map((appId) => ({ appId, delegatedPermissionIds: [scopeId] }))];
}

/** A PATCH body: the URIs only when urisToSend says so, the scopes and pre-authorizations with this resource's part as given. */
interface ApiBody {
  identifierUris?: string[];
  api: { oauth2PermissionScopes: PermissionScope[]; preAuthorizedApplications: PreAuthorized[] };
}

/** The body that disables the scope and takes its pre-authorizations off, as Graph requires before a scope is changed or removed. */
function disablingBody(api: Api, held: PermissionScope): ApiBody {
  return {
    api: {
      oauth2PermissionScopes: api.scopes.map((s) => (s.id === held.id ? { ...held, isEnabled: false } : s)),
      preAuthorizedApplications: preAuthorizedFor(api.preAuthorized, held.id, []),
    },
  };
}

/** The body that brings this resource's part to `wanted`, from the API as just read; `kept` are other clients of its scope. */
function wantedBody(api: Api, uri: string, scopeId: string, wanted: Wanted, kept: readonly string[]): ApiBody {
  const uris = urisToSend(api, uri, wanted.uri);
  const clients = wanted.scope?.isEnabled ? [...kept, ...wanted.clients] : [];
  return {
    ...(uris ? { identifierUris: uris } : {}),
    api: {
      oauth2PermissionScopes: [...api.scopes.filter((s) => s.id !== scopeId), ...(wanted.scope ? [wanted.scope] : [])],
      preAuthorizedApplications: preAuthorizedFor(api.preAuthorized, scopeId, clients),
    },
  };
}

/** What of the API is another owner's, each named: every identifier URI but this resource's, every scope but its own. */
function othersOf(api: Api, uri: string, scopeId: string): string[] {
  return [
    ...api.identifierUris.filter((u) => u.toLowerCase() !== uri.toLowerCase()).map((u) => `identifier URI ${JSON.stringify(u)}`),
    ...api.scopes.filter((s) => s.id !== scopeId).map((s) => `scope ${JSON.stringify(s.value)} (id ${s.id})`),
  ];
}

/**
 * The other owners' URIs and scopes that were there when this resource began
 * and are not after its last PATCH, in words: another writer changed the
 * blueprint meanwhile. A warning, not a failure: this resource's change is
 * made, and a read just after a write may lag behind it.
 */
function goneMeanwhile(operation: string, appId: string, before: readonly string[], after: readonly string[]): string | undefined {
  const gone = before.filter((name) => !after.includes(name));
  if (gone.length === 0) return undefined;
  return (
    `blueprint API ${operation}: after PATCH /v1.0/applications(appId='${appId}'), the blueprint no longer holds ${gone.map(printable).join(", ")}, ` +
    `which another owner had when this step began: another writer changed its exposed API meanwhile. Check the blueprint's identifier URIs and scopes in Entra, and restore what should not have gone`
  );
}

async function patchApi(session: GraphSession, appId: string, body: ApiBody): Promise<void> {
  await session.graph.call("PATCH", applicationByAppIdPath(appId), { agentId: true, body, consistencyWindowMs: session.consistencyWindowMs });
}

async function currentApi(session: GraphSession, appId: string): Promise<Api> {
  const api = await readApi(session.graph, appId);
  if (!api) throw new Error(`the blueprint ${appId} was not found to expose an API on (GET /v1.0/applications(appId='${appId}'))`);
  return api;
}

/**
 * Brings the blueprint's API to `wanted`. Each PATCH is made from a read
 * just before it (`current`, when given, is one), so what another owner
 * changed meanwhile is sent back as it now is; an enabled scope being
 * changed or removed is disabled first. Afterwards the other owners' URIs
 * and scopes are read once more, and any gone is said in a warning.
 */
async function apply(session: GraphSession, operation: string, appId: string, scopeId: string, wanted: Wanted, current?: Api): Promise<void> {
  const uri = `api://${appId}`;
  const first = current ?? (await currentApi(session, appId));
  const kept = clientsOf(first, scopeId).filter((c) => !wanted.former.map((f) => f.toLowerCase()).includes(c));
  const held = first.scopes.find((s) => s.id === scopeId);
  let api = first;
  if (held?.isEnabled && (wanted.scope === undefined || held.value !== wanted.scope.value)) {
    await patchApi(session, appId, disablingBody(api, held));
    api = await currentApi(session, appId);
  }
  await patchApi(session, appId, wantedBody(api, uri, scopeId, wanted, kept));
  const after = await readApi(session.graph, appId);
  const warning = goneMeanwhile(operation, appId, othersOf(first, uri, scopeId), after ? othersOf(after, uri, scopeId) : []);
  if (warning) await pulumi.log.warn(warning);
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
        const before = await currentApi(session, inputs.blueprintAppId);
        const adopted = ownScope(before, inputs);
        const scopeId = adopted?.id ?? globalThis.crypto.randomUUID();
        // The URI is this resource's only when the blueprint did not answer to it before: adopting a scope says nothing of who added the URI.
        const identifierUriAdded = !answersTo(before, uri);
        const wanted: Wanted = { scope: ourScope(scopeId, inputs.scope), clients: inputs.preAuthorizedClients, former: [], uri: "add" };
        await apply(session, "create", inputs.blueprintAppId, scopeId, wanted, before);
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
      // Drift shows as a changed scope, which the next `up` exposes again; of the clients, only the stack's own count (another owner's stay).
      const present = clientsOf(api, state.scopeId);
      const clients = state.preAuthorizedClients.map((c) => c.toLowerCase()).filter((c) => present.includes(c)).sort();
      return { id, props: { ...state, scope: scope && exposed ? scope.value : "", preAuthorizedClients: clients } };
    });
  },

  async update(_id, olds, news) {
    if (!changesGraph(olds, news, { replace: [], update: ["scope", "preAuthorizedClients"] })) return { outs: withCommonInputs(olds, news) };
    return step(
      "blueprint API",
      "update",
      async () => {
        const wanted: Wanted = { scope: ourScope(olds.scopeId, news.scope), clients: news.preAuthorizedClients, former: olds.preAuthorizedClients, uri: "add" };
        await apply(graphSession(news), "update", news.blueprintAppId, olds.scopeId, wanted);
        return { outs: { ...news, identifierUri: olds.identifierUri, scopeId: olds.scopeId, identifierUriAdded: olds.identifierUriAdded } };
      },
      hints,
    );
  },

  async delete(_id, props) {
    return step("blueprint API", "delete", async () => {
      const session = graphSession(props);
      const current = await readApi(session.graph, props.blueprintAppId);
      if (!current) return;
      // A URI the blueprint answered to before the stack stays; state written before the flag existed removes it, as it did.
      const wanted: Wanted = { clients: [], former: props.preAuthorizedClients, uri: props.identifierUriAdded === false ? "leave" : "remove" };
      await apply(session, "delete", props.blueprintAppId, props.scopeId, wanted, current);
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
