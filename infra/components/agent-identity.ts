import * as pulumi from "@pulumi/pulumi";
import { AgentIdentity as AgentIdentityResource } from "../providers/agent-identity";
import type { ProvisioningSettings } from "./settings";

export const AGENT_IDENTITY_TYPE = "agent-user-kit:index:AgentIdentity";

export interface AgentIdentityArgs {
  /** Display name of the agent identity. */
  displayName: pulumi.Input<string>;
  /** appId of the blueprint the identity is made from. */
  blueprintAppId: pulumi.Input<string>;
  /** Object id of the blueprint principal; the identity is created only once it exists. */
  blueprintPrincipalId: pulumi.Input<string>;
  /** Object ids of the users who sponsor the identity; at least one. */
  sponsors: pulumi.Input<string[]>;
  /** Graph endpoint, replication window and provider version. */
  settings: ProvisioningSettings;
}

/** An agent identity: the client of hops 2 and 3 and of the delegated permission grant. */
export class AgentIdentity extends pulumi.ComponentResource {
  /** Object id (which is also its client id). */
  readonly identityId: pulumi.Output<string>;

  constructor(name: string, args: AgentIdentityArgs, opts?: pulumi.ComponentResourceOptions) {
    super(AGENT_IDENTITY_TYPE, name, {}, opts);
    const identity = new AgentIdentityResource(
      `${name}-identity`,
      {
        ...args.settings,
        displayName: args.displayName,
        blueprintAppId: args.blueprintAppId,
        blueprintPrincipalId: args.blueprintPrincipalId,
        sponsors: args.sponsors,
      },
      { parent: this },
    );
    this.identityId = identity.identityId;
    this.registerOutputs({ identityId: this.identityId });
  }
}
