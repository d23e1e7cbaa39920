import { printable, quoteValue } from "../lib/printable";

/** The stack configuration's keys and their raw form, as Pulumi hands them over. */

/** The project's configuration namespace: keys are `agent-user-kit:<key>`. */
export const CONFIG_NAMESPACE = "agent-user-kit";

export const CONFIG_KEYS = [
  "userDomain",
  "blueprintName",
  "agentIdentityName",
  "agentUserName",
  "sponsors",
  "scopes",
  "allowedScopes",
  "resourceAppId",
  "credential",
  "managedIdentityPrincipalId",
  "resourceGroupName",
  "location",
  "certificatePem",
  "secretEndDate",
  "graphUrl",
  "authorityUrl",
  "tokenExchangeAudience",
  "consistencyWindowSeconds",
  "agents",
  "onBehalfOfScope",
  "onBehalfOfClients",
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Configuration as Pulumi hands it over (lists arrive JSON-encoded), or as a test writes it. */
export type RawConfig = Partial<Record<ConfigKey, string | readonly string[] | number | readonly AgentSpec[]>>;

/** One agent of a fleet: its identity, its agent user and their grant. */
export interface AgentSpec {
  /** The agent's name: its key in the `agents` stack output and in `--agent`, and part of its resources' names. */
  name: string;
  /** Display name of the agent identity; the agent's name by default. */
  identityName?: string;
  /** Mail nickname of the agent user and the part of its UPN before the @. */
  userName: string;
  /** Delegated scopes of its grant; the stack's `scopes` by default. */
  scopes?: string[];
  /**
   * Opt-in: application permissions (app roles) its agent identity holds, per
   * resource API by appId, e.g. [{ resource: "00000003-0000-0000-c000-000000000000", roles: ["User.Read.All"] }].
   * The provisioner then needs AppRoleAssignment.ReadWrite.All.
   */
  appRoles?: Array<{ resource: string; roles: string[] }>;
  /**
   * Opt-in, with the stack's onBehalfOfScope: delegated scopes on the
   * resource API its agent identity may use for any signed-in person (the
   * on-behalf-of flow), consented for all users; each must be in allowedScopes.
   */
  onBehalfOfScopes?: string[];
}

/** Records one problem with a key; validation goes on to report every problem at once. */
export interface Fail {
  (key: ConfigKey, message: string): void;
  /** Whether the key's value holds a Pulumi secret: a problem with it names the key and the problem, never the value. */
  readonly secret: (key: ConfigKey) => boolean;
}

/** What a problem shows in place of a secret value: nothing of it, as Pulumi's own output shows one. */
export const SECRET_VALUE = "[secret]";

/** A value at fault as a problem with `key` quotes it: quoteValue's quote, or SECRET_VALUE when the key is a secret. */
export function quoted(fail: Fail, key: ConfigKey, value: unknown): string {
  return fail.secret(key) ? SECRET_VALUE : quoteValue(value);
}

/** A name from the value at fault as a problem with `key` shows it unquoted: printable, or SECRET_VALUE when the key is a secret. */
export function named(fail: Fail, key: ConfigKey, name: string): string {
  return fail.secret(key) ? SECRET_VALUE : printable(name);
}

/** A field's name from outside as a problem names it: bare when it is a plain identifier, else quoted (printable and bounded, as quoteValue quotes). */
export function fieldName(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/.test(name) ? name : quoteValue(name);
}
