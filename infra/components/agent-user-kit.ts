import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import type { AgentConfig, KitConfig } from "../config";
import { UsageError } from "../../lib/errors";
import { argsPlan, stackPlan, type AgentLayout, type AgentUserKitArgs, type AgentUserKitStackConfig, type CredentialLayout } from "./kit-args";
import { PACKAGE_VERSION } from "../../lib/version";
import { AgentIdentityBlueprint, type BlueprintCredentialArgs } from "./blueprint";
import { withExplicitProvisioner } from "./explicit-provisioner";
import { AgentUserGrant } from "./grant";
import type { ProvisioningSettings } from "../providers/inputs";
import { AgentIdentityResource, AgentUserResource } from "../providers/resources";
import { AGENT_IDENTITY_TYPE, AGENT_USER_TYPE } from "./unwrapped";
import { agentOptInOutputs, agentOptIns, exposedApi, kitOptInOutputs, type AgentOptInOutputs, type AgentOptIns } from "./opt-in";
import type { BlueprintApiResource } from "../providers/blueprint-api";

export const AGENT_USER_KIT_TYPE = "agent-user-kit:index:AgentUserKit";

export type { AgentArgs, AgentUserKitArgs, AgentUserKitStackConfig } from "./kit-args";

/**
 * What one agent's resources are called in `agents` of the outputs; the
 * opt-in keys only for an agent that opts in: `appRoles` (the app roles its
 * identity holds, per resource) and its on-behalf-of consent's grant id and scopes.
 */
export interface AgentOutputs extends AgentOptInOutputs {
  /** Object id of the agent identity: `client_id` of hop 3. */
  agentIdentityId: pulumi.Output<string>;
  /** Object id of the agent user: the `oid` of its delegated token. */
  agentUserId: pulumi.Output<string>;
  /** User principal name of the agent user. */
  agentUserPrincipalName: pulumi.Output<string>;
  /** Id of the delegated permission grant, as azuread gives it (`/oauth2PermissionGrants/{id}`). */
  grantId: pulumi.Output<string>;
  /** The granted scopes, space-separated, as Graph stores them. */
  grantScopes: pulumi.Output<string>;
}

/**
 * The values `agent-user token --outputs` reads, under the names it reads
 * them by: the top-level agent keys describe the first agent, and `agents`
 * every agent by name. The two credential outputs exist only in their mode.
 */
export interface AgentUserKitOutputs extends AgentOutputs {
  /** The tenant the blueprint and the agents are in. */
  tenantId: pulumi.Output<string>;
  /** Identity provider base URL the tokens are requested from. */
  authorityUrl: pulumi.Output<string>;
  /** Microsoft Graph base URL the objects were made through. */
  graphUrl: pulumi.Output<string>;
  /** The resource the agents' tokens are for (`{resourceUrl}/.default`): the Graph URL, or the resource API's identifier URI. */
  resourceUrl: pulumi.Output<string>;
  /** Hop 1's audience and the blueprint's federated credential's. */
  tokenExchangeAudience: pulumi.Output<string>;
  /** appId of the blueprint: `client_id` of hop 1. */
  blueprintAppId: pulumi.Output<string>;
  /** Object id of the blueprint application. */
  blueprintObjectId: pulumi.Output<string>;
  /** Object id of the blueprint principal: `oid` of hop-1 tokens. */
  blueprintPrincipalId: pulumi.Output<string>;
  /**
   * The blueprint's client secret, a Pulumi secret; only in secret mode.
   * @secret
   */
  blueprintClientSecret?: pulumi.Output<string>;
  /** Client id of the managed identity whose token is hop 1's assertion; only in managedIdentity mode. */
  managedIdentityClientId?: pulumi.Output<string>;
  /** Only with `onBehalfOfScope`: the blueprint's identifier URI, a person's token's audience for the agent. */
  blueprintIdentifierUri?: pulumi.Output<string>;
  /** Only with `onBehalfOfScope`: the scope the blueprint exposes (a person's token asks for `{blueprintIdentifierUri}/{it}`). */
  blueprintScope?: pulumi.Output<string>;
  /** Every agent's values by agent name; the top-level agent values are the first agent's. */
  agents: pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>;
}

/** @deprecated use `AgentUserKitOutputs`; `StackOutputs` of `agent-user-kit` is the outputs file as `agent-user token` reads it. */
export type StackOutputs = AgentUserKitOutputs;

/** One agent's resources, in the order they are made, and those it opts into (`appRoles`, `onBehalfOf`). */
export interface AgentResources extends AgentOptIns {
  identity: AgentIdentityResource;
  user: AgentUserResource;
  grant: AgentUserGrant;
}

/**
 * One blueprint (with its principal and credential) and, for each agent, an
 * agent identity, its agent user and their grant. Each step takes the
 * previous step's ids as inputs, so Pulumi creates them in that order and
 * destroys them in reverse. The arguments are checked before any resource is
 * registered, so a mistake fails preview, naming the agent and the field.
 * What an Output decides (the agents, the credential's mode) is registered
 * once it resolves and passes the same checks, under the same names.
 */
export class AgentUserKit extends pulumi.ComponentResource {
  readonly outputs: AgentUserKitOutputs;
  /** The blueprint component: application, principal and credential. */
  readonly blueprint: AgentIdentityBlueprint;
  /** The blueprint principal (also `blueprint.principal`). */
  readonly principal: AgentIdentityBlueprint["principal"];
  /** Only with `onBehalfOfScope`: the identifier URI and delegated scope the blueprint exposes. */
  readonly blueprintApi?: BlueprintApiResource;
  /**
   * Each agent's identity, agent user and grant, by agent name, once they are
   * registered: at construction, or once the Outputs that decide the agents
   * resolve. Set whether or not the agents are Outputs.
   */
  readonly agentResources: pulumi.Output<Readonly<Record<string, AgentResources>>>;
  private readonly registeredAgents?: Readonly<Record<string, AgentResources>>;
  private readonly kitName: string;

  constructor(name: string, given: AgentUserKitArgs | AgentUserKitStackConfig, opts?: pulumi.ComponentResourceOptions) {
    const plan = "stackConfig" in given ? stackPlan(given) : argsPlan(name, given);
    super(AGENT_USER_KIT_TYPE, name, {}, opts);
    this.kitName = name;
    const checked = plan.checked;
    const pick = <T>(read: (config: KitConfig) => T): pulumi.Output<T> => checked.apply(read);
    const settings: ProvisioningSettings = {
      graphUrl: pick((c) => c.graphUrl),
      authorityUrl: pick((c) => c.authorityUrl),
      consistencyWindowMs: pick((c) => c.consistencyWindowMs),
      // The package version: a new version updates each resource's serialized provider in state, so deletes and refreshes run it.
      providerVersion: PACKAGE_VERSION,
      ...withExplicitProvisioner(this),
    };
    const sponsors = pick((c) => c.sponsors);
    const tenantId = azuread.getClientConfigOutput({ parent: this }).tenantId;

    const credential = plan.credential ? credentialArgs(plan.credential, pick) : pick((c) => c.credential);
    const blueprint = new AgentIdentityBlueprint(
      `${name}-blueprint`,
      { displayName: pick((c) => c.blueprintName), sponsors, credential, tenantId, tokenExchangeAudience: pick((c) => c.tokenExchangeAudience), settings },
      { parent: this },
    );
    const register = (layout: AgentLayout) => registerAgents(this, name, layout, { settings, sponsors, blueprint, pick });
    if (plan.exposesApi) this.blueprintApi = exposedApi(this, name, blueprint, settings, pick);
    let agents: AgentOutputSource;
    if (pulumi.Output.isInstance(plan.agents)) {
      pulumi.log.info(DEFERRED_AGENTS, this);
      const registered = plan.agents.apply(register);
      agents = deferredAgentOutputs(registered);
      this.agentResources = registered.apply((list) => Object.fromEntries(list));
    } else {
      const registered = register(plan.agents);
      agents = knownAgentOutputs(registered);
      this.registeredAgents = Object.fromEntries(registered);
      this.agentResources = pulumi.output(this.registeredAgents);
    }
    this.blueprint = blueprint;
    this.principal = blueprint.principal;

    this.outputs = {
      tenantId,
      authorityUrl: pick((c) => c.authorityUrl),
      graphUrl: pick((c) => c.graphUrl),
      // Graph's tokens are for the configured Graph URL (the emulator's locally); other APIs name their own.
      resourceUrl: pulumi.all([checked, agents.resourceIdentifierUri]).apply(([c, uri]) => (c.resourceAppId === MICROSOFT_GRAPH_APP_ID ? c.graphUrl : uri)),
      tokenExchangeAudience: pick((c) => c.tokenExchangeAudience),
      blueprintAppId: blueprint.appId,
      blueprintObjectId: blueprint.objectId,
      blueprintPrincipalId: blueprint.principalId,
      ...(blueprint.clientSecret ? { blueprintClientSecret: blueprint.clientSecret } : {}),
      ...(blueprint.managedIdentityClientId ? { managedIdentityClientId: blueprint.managedIdentityClientId } : {}),
      ...kitOptInOutputs(this.blueprintApi),
      ...agents.first,
      agents: agents.all,
    };
    this.registerOutputs({ ...this.outputs });
  }

  /**
   * Each agent's identity, agent user and grant, by agent name, as registered
   * at construction. When an Output decides the agents they are registered
   * only once it resolves, and this throws: read `agentResources` then.
   */
  get agents(): Readonly<Record<string, AgentResources>> {
    if (this.registeredAgents === undefined) {
      const step = `AgentUserKit ${JSON.stringify(this.kitName)}`;
      throw new UsageError("agents is not known at construction, since an Output decides the agents", "read agentResources, an Output of the same record", step);
    }
    return this.registeredAgents;
  }
}

const DEFERRED_AGENTS =
  "the agents' identities, users and grants are registered once the Outputs that decide them (agents, their names, singleAgentNames) resolve: a preview while they are unknown cannot list them";

interface AgentDependencies {
  settings: ProvisioningSettings;
  sponsors: pulumi.Output<string[]>;
  blueprint: AgentIdentityBlueprint;
  pick: <T>(read: (config: KitConfig) => T) => pulumi.Output<T>;
}

/**
 * Each agent's identity, user and grant, children of the kit: the names,
 * parents and aliases are the same whether the layout was known at
 * construction or came from an Output, so a stack keeps its URNs either way.
 */
function registerAgents(kit: pulumi.ComponentResource, name: string, layout: AgentLayout, deps: AgentDependencies): Array<[string, AgentResources]> {
  const { settings, sponsors, blueprint, pick } = deps;
  return layout.names.map((agentName, index) => {
    const single = index === 0 && layout.singleAgentNames;
    const prefix = single ? name : `${name}-${agentName}`;
    // The first agent of a fleet may be a one-agent stack's agent, moved to `agents`: its resources
    // stood under the one-agent names, and these aliases keep its Graph objects.
    const oneAgentNames = index === 0 && !single;
    const aliases = (suffix: string, wrapperType: string) => [
      ...doubledName(`${prefix}-${suffix}`, wrapperType, kit),
      ...(oneAgentNames ? [{ name: `${name}-${suffix}` }, ...doubledName(`${name}-${suffix}`, wrapperType, kit)] : []),
    ];
    const field = <K extends keyof AgentConfig>(key: K) => pick((c) => c.agents[index]![key]);
    const identity = new AgentIdentityResource(
      `${prefix}-identity`,
      { ...settings, displayName: field("identityName"), blueprintAppId: blueprint.appId, blueprintPrincipalId: blueprint.principalId, sponsors },
      { parent: kit, aliases: aliases("identity", AGENT_IDENTITY_TYPE) },
    );
    const user = new AgentUserResource(
      `${prefix}-user`,
      { ...settings, displayName: field("userName"), mailNickname: field("userName"), userPrincipalName: field("userPrincipalName"), identityParentId: identity.identityId },
      { parent: kit, aliases: aliases("user", AGENT_USER_TYPE) },
    );
    // The grant component's children take its alias: their names start with its own.
    const grant = new AgentUserGrant(
      `${prefix}-grant`,
      { resourceAppId: pick((c) => c.resourceAppId), agentIdentityId: identity.identityId, agentUserId: user.userId, scopes: field("scopes") },
      { parent: kit, aliases: oneAgentNames ? [{ name: `${name}-grant` }] : [] },
    );
    const optIns = agentOptIns(kit, prefix, layout.features[index]!, identity.identityId, { pick, index });
    return [agentName, { identity, user, grant, ...optIns }];
  });
}

/** What the kit's outputs read from the agents: the first agent's values, its resource's URI, and every agent's by name. */
interface AgentOutputSource {
  first: AgentOutputs;
  resourceIdentifierUri: pulumi.Output<string>;
  all: pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>;
}

function knownAgentOutputs(registered: Array<[string, AgentResources]>): AgentOutputSource {
  const first = registered[0]![1];
  return {
    first: agentOutputs(first),
    resourceIdentifierUri: first.grant.resourceIdentifierUri,
    all: pulumi.output(Object.fromEntries(registered.map(([agentName, resources]) => [agentName, agentOutputs(resources)]))) as AgentOutputSource["all"],
  };
}

/** The same values, from agents registered once an Output resolves. */
function deferredAgentOutputs(registered: pulumi.Output<Array<[string, AgentResources]>>): AgentOutputSource {
  const known = registered.apply(knownAgentOutputs);
  // Which opt-in keys the first agent has is known only once the agents are: an absent one resolves to undefined, which no output shows.
  const keys = [...AGENT_OUTPUT_KEYS, ...OPT_IN_AGENT_KEYS];
  const first = Object.fromEntries(keys.map((key) => [key, known.apply((source) => source.first[key])])) as unknown as AgentOutputs;
  return { first, resourceIdentifierUri: known.apply((source) => source.resourceIdentifierUri), all: known.apply((source) => source.all) };
}

const AGENT_OUTPUT_KEYS = ["agentIdentityId", "agentUserId", "agentUserPrincipalName", "grantId", "grantScopes"] as const satisfies ReadonlyArray<keyof AgentOutputs>;
const OPT_IN_AGENT_KEYS = ["appRoles", "onBehalfOfGrantId", "onBehalfOfScopes"] as const satisfies ReadonlyArray<keyof AgentOptInOutputs>;

function agentOutputs(resources: AgentResources): AgentOutputs {
  const { identity, user, grant } = resources;
  return {
    agentIdentityId: identity.identityId,
    agentUserId: user.userId,
    agentUserPrincipalName: user.userPrincipalName,
    grantId: grant.grantId,
    grantScopes: grant.scopes,
    ...agentOptInOutputs(resources),
  };
}

/**
 * Where an agent's identity or user stood before its name lost the doubled
 * suffix (`{name}-identity-identity`): beside it under the kit, and before
 * that inside the component of type `wrapperType` that wrapped it. The
 * aliases move the Graph object to the new URN instead of replacing it.
 */
function doubledName(name: string, wrapperType: string, kit: pulumi.Resource): pulumi.Alias[] {
  const suffix = name.slice(name.lastIndexOf("-"));
  const old = `${name}${suffix}`;
  return [{ name: old }, { name: old, parent: pulumi.createUrn(name, wrapperType, kit) }];
}

/**
 * The blueprint credential when its mode, and which managed identity variant,
 * are known at construction (they decide which resources exist); its values
 * come from the checked arguments.
 */
function credentialArgs(layout: CredentialLayout, pick: <T>(read: (config: KitConfig) => T) => pulumi.Output<T>): BlueprintCredentialArgs {
  const field = <T>(read: (credential: Record<string, unknown>) => T) => pick((c) => read(c.credential as unknown as Record<string, unknown>));
  switch (layout.mode) {
    case "secret":
      return { mode: "secret", endDate: field((c) => c.endDate as string | undefined) as pulumi.Output<string> };
    case "certificate":
      return { mode: "certificate", certificatePem: field((c) => c.certificatePem as string), endDate: field((c) => c.endDate as string) };
    case "managedIdentity":
      return layout.existingPrincipal
        ? { mode: "managedIdentity", existingPrincipalId: field((c) => c.existingPrincipalId as string) }
        : {
            mode: "managedIdentity",
            newIdentity: {
              resourceGroupName: field((c) => (c.newIdentity as { resourceGroupName: string }).resourceGroupName),
              location: field((c) => (c.newIdentity as { location: string }).location),
            },
          };
  }
}
