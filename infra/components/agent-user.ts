import * as pulumi from "@pulumi/pulumi";
import { AgentUser as AgentUserResource } from "../providers/agent-user";
import type { ProvisioningSettings } from "./settings";

export const AGENT_USER_TYPE = "agent-user-kit:index:AgentUser";

export interface AgentUserArgs {
  /** Display name of the agent user. */
  displayName: pulumi.Input<string>;
  /** Mail nickname (at most 64 characters). */
  mailNickname: pulumi.Input<string>;
  /** UPN on a verified domain of the tenant. */
  userPrincipalName: pulumi.Input<string>;
  /** Object id of the agent identity that owns the user (one agent user per identity). */
  identityParentId: pulumi.Input<string>;
  /** Graph endpoint, replication window and provider version. */
  settings: ProvisioningSettings;
}

/** The agent user: the user a hop-3 token acts as. */
export class AgentUser extends pulumi.ComponentResource {
  /** Object id: `user_id` of hop 3 and principal of the grant. */
  readonly userId: pulumi.Output<string>;
  readonly userPrincipalName: pulumi.Output<string>;

  constructor(name: string, args: AgentUserArgs, opts?: pulumi.ComponentResourceOptions) {
    super(AGENT_USER_TYPE, name, {}, opts);
    const user = new AgentUserResource(
      `${name}-user`,
      {
        ...args.settings,
        displayName: args.displayName,
        mailNickname: args.mailNickname,
        userPrincipalName: args.userPrincipalName,
        identityParentId: args.identityParentId,
      },
      { parent: this },
    );
    this.userId = user.userId;
    this.userPrincipalName = user.userPrincipalName;
    this.registerOutputs({ userId: this.userId, userPrincipalName: this.userPrincipalName });
  }
}
