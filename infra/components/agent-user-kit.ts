import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import { ConfigError, validateConfig, type AgentConfig, type ConfigKey, type ConfigSource, type CredentialMode, type KitConfig, type RawConfig } from "../config";
import { PACKAGE_VERSION } from "../../lib/version";
import { AgentIdentityBlueprint, type BlueprintCredentialArgs } from "./blueprint";
import { AgentUserGrant } from "./grant";
import type { ProvisioningSettings } from "./settings";
import { AgentIdentityResource, AgentUserResource } from "../providers/resources";
import { AGENT_IDENTITY_TYPE, AGENT_USER_TYPE } from "./unwrapped";

export const AGENT_USER_KIT_TYPE = "agent-user-kit:index:AgentUserKit";

/**
 * One agent of AgentUserKit. `name` is plain: it names the agent's resources,
 * which exist before any Output resolves.
 */
export interface AgentArgs {
  /** The agent's name: its key in `agents` and part of its resources' names. */
  name: string;
  /** Display name of the agent identity; the agent's name by default. */
  identityName?: pulumi.Input<string>;
  /** Mail nickname of the agent user and the part of its UPN before the @. */
  userName: pulumi.Input<string>;
  /** Delegated scopes of its grant; the kit's `scopes` by default. */
  scopes?: pulumi.Input<pulumi.Input<string>[]>;
}

/**
 * The arguments. Each value is a pulumi.Input. Which resources exist is plain:
 * the agents' names and the credential mode.
 */
export interface AgentUserKitArgs {
  /** Display name of the agent identity blueprint (at most 256 characters). */
  blueprintName: pulumi.Input<string>;
  /** Object ids of the users who sponsor the blueprint and every agent identity; at least one. */
  sponsors: pulumi.Input<pulumi.Input<string>[]>;
  /** Verified domain of the tenant that every agent user's UPN ends with. */
  userDomain: pulumi.Input<string>;
  /** The agents made from the blueprint: each gets its agent identity, agent user and grant. */
  agents: AgentArgs[];
  /** Default scopes of an agent that names none; Chat.Create, Chat.ReadWrite, ChatMessage.Send and User.Read by default. */
  scopes?: pulumi.Input<pulumi.Input<string>[]>;
  /** The scopes an agent may hold; infra/scope-policy.ts's ALLOWED_SCOPES by default. */
  allowedScopes?: pulumi.Input<pulumi.Input<string>[]>;
  /** appId of the resource API the scopes belong to; Microsoft Graph's by default. */
  resourceAppId?: pulumi.Input<string>;
  /**
   * How the blueprint proves itself in hop 1, in the shape AgentIdentityBlueprint
   * takes: `{ mode: "secret", endDate? }` (the default), `{ mode: "managedIdentity",
   * existingPrincipalId }`, `{ mode: "managedIdentity", newIdentity: { resourceGroupName,
   * location } }` or `{ mode: "certificate", certificatePem }` (its expiry is the
   * certificate's own). A mode name alone with the fields below is the earlier form, kept.
   */
  credential?: BlueprintCredentialArgs | CredentialMode;
  /** @deprecated use `credential: { mode: "secret", endDate }`. */
  secretEndDate?: pulumi.Input<string>;
  /** @deprecated use `credential: { mode: "managedIdentity", existingPrincipalId }`. */
  managedIdentityPrincipalId?: pulumi.Input<string>;
  /** @deprecated use `credential: { mode: "managedIdentity", newIdentity: { resourceGroupName, location } }`. */
  resourceGroupName?: pulumi.Input<string>;
  /** @deprecated use `credential: { mode: "managedIdentity", newIdentity: { resourceGroupName, location } }`. */
  location?: pulumi.Input<string>;
  /** @deprecated use `credential: { mode: "certificate", certificatePem }`. */
  certificatePem?: pulumi.Input<string>;
  /** Microsoft Graph base URL; https://graph.microsoft.com by default (the emulator's for local work). */
  graphUrl?: pulumi.Input<string>;
  /** Identity provider base URL; https://login.microsoftonline.com by default. */
  authorityUrl?: pulumi.Input<string>;
  /**
   * The audience of the blueprint's federated credential and of hop 1 (an
   * `api://` identifier); by default the authority's cloud's:
   * api://AzureADTokenExchange, or the US Government or China one.
   */
  tokenExchangeAudience?: pulumi.Input<string>;
  /** How long a create waits for the object it depends on to replicate, in seconds (default 120). */
  consistencyWindowSeconds?: pulumi.Input<number>;
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

  constructor(name: string, given: AgentUserKitArgs, opts?: pulumi.ComponentResourceOptions) {
    const args = withFlatCredential(name, given);
    // Plain values are checked now, so a mistake fails preview; the same checks run on every value once the Outputs resolve.
    checkKnownArgs(name, args);
    super(AGENT_USER_KIT_TYPE, name, {}, opts);
    const checked = pulumi.output(args as AgentUserKitArgsInput).apply((resolved) => validateKitArgs(name, resolved));
    const pick = <T>(read: (config: KitConfig) => T): pulumi.Output<T> => checked.apply(read);
    const settings: ProvisioningSettings = {
      graphUrl: pick((c) => c.graphUrl),
      authorityUrl: pick((c) => c.authorityUrl),
      consistencyWindowMs: pick((c) => c.consistencyWindowMs),
      // The package version: a new version updates each resource's serialized provider in state, so deletes and refreshes run it.
      providerVersion: PACKAGE_VERSION,
    };
    const sponsors = pick((c) => c.sponsors);
    const tenantId = azuread.getClientConfigOutput({ parent: this }).tenantId;

    const blueprint = new AgentIdentityBlueprint(
      `${name}-blueprint`,
      { displayName: pick((c) => c.blueprintName), sponsors, credential: credentialArgs(args, pick), tenantId, tokenExchangeAudience: pick((c) => c.tokenExchangeAudience), settings },
      { parent: this },
    );
    const agents = args.agents.map((agent, index) => {
      const prefix = index === 0 && args.singleAgentNames ? name : `${name}-${agent.name}`;
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
      return { agent, identity, user, grant, outputs: agentOutputs(identity, user, grant) };
    });
    const first = agents[0]!;
    this.blueprint = blueprint;
    this.principal = blueprint.principal;
    this.agents = Object.fromEntries(agents.map(({ agent, identity, user, grant }) => [agent.name, { identity, user, grant }]));

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
      agents: pulumi.output(Object.fromEntries(agents.map((a) => [a.agent.name, a.outputs]))) as pulumi.Output<Record<string, pulumi.Unwrap<AgentOutputs>>>,
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

type FlatArgs = Omit<AgentUserKitArgs, "credential"> & { credential?: CredentialMode };

const FLAT_CREDENTIAL_KEYS = ["secretEndDate", "managedIdentityPrincipalId", "resourceGroupName", "location", "certificatePem"] as const;

/**
 * The credential as the validator reads it (the stack configuration's flat
 * keys): one rule set checks both forms. Both forms at once is refused, since
 * one would silently win.
 */
function withFlatCredential(name: string, args: AgentUserKitArgs): FlatArgs {
  const credential = args.credential;
  if (credential === undefined || typeof credential === "string") return args as FlatArgs;
  const source = kitSource(name);
  const both = FLAT_CREDENTIAL_KEYS.filter((key) => args[key] !== undefined);
  if (both.length > 0) throw new ConfigError(both.map((key) => ({ key, message: "is the earlier form of credential: give it inside credential, not beside it" })), source);
  const flat: FlatArgs = { ...args, credential: credential.mode };
  if (credential.mode === "secret") flat.secretEndDate = credential.endDate;
  else if (credential.mode === "certificate") {
    if (credential.endDate !== undefined) throw new ConfigError([{ key: "credential", message: "endDate is the certificate's own expiry here: leave it out" }], source);
    flat.certificatePem = credential.certificatePem;
  } else if ("existingPrincipalId" in credential) flat.managedIdentityPrincipalId = credential.existingPrincipalId;
  else Object.assign(flat, { resourceGroupName: credential.newIdentity.resourceGroupName, location: credential.newIdentity.location });
  return flat;
}

/** The arguments with every Input resolved, as the apply-time check reads them. */
type AgentUserKitArgsInput = pulumi.Unwrap<FlatArgs>;
type Resolved = pulumi.UnwrappedObject<FlatArgs>;

/**
 * The blueprint credential: its mode, and which managed identity variant, are
 * plain (they decide which resources exist); its values come from the checked
 * arguments.
 */
function credentialArgs(args: FlatArgs, pick: <T>(read: (config: KitConfig) => T) => pulumi.Output<T>): BlueprintCredentialArgs {
  const field = <T>(read: (credential: Record<string, unknown>) => T) => pick((c) => read(c.credential as unknown as Record<string, unknown>));
  switch (args.credential ?? "secret") {
    case "secret":
      return { mode: "secret", endDate: field((c) => c.endDate as string | undefined) as pulumi.Output<string> };
    case "certificate":
      return { mode: "certificate", certificatePem: field((c) => c.certificatePem as string), endDate: field((c) => c.endDate as string) };
    case "managedIdentity":
      return args.managedIdentityPrincipalId !== undefined
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

/** Keys whose check also reads other keys: unknown while any of those is. */
const READS: Partial<Record<ConfigKey, readonly ConfigKey[]>> = {
  agents: ["userDomain", "scopes", "allowedScopes"],
  scopes: ["allowedScopes"],
};
const CREDENTIAL_KEYS: readonly ConfigKey[] = ["credential", "secretEndDate", "managedIdentityPrincipalId", "resourceGroupName", "location", "certificatePem"];

/** Whether a value holds an Output anywhere (an Output, or a list or agent with one inside). */
function holdsOutput(value: unknown): boolean {
  if (pulumi.Output.isInstance(value) || value instanceof Promise) return true;
  if (Array.isArray(value)) return value.some(holdsOutput);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsOutput);
  return false;
}

/**
 * The check of validateKitArgs on the values known now: those holding an
 * Output are left out, and so are the problems of every key whose check
 * reads one of them. The rest fails here, before any resource is registered.
 */
function checkKnownArgs(name: string, args: FlatArgs): void {
  const known: Record<string, unknown> = {};
  const unknown = new Set<ConfigKey>();
  for (const [key, value] of Object.entries(args)) {
    if (holdsOutput(value)) unknown.add(key as ConfigKey);
    else known[key] = value;
  }
  if (CREDENTIAL_KEYS.some((key) => unknown.has(key))) for (const key of CREDENTIAL_KEYS) unknown.add(key);
  for (const [key, reads] of Object.entries(READS)) if (reads.some((read) => unknown.has(read))) unknown.add(key as ConfigKey);
  try {
    validateKitArgs(name, known as Resolved);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const problems = err.problems.filter((problem) => !unknown.has(problem.key));
    if (problems.length > 0) throw new ConfigError(problems, kitSource(name));
  }
}

function kitSource(name: string): ConfigSource {
  return {
    prefix: `AgentUserKit ${JSON.stringify(name)}: `,
    hint: "fix the AgentUserKit arguments; docs/pulumi.md, \"The components\", lists each one",
    agentsOnly: true,
  };
}

/**
 * The arguments as the stack configuration's validator reads them, so the
 * component and the stack program check the same rules: on the values known
 * at construction, and on all of them once the Outputs resolve.
 */
function validateKitArgs(name: string, args: Resolved): KitConfig {
  const raw: RawConfig = {};
  const keys: Array<keyof FlatArgs & keyof RawConfig> = [
    "blueprintName",
    "sponsors",
    "userDomain",
    "agents",
    "scopes",
    "allowedScopes",
    "resourceAppId",
    "credential",
    "secretEndDate",
    "managedIdentityPrincipalId",
    "resourceGroupName",
    "location",
    "certificatePem",
    "graphUrl",
    "authorityUrl",
    "tokenExchangeAudience",
    "consistencyWindowSeconds",
  ];
  for (const key of keys) if (args[key] !== undefined) (raw as Record<string, unknown>)[key] = args[key];
  return validateConfig(raw, new Date(), kitSource(name));
}
