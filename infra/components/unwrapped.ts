import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "../providers/resources";
import type { GraphResourceInputs, ResourceArgs } from "../providers/inputs";
import type { ProvisioningSettings } from "../providers/inputs";

/*
 * AgentIdentity and AgentUser were components that each wrapped one dynamic
 * resource and added nothing. The resource now stands in the wrapper's place,
 * under the name it had inside it, aliased from its URN there: Pulumi moves
 * the Graph object to the new URN instead of replacing it, so stacks made
 * before keep their agent identities and agent users.
 */

/** The type of the AgentIdentity component, which the alias URNs name. */
export const AGENT_IDENTITY_TYPE = "agent-user-kit:index:AgentIdentity";
/** The type of the AgentUser component, which the alias URNs name. */
export const AGENT_USER_TYPE = "agent-user-kit:index:AgentUser";

/**
 * `opts` for a resource that stood inside the wrapper `wrapper` of type
 * `type`, a child of `opts.parent`: it is aliased from its URN there.
 */
function unwrapped<O extends pulumi.ResourceOptions>(wrapper: string, type: string, opts: O): O {
  return { ...opts, aliases: [...(opts.aliases ?? []), { parent: pulumi.createUrn(wrapper, type, opts.parent) }] };
}

/** The settings as one argument, and the resource's own inputs beside it, as the components took them. */
type WrapperArgs<T extends GraphResourceInputs> = Omit<ResourceArgs<T>, keyof GraphResourceInputs> & {
  /** Graph endpoint, consistency window and provider version. */
  settings: ProvisioningSettings;
};

export type AgentIdentityArgs = WrapperArgs<dynamic.AgentIdentityInputs>;
export type AgentUserArgs = WrapperArgs<dynamic.AgentUserInputs>;

/**
 * The agent identity `{name}-identity`, named and aliased as the AgentIdentity
 * component made it: what AgentUserKit makes, and what programs written
 * against the component keep, with their stacks. New code may use
 * `dynamic.AgentIdentityResource`, with the settings among its inputs.
 */
export class AgentIdentity extends dynamic.AgentIdentityResource {
  constructor(name: string, { settings, ...own }: AgentIdentityArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(`${name}-identity`, { ...settings, ...own }, unwrapped(name, AGENT_IDENTITY_TYPE, opts));
  }
}

/**
 * The agent user `{name}-user`, named and aliased as the AgentUser component
 * made it: what AgentUserKit makes, and what programs written against the
 * component keep, with their stacks. New code may use
 * `dynamic.AgentUserResource`, with the settings among its inputs.
 */
export class AgentUser extends dynamic.AgentUserResource {
  constructor(name: string, { settings, ...own }: AgentUserArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(`${name}-user`, { ...settings, ...own }, unwrapped(name, AGENT_USER_TYPE, opts));
  }
}
