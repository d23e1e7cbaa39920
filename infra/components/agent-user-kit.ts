import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { validateConfig, type AgentSpec, type CredentialMode, type KitConfig, type RawConfig } from "../config";
import { PACKAGE_VERSION } from "../../lib/version";
import { AgentIdentityBlueprint } from "./blueprint";
import { AgentUserGrant } from "./grant";
import type { ProvisioningSettings } from "./settings";
import { AgentIdentity, AgentUser } from "../providers/resources";
import { AGENT_IDENTITY_TYPE, AGENT_USER_TYPE } from "./unwrapped";

export const AGENT_USER_KIT_TYPE = "agent-user-kit:index:AgentUserKit";

export interface AgentUserKitArgs {
  /** Display name of the agent identity blueprint (at most 256 characters). */
  blueprintName: pulumi.Input<string>;
  /** Object ids of the users who sponsor the blueprint and every agent identity; at least one. */
  sponsors: pulumi.Input<string[]>;
  /** Verified domain of the tenant that every agent user's UPN ends with. */
  userDomain: string;
  /** The agents made from the blueprint: each gets its agent identity, agent user and grant. */
  agents: AgentSpec[];
  /** Default scopes of an agent that names none; Chat.Create, Chat.ReadWrite, ChatMessage.Send and User.Read by default. */
  scopes?: string[];
  /** The scopes an agent may hold; infra/scope-policy.ts's ALLOWED_SCOPES by default. */
  allowedScopes?: string[];
  /** appId of the resource API the scopes belong to; Microsoft Graph's by default. */
  resourceAppId?: string;
  /** How the blueprint proves itself in hop 1: "secret" (default), "managedIdentity" or "certificate". */
  credential?: CredentialMode;
  /** secret mode: RFC 3339 expiry of the client secret; Entra chooses when absent. */
  secretEndDate?: string;
  /** managedIdentity mode: principal (object) id of an existing managed identity to trust. */
  managedIdentityPrincipalId?: string;
  /** managedIdentity mode without managedIdentityPrincipalId: resource group of the identity to create. */
  resourceGroupName?: string;
  /** managedIdentity mode without managedIdentityPrincipalId: Azure region of the identity to create. */
  location?: string;
  /** certificate mode: the public certificate (PEM, no private key) to upload. */
  certificatePem?: string;
  /** Microsoft Graph base URL; https://graph.microsoft.com by default (the emulator's for local work). */
  graphUrl?: string;
  /** Identity provider base URL; https://login.microsoftonline.com by default. */
  authorityUrl?: string;
  /** How long a create waits for the object it depends on to replicate, in seconds (default 120). */
  consistencyWindowSeconds?: number;
  /**
   * Prefix the first agent's resources with `{name}` alone (`{name}-grant`
   * and so on), as one-agent stacks made before fleets did, so that they keep
   * their URNs. Other agents' are always prefixed `{name}-{agent}`.
   */
  singleAgentNames?: boolean;
}

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
export interface StackOutputs extends AgentOutputs {
  tenantId: pulumi.Output<string>;
  authorityUrl: pulumi.Output<string>;
  graphUrl: pulumi.Output<string>;
  resourceUrl: pulumi.Output<string>;
  blueprintAppId: pulumi.Output<string>;
  blueprintObjectId: pulumi.Output<string>;
  blueprintPrincipalId: pulumi.Output<string>;
  blueprintClientSecret?: pulumi.Output<string>;
  managedIdentityClientId?: pulumi.Output<string>;
  agents: pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>;
}

/** One agent's resources, in the order they are made. */
export interface AgentResources {
  identity: AgentIdentity;
  user: AgentUser;
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
  readonly outputs: StackOutputs;
  /** The blueprint component: application, principal and credential. */
  readonly blueprint: AgentIdentityBlueprint;
  /** The blueprint principal (also `blueprint.principal`). */
  readonly principal: AgentIdentityBlueprint["principal"];
  /** Each agent's identity, agent user and grant, by agent name. */
  readonly agents: Readonly<Record<string, AgentResources>>;

  constructor(name: string, args: AgentUserKitArgs, opts?: pulumi.ComponentResourceOptions) {
    const config = validateKitArgs(name, args);
    super(AGENT_USER_KIT_TYPE, name, {}, opts);
    const settings: ProvisioningSettings = {
      graphUrl: config.graphUrl,
      authorityUrl: config.authorityUrl,
      consistencyWindowMs: config.consistencyWindowMs,
      // The package version: a new version updates each resource's serialized provider in state, so deletes and refreshes run it.
      providerVersion: PACKAGE_VERSION,
    };
    // Outputs (unknown at preview) are passed through unchecked; plain values were checked above.
    const blueprintName = pulumi.Output.isInstance(args.blueprintName) ? args.blueprintName : config.blueprintName;
    const sponsors = isPlainList(args.sponsors) ? config.sponsors : args.sponsors;
    const tenantId = azuread.getClientConfigOutput({ parent: this }).tenantId;

    const blueprint = new AgentIdentityBlueprint(
      `${name}-blueprint`,
      { displayName: blueprintName, sponsors, credential: config.credential, tenantId, settings },
      { parent: this },
    );
    const agents = config.agents.map((agent, index) => {
      const prefix = index === 0 && args.singleAgentNames ? name : `${name}-${agent.name}`;
      const identity = new AgentIdentity(
        `${prefix}-identity`,
        { ...settings, displayName: agent.identityName, blueprintAppId: blueprint.appId, blueprintPrincipalId: blueprint.principalId, sponsors },
        { parent: this, aliases: doubledName(`${prefix}-identity`, AGENT_IDENTITY_TYPE, this) },
      );
      const user = new AgentUser(
        `${prefix}-user`,
        { ...settings, displayName: agent.userName, mailNickname: agent.userName, userPrincipalName: agent.userPrincipalName, identityParentId: identity.identityId },
        { parent: this, aliases: doubledName(`${prefix}-user`, AGENT_USER_TYPE, this) },
      );
      const grant = new AgentUserGrant(
        `${prefix}-grant`,
        { resourceAppId: config.resourceAppId, agentIdentityId: identity.identityId, agentUserId: user.userId, scopes: agent.scopes },
        { parent: this },
      );
      return { agent, identity, user, grant, outputs: agentOutputs(identity, user, grant) };
    });
    const first = agents[0]!;
    this.blueprint = blueprint;
    this.principal = blueprint.principal;
    this.agents = Object.fromEntries(agents.map(({ agent, identity, user, grant }) => [agent.name, { identity, user, grant }]));

    this.outputs = {
      tenantId,
      authorityUrl: pulumi.output(config.authorityUrl),
      graphUrl: pulumi.output(config.graphUrl),
      // Graph's tokens are for the configured Graph URL (the emulator's locally); other APIs name their own.
      resourceUrl: config.resourceAppId === MICROSOFT_GRAPH_APP_ID ? pulumi.output(config.graphUrl) : first.grant.resourceIdentifierUri,
      blueprintAppId: blueprint.appId,
      blueprintObjectId: blueprint.objectId,
      blueprintPrincipalId: blueprint.principalId,
      ...(blueprint.clientSecret ? { blueprintClientSecret: blueprint.clientSecret } : {}),
      ...(blueprint.managedIdentityClientId ? { managedIdentityClientId: blueprint.managedIdentityClientId } : {}),
      ...first.outputs,
      agents: pulumi.output(Object.fromEntries(agents.map((a) => [a.agent.name, a.outputs]))) as pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>,
    };
    this.registerOutputs({ ...this.outputs });
  }
}

function agentOutputs(identity: AgentIdentity, user: AgentUser, grant: AgentUserGrant): AgentOutputs {
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

const isPlainList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

/**
 * The arguments as the stack configuration's validator reads them, so the
 * component and the stack program check the same rules. An Output stands in
 * as a valid placeholder: it is unknown at preview, and Entra checks it.
 */
function validateKitArgs(name: string, args: AgentUserKitArgs): KitConfig {
  const raw: RawConfig = {
    blueprintName: typeof args.blueprintName === "string" ? args.blueprintName : "blueprint",
    sponsors: isPlainList(args.sponsors) ? args.sponsors : ["00000000-0000-0000-0000-000000000001"],
    userDomain: args.userDomain,
    agents: args.agents,
  };
  const optional: Array<[keyof AgentUserKitArgs & keyof RawConfig, unknown]> = [
    ["scopes", args.scopes],
    ["allowedScopes", args.allowedScopes],
    ["resourceAppId", args.resourceAppId],
    ["credential", args.credential],
    ["secretEndDate", args.secretEndDate],
    ["managedIdentityPrincipalId", args.managedIdentityPrincipalId],
    ["resourceGroupName", args.resourceGroupName],
    ["location", args.location],
    ["certificatePem", args.certificatePem],
    ["graphUrl", args.graphUrl],
    ["authorityUrl", args.authorityUrl],
    ["consistencyWindowSeconds", args.consistencyWindowSeconds],
  ];
  for (const [key, value] of optional) if (value !== undefined) (raw as Record<string, unknown>)[key] = value;
  return validateConfig(raw, new Date(), {
    prefix: `AgentUserKit ${JSON.stringify(name)}: `,
    hint: "fix the AgentUserKit arguments; README's \"Use it from code\" shows each one",
    agentsOnly: true,
  });
}
