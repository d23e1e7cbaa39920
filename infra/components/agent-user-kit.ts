import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import type { AgentConfig, KitConfig } from "../config";
import { argsPlan, stackPlan, type AgentUserKitArgs, type AgentUserKitStackConfig, type KitPlan } from "./kit-args";
import { PACKAGE_VERSION } from "../../lib/version";
import { AgentIdentityBlueprint, type BlueprintCredentialArgs } from "./blueprint";
import { withExplicitProvisioner } from "./explicit-provisioner";
import { AgentUserGrant } from "./grant";
import type { ProvisioningSettings } from "./settings";
import { AgentIdentityResource, AgentUserResource } from "../providers/resources";
import { AGENT_IDENTITY_TYPE, AGENT_USER_TYPE } from "./unwrapped";

export const AGENT_USER_KIT_TYPE = "agent-user-kit:index:AgentUserKit";

export type { AgentArgs, AgentUserKitArgs, AgentUserKitStackConfig } from "./kit-args";

/** What one agent's resources are called in `agents` of the outputs. */
export interface AgentOutputs {
  agentIdentityId: pulumi.Output<string>;
  agentUserId: pulumi.Output<string>;
  agentUserPrincipalName: pulumi.Output<string>;
  grantId: pulumi.Output<string>;
  grantScopes: pulumi.Output<string>;
}

/**
 * The values `agent-user token --outputs` reads, under the names it reads
 * them by: the top-level agent keys describe the first agent, and `agents`
 * every agent by name. The two credential outputs exist only in their mode.
 */
export interface AgentUserKitOutputs extends AgentOutputs {
  tenantId: pulumi.Output<string>;
  authorityUrl: pulumi.Output<string>;
  graphUrl: pulumi.Output<string>;
  resourceUrl: pulumi.Output<string>;
  tokenExchangeAudience: pulumi.Output<string>;
  blueprintAppId: pulumi.Output<string>;
  blueprintObjectId: pulumi.Output<string>;
  blueprintPrincipalId: pulumi.Output<string>;
  blueprintClientSecret?: pulumi.Output<string>;
  managedIdentityClientId?: pulumi.Output<string>;
  agents: pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>;
}

/** @deprecated use `AgentUserKitOutputs`; `StackOutputs` of `agent-user-kit` is the outputs file as `agent-user token` reads it. */
export type StackOutputs = AgentUserKitOutputs;

/** One agent's resources, in the order they are made. */
export interface AgentResources {
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
 */
export class AgentUserKit extends pulumi.ComponentResource {
  readonly outputs: AgentUserKitOutputs;
  /** The blueprint component: application, principal and credential. */
  readonly blueprint: AgentIdentityBlueprint;
  /** The blueprint principal (also `blueprint.principal`). */
  readonly principal: AgentIdentityBlueprint["principal"];
  /** Each agent's identity, agent user and grant, by agent name. */
  readonly agents: Readonly<Record<string, AgentResources>>;

  constructor(name: string, given: AgentUserKitArgs | AgentUserKitStackConfig, opts?: pulumi.ComponentResourceOptions) {
    const plan = "stackConfig" in given ? stackPlan(given) : argsPlan(name, given);
    super(AGENT_USER_KIT_TYPE, name, {}, opts);
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

    const blueprint = new AgentIdentityBlueprint(
      `${name}-blueprint`,
      { displayName: pick((c) => c.blueprintName), sponsors, credential: credentialArgs(plan, pick), tenantId, tokenExchangeAudience: pick((c) => c.tokenExchangeAudience), settings },
      { parent: this },
    );
    const agents = plan.agentNames.map((agentName, index) => {
      const prefix = index === 0 && plan.singleAgentNames ? name : `${name}-${agentName}`;
      const field = <K extends keyof AgentConfig>(key: K) => pick((c) => c.agents[index]![key]);
      const identity = new AgentIdentityResource(
        `${prefix}-identity`,
        { ...settings, displayName: field("identityName"), blueprintAppId: blueprint.appId, blueprintPrincipalId: blueprint.principalId, sponsors },
        { parent: this, aliases: doubledName(`${prefix}-identity`, AGENT_IDENTITY_TYPE, this) },
      );
      const user = new AgentUserResource(
        `${prefix}-user`,
        { ...settings, displayName: field("userName"), mailNickname: field("userName"), userPrincipalName: field("userPrincipalName"), identityParentId: identity.identityId },
        { parent: this, aliases: doubledName(`${prefix}-user`, AGENT_USER_TYPE, this) },
      );
      const grant = new AgentUserGrant(
        `${prefix}-grant`,
        { resourceAppId: pick((c) => c.resourceAppId), agentIdentityId: identity.identityId, agentUserId: user.userId, scopes: field("scopes") },
        { parent: this },
      );
      return { agentName, identity, user, grant, outputs: agentOutputs(identity, user, grant) };
    });
    const first = agents[0]!;
    this.blueprint = blueprint;
    this.principal = blueprint.principal;
    this.agents = Object.fromEntries(agents.map(({ agentName, identity, user, grant }) => [agentName, { identity, user, grant }]));

    this.outputs = {
      tenantId,
      authorityUrl: pick((c) => c.authorityUrl),
      graphUrl: pick((c) => c.graphUrl),
      // Graph's tokens are for the configured Graph URL (the emulator's locally); other APIs name their own.
      resourceUrl: pulumi
        .all([checked, first.grant.resourceIdentifierUri])
        .apply(([c, uri]) => (c.resourceAppId === MICROSOFT_GRAPH_APP_ID ? c.graphUrl : uri)),
      tokenExchangeAudience: pick((c) => c.tokenExchangeAudience),
      blueprintAppId: blueprint.appId,
      blueprintObjectId: blueprint.objectId,
      blueprintPrincipalId: blueprint.principalId,
      ...(blueprint.clientSecret ? { blueprintClientSecret: blueprint.clientSecret } : {}),
      ...(blueprint.managedIdentityClientId ? { managedIdentityClientId: blueprint.managedIdentityClientId } : {}),
      ...first.outputs,
      agents: pulumi.output(Object.fromEntries(agents.map((a) => [a.agentName, a.outputs]))) as pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>,
    };
    this.registerOutputs({ ...this.outputs });
  }
}

function agentOutputs(identity: AgentIdentityResource, user: AgentUserResource, grant: AgentUserGrant): AgentOutputs {
  return {
    agentIdentityId: identity.identityId,
    agentUserId: user.userId,
    agentUserPrincipalName: user.userPrincipalName,
    grantId: grant.grantId,
    grantScopes: grant.scopes,
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
 * The blueprint credential: its mode, and which managed identity variant, are
 * plain (they decide which resources exist); its values come from the checked
 * arguments.
 */
function credentialArgs(plan: KitPlan, pick: <T>(read: (config: KitConfig) => T) => pulumi.Output<T>): BlueprintCredentialArgs {
  const field = <T>(read: (credential: Record<string, unknown>) => T) => pick((c) => read(c.credential as unknown as Record<string, unknown>));
  switch (plan.credential) {
    case "secret":
      return { mode: "secret", endDate: field((c) => c.endDate as string | undefined) as pulumi.Output<string> };
    case "certificate":
      return { mode: "certificate", certificatePem: field((c) => c.certificatePem as string), endDate: field((c) => c.endDate as string) };
    case "managedIdentity":
      return plan.existingPrincipal
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
