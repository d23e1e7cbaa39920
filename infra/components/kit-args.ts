import * as pulumi from "@pulumi/pulumi";
import { ConfigError, STACK_CONFIG, validateConfig, type ConfigKey, type ConfigSource, type CredentialMode, type KitConfig, type RawConfig } from "../config";
import { isObject } from "../../lib/json-value";
import type { AppRoleOutputs } from "../../lib/stack-outputs";
import { appRoleList } from "../config-agents";
import type { BlueprintCredentialArgs } from "./blueprint";
import { MAX_INPUT_DEPTH, nestsDeeperThan, TOO_DEEP } from "./input-depth";
import { isPending } from "./pending";

/*
 * AgentUserKit's two inputs, the component's arguments and the stack
 * program's configuration, and how each is checked once against the stack
 * configuration's rules (config.ts) before any resource is registered.
 */

/** Application permissions an agent identity holds on one resource API. */
export interface AppRoleArgs {
  /** appId of the resource API's service principal, e.g. Microsoft Graph's 00000003-0000-0000-c000-000000000000. */
  resource: string;
  /** The app roles' values on that resource, e.g. User.Read.All. */
  roles: string[];
}

/** One agent of AgentUserKit. */
export interface AgentArgs {
  /**
   * The agent's name: its key in `agents` and part of its resources' names.
   * An Output here defers every agent's identity, user and grant until it
   * resolves: a preview while it is unknown cannot list them.
   */
  name: pulumi.Input<string>;
  /** Display name of the agent identity; the agent's name by default. */
  identityName?: pulumi.Input<string>;
  /** Mail nickname of the agent user and the part of its UPN before the @. */
  userName: pulumi.Input<string>;
  /** Delegated scopes of its grant; the kit's `scopes` by default. */
  scopes?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Opt-in: the application permissions (app roles) its agent identity holds,
   * per resource API by appId, e.g. `[{ resource: "00000003-0000-0000-c000-000000000000",
   * roles: ["User.Read.All"] }]`: each an azuread AppRoleAssignment, made and
   * removed with the agent. The provisioner then needs
   * AppRoleAssignment.ReadWrite.All, whose holder can grant itself any app role.
   * An Output here defers the agents' resources as an Output in `agents` does.
   */
  appRoles?: pulumi.Input<AppRoleArgs[]>;
  /**
   * Opt-in, with the kit's `onBehalfOfScope`: the delegated scopes on the
   * resource API (`resourceAppId`) its agent identity may use for any
   * signed-in person, the on-behalf-of flow's consent (an AllPrincipals
   * grant); each must be in `allowedScopes`. An Output here defers the agents' resources.
   */
  onBehalfOfScopes?: pulumi.Input<string[]>;
}

/**
 * The arguments. Each value is a pulumi.Input. Those that decide which
 * resources exist (the agents and their names, `singleAgentNames`, the
 * credential's mode) may be Outputs too: the resources they decide are then
 * registered once they resolve, under the names plain values would give.
 */
export interface AgentUserKitArgs {
  /** Display name of the agent identity blueprint (at most 256 characters). */
  blueprintName: pulumi.Input<string>;
  /** Object ids of the users who sponsor the blueprint and every agent identity; at least one. */
  sponsors: pulumi.Input<pulumi.Input<string>[]>;
  /** Verified domain of the tenant that every agent user's UPN ends with. */
  userDomain: pulumi.Input<string>;
  /**
   * The agents made from the blueprint: each gets its agent identity, agent
   * user and grant. An Output for the list or for an agent defers every
   * agent's resources until it resolves (a preview while it is unknown cannot
   * list them, and in TypeScript the component's `agents` throws: read
   * `agentResources`); an Output for a field other than `name` defers nothing.
   */
  agents: pulumi.Input<pulumi.Input<AgentArgs>[]>;
  /** Default scopes of an agent that names none; Chat.Create, Chat.ReadWrite, ChatMessage.Send and User.Read by default. */
  scopes?: pulumi.Input<pulumi.Input<string>[]>;
  /** The scopes an agent may hold; by default the kit's ALLOWED_SCOPES: Chat.Create, Chat.ReadWrite, ChatMessage.Send, User.Read, Files.Read.All and Sites.Read.All. */
  allowedScopes?: pulumi.Input<pulumi.Input<string>[]>;
  /** appId of the resource API the scopes belong to; Microsoft Graph's by default. */
  resourceAppId?: pulumi.Input<string>;
  /**
   * How the blueprint proves itself in hop 1, in the shape AgentIdentityBlueprint
   * takes: `{ mode: "secret", endDate? }` (the default), `{ mode: "managedIdentity",
   * existingPrincipalId }`, `{ mode: "managedIdentity", newIdentity: { resourceGroupName,
   * location } }` or `{ mode: "certificate", certificatePem }` (its expiry is the
   * certificate's own). A mode name alone with the fields below is the earlier form, kept.
   * An Output for the whole credential defers the credential resource (password,
   * federated credential and managed identity, or certificate) until it resolves:
   * a preview while it is unknown cannot list it. An Output inside it defers nothing.
   */
  credential?: pulumi.Input<BlueprintCredentialArgs> | CredentialMode;
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
   * Opt-in on-behalf-of: the delegated scope the blueprint exposes (e.g.
   * access_agent), with the identifier URI `api://{appId}`, so that a
   * person's token can name the blueprint as its audience. The provisioner
   * then needs AgentIdentityBlueprint.UpdateAuthProperties.All.
   */
  onBehalfOfScope?: pulumi.Input<string>;
  /** With `onBehalfOfScope`: appIds of client apps (the agent's front end) pre-authorized for it, so their users are not asked to consent. */
  onBehalfOfClients?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Prefix the first agent's resources with `{name}` alone (`{name}-grant`
   * and so on), as one-agent stacks made before fleets did, so that they keep
   * their URNs. Other agents' are always prefixed `{name}-{agent}`. An Output
   * here defers every agent's resources as an Output in `agents` does.
   */
  singleAgentNames?: pulumi.Input<boolean>;
}

/**
 * The stack program's configuration as Pulumi hands it over: the kit checks
 * it once, as the stack's keys (the one-agent keys included), and each
 * problem names its `agent-user-kit:` key.
 */
export interface AgentUserKitStackConfig {
  stackConfig: RawConfig;
  /** The file the keys were set in, e.g. `Pulumi.dev.yaml`, for the hint of a problem. */
  stackFile?: string;
}

/** What decides the agents' resources: their names in order, whether the first keeps the one-agent names, and each agent's opt-in resources. */
export interface AgentLayout {
  names: readonly string[];
  singleAgentNames: boolean;
  /** Per agent, in order: the app roles its identity is assigned (one resource each), and whether it consents to act for people. */
  features: ReadonlyArray<{ appRoles: AppRoleOutputs[]; onBehalfOf: boolean }>;
}

/** What decides the credential resource: the mode, and whether a managed identity is an existing one. */
export interface CredentialLayout {
  mode: CredentialMode;
  existingPrincipal: boolean;
}

/**
 * The checked configuration every value comes from, and what decides which
 * resources exist: known at construction, or (from the arguments' Outputs)
 * once they resolve and pass the checks.
 */
export interface KitPlan {
  checked: pulumi.Output<KitConfig>;
  agents: AgentLayout | pulumi.Output<AgentLayout>;
  /** Absent when the credential is an Output: the checked configuration's credential then decides. */
  credential?: CredentialLayout;
  /** Whether the blueprint exposes an API (`onBehalfOfScope` given): an Output for it must resolve to a scope. */
  exposesApi: boolean;
}

/**
 * The stack configuration, all plain values: checked once, now, so a mistake
 * fails preview before any resource is registered. A stack configured with
 * the one-agent keys keeps the resource names it had before fleets.
 */
export function stackPlan(given: AgentUserKitStackConfig): KitPlan {
  const source = given.stackFile === undefined ? STACK_CONFIG : { ...STACK_CONFIG, hint: `in ${given.stackFile}: ${STACK_CONFIG.hint}` };
  const config = validateConfig(given.stackConfig, new Date(), source);
  return {
    checked: pulumi.output(config) as pulumi.Output<KitConfig>,
    agents: {
      names: config.agents.map((agent) => agent.name),
      singleAgentNames: config.shorthand,
      features: config.agents.map((agent) => ({ appRoles: agent.appRoles, onBehalfOf: agent.onBehalfOfScopes.length > 0 })),
    },
    credential: { mode: config.credential.mode, existingPrincipal: "existingPrincipalId" in config.credential },
    exposesApi: config.onBehalfOf !== undefined,
  };
}

/**
 * The arguments: plain values are checked now, so a mistake fails preview;
 * the same checks run on every value once the Outputs resolve, and what an
 * Output decides is known only after they pass.
 */
export function argsPlan(name: string, given: AgentUserKitArgs): KitPlan {
  refuseDeepArgs(name, given);
  const args = withFlatCredential(name, given);
  checkKnownArgs(name, args);
  const resolved = pulumi.output(given) as pulumi.Output<ResolvedArgs>;
  const checked = pulumi.all([resolved, secretKeys(args)]).apply(([values, secret]) => validateKitArgs(name, withFlatCredential(name, values as ResolvedArgs) as Resolved, secret));
  return {
    checked,
    // The layout is names, which go into URNs, plain whatever else in the arguments is secret.
    agents: knownAgents(given) ?? pulumi.unsecret(pulumi.all([resolved, checked]).apply(([values]) => agentLayout(values.agents, values.singleAgentNames))),
    ...knownCredential(args),
    exposesApi: given.onBehalfOfScope !== undefined,
  };
}

/** The credential's layout when the credential is not an Output. */
function knownCredential(args: FlatArgs): { credential?: CredentialLayout } {
  const mode = args.credential ?? "secret";
  return isPending(mode) ? {} : { credential: { mode, existingPrincipal: args.managedIdentityPrincipalId !== undefined } };
}

/**
 * The agents' layout when nothing in it is an Output (the list, an agent, a
 * name, singleAgentNames). An agent that is not an object is left to the
 * check once the Outputs beside it resolve, which names it.
 */
function knownAgents(given: AgentUserKitArgs): AgentLayout | undefined {
  const agents = given.agents;
  if (!Array.isArray(agents) || isPending(given.singleAgentNames)) return undefined;
  const decided = (agent: unknown) => isObject(agent) && !isPending(agent) && !isPending(agent.name) && !holdsOutput(agent.appRoles) && !holdsOutput(agent.onBehalfOfScopes);
  if (!agents.every(decided)) return undefined;
  return agentLayout(agents as LayoutAgent[], given.singleAgentNames as boolean | undefined);
}

/** What of an agent decides its resources. */
type LayoutAgent = { name: string; appRoles?: unknown; onBehalfOfScopes?: unknown };

function agentLayout(agents: readonly LayoutAgent[], singleAgentNames: boolean | undefined): AgentLayout {
  // The same normalization as the check's: a layout never names a resource the checked configuration has not.
  const appRolesOf = (agent: LayoutAgent) => {
    const roles = appRoleList(agent.appRoles);
    return "appRoles" in roles ? roles.appRoles : [];
  };
  const consents = (agent: LayoutAgent) => Array.isArray(agent.onBehalfOfScopes) && agent.onBehalfOfScopes.length > 0;
  return {
    names: agents.map((agent) => agent.name),
    singleAgentNames: singleAgentNames === true,
    features: agents.map((agent) => ({ appRoles: appRolesOf(agent), onBehalfOf: consents(agent) })),
  };
}

/** The flat form, and an Output credential kept whole until it resolves (its keys are unknown until then). */
type FlatArgs = Omit<AgentUserKitArgs, "credential"> & { credential?: CredentialMode | pulumi.Output<BlueprintCredentialArgs> | Promise<BlueprintCredentialArgs> };

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
  if (isPending(credential)) return args as FlatArgs;
  const flat: FlatArgs = { ...args, credential: credential.mode };
  // A mode that is none of these (from a program without TypeScript's types) is left to the check, which names it.
  if (credential.mode === "secret") flat.secretEndDate = credential.endDate;
  else if (credential.mode === "certificate") {
    if (credential.endDate !== undefined) throw new ConfigError([{ key: "credential", message: "endDate is the certificate's own expiry here: leave it out" }], source);
    flat.certificatePem = credential.certificatePem;
  } else if (credential.mode === "managedIdentity") {
    if ("existingPrincipalId" in credential) flat.managedIdentityPrincipalId = credential.existingPrincipalId;
    else if (isObject(credential.newIdentity)) Object.assign(flat, { resourceGroupName: credential.newIdentity.resourceGroupName, location: credential.newIdentity.location });
  }
  return flat;
}

/**
 * The keys of the flat arguments whose value holds a Pulumi secret anywhere
 * (a secret Output, or a list or object with one inside): a problem with one
 * names the key, never the value. A credential given whole as an Output is
 * flattened only once it resolves, so its secret covers every credential key.
 */
async function secretKeys(args: FlatArgs): Promise<ConfigKey[]> {
  const entries = Object.entries(args) as Array<[ConfigKey, unknown]>;
  const secret = await Promise.all(entries.map(async ([key, value]) => ((await pulumi.isSecret(pulumi.output(value))) ? [key] : [])));
  const keys = secret.flat();
  return keys.includes("credential") ? [...new Set([...keys, ...CREDENTIAL_KEYS])] : keys;
}

/** The arguments with every Input resolved, before and after the credential is flattened. */
type ResolvedArgs = pulumi.UnwrappedObject<AgentUserKitArgs>;
type Resolved = pulumi.UnwrappedObject<Omit<AgentUserKitArgs, "credential"> & { credential?: CredentialMode }>;

/** Keys whose check also reads other keys: unknown while any of those is. */
const READS: Partial<Record<ConfigKey, readonly ConfigKey[]>> = {
  agents: ["userDomain", "scopes", "allowedScopes", "onBehalfOfScope"],
  scopes: ["allowedScopes"],
  onBehalfOfClients: ["onBehalfOfScope", "agents"],
};
const CREDENTIAL_KEYS: readonly ConfigKey[] = ["credential", "secretEndDate", "managedIdentityPrincipalId", "resourceGroupName", "location", "certificatePem"];

/**
 * Whether a value holds an Output anywhere (an Output, or a list or agent with
 * one inside), looking no deeper than `depth` containers: refuseDeepArgs has
 * refused any argument that nests deeper.
 */
function holdsOutput(value: unknown, depth = MAX_INPUT_DEPTH): boolean {
  if (isPending(value)) return true;
  if (depth === 0 || value === null || typeof value !== "object") return false;
  return Object.values(value).some((item) => holdsOutput(item, depth - 1));
}

/**
 * Refuses, by name, each argument that nests deeper than any the kit takes,
 * before anything (Pulumi's unwrapping first) walks the arguments.
 */
export function refuseDeepArgs(name: string, args: object): void {
  // An argument's name is a configuration key, or one of the component's own (singleAgentNames).
  const deep = Object.entries(args).filter(([, value]) => nestsDeeperThan(value));
  if (deep.length > 0) throw new ConfigError(deep.map(([key]) => ({ key: key as ConfigKey, message: TOO_DEEP })), kitSource(name));
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

/** Where the problems of a component's arguments come from, for their messages. */
export function kitSource(name: string): ConfigSource {
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
function validateKitArgs(name: string, args: Resolved, secret: readonly ConfigKey[] = []): KitConfig {
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
    "onBehalfOfScope",
    "onBehalfOfClients",
  ];
  for (const key of keys) if (args[key] !== undefined) (raw as Record<string, unknown>)[key] = args[key];
  return validateConfig(raw, new Date(), kitSource(name), secret);
}
