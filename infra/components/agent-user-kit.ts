import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID, type KitConfig } from "../config";
import { AgentIdentityComponent } from "./agent-identity";
import { AgentUserComponent } from "./agent-user";
import { BlueprintComponent } from "./blueprint";
import { GrantComponent } from "./grant";
import type { ProvisioningSettings } from "./settings";

export const AGENT_USER_KIT_TYPE = "agent-user-kit:index:AgentUserKit";

export interface AgentUserKitArgs {
  /** Validated configuration (see infra/config.ts); validation happens before this component exists. */
  config: KitConfig;
  /** The package version, carried by every dynamic resource. */
  providerVersion: string;
}

/**
 * The values `agent-user token --outputs` reads, under the names it reads
 * them by. The two credential outputs exist only in their credential mode.
 */
export interface StackOutputs {
  tenantId: pulumi.Output<string>;
  authorityUrl: pulumi.Output<string>;
  graphUrl: pulumi.Output<string>;
  resourceUrl: pulumi.Output<string>;
  blueprintAppId: pulumi.Output<string>;
  blueprintObjectId: pulumi.Output<string>;
  blueprintPrincipalId: pulumi.Output<string>;
  blueprintClientSecret?: pulumi.Output<string>;
  managedIdentityClientId?: pulumi.Output<string>;
  agentIdentityId: pulumi.Output<string>;
  agentUserId: pulumi.Output<string>;
  agentUserPrincipalName: pulumi.Output<string>;
  grantId: pulumi.Output<string>;
  grantScopes: pulumi.Output<string>;
}

/**
 * Everything the hop chain needs, in order: blueprint and principal (with the
 * blueprint's credential), agent identity, agent user, and the grant. Each
 * step takes the previous step's ids as inputs, so Pulumi creates them in
 * that order and destroys them in reverse.
 */
export class AgentUserKit extends pulumi.ComponentResource {
  readonly outputs: StackOutputs;

  constructor(name: string, args: AgentUserKitArgs, opts?: pulumi.ComponentResourceOptions) {
    super(AGENT_USER_KIT_TYPE, name, {}, opts);
    const config = args.config;
    const settings: ProvisioningSettings = {
      graphUrl: config.graphUrl,
      authorityUrl: config.authorityUrl,
      consistencyWindowMs: config.consistencyWindowMs,
      providerVersion: args.providerVersion,
    };
    const tenantId = azuread.getClientConfigOutput({ parent: this }).tenantId;

    const blueprint = new BlueprintComponent(
      `${name}-blueprint`,
      { displayName: config.blueprintName, sponsors: config.sponsors, credential: config.credential, tenantId, settings },
      { parent: this },
    );
    const identity = new AgentIdentityComponent(
      `${name}-identity`,
      {
        displayName: config.agentIdentityName,
        blueprintAppId: blueprint.appId,
        blueprintPrincipalId: blueprint.principalId,
        sponsors: config.sponsors,
        settings,
      },
      { parent: this },
    );
    const user = new AgentUserComponent(
      `${name}-user`,
      {
        displayName: config.agentUserName,
        mailNickname: config.agentUserName,
        userPrincipalName: config.userPrincipalName,
        identityParentId: identity.identityId,
        settings,
      },
      { parent: this },
    );
    const grant = new GrantComponent(
      `${name}-grant`,
      { resourceAppId: config.resourceAppId, agentIdentityId: identity.identityId, agentUserId: user.userId, scopes: config.scopes },
      { parent: this },
    );

    this.outputs = {
      tenantId,
      authorityUrl: pulumi.output(config.authorityUrl),
      graphUrl: pulumi.output(config.graphUrl),
      // Graph's tokens are for the configured Graph URL (the emulator's locally); other APIs name their own.
      resourceUrl: config.resourceAppId === MICROSOFT_GRAPH_APP_ID ? pulumi.output(config.graphUrl) : grant.resourceIdentifierUri,
      blueprintAppId: blueprint.appId,
      blueprintObjectId: blueprint.objectId,
      blueprintPrincipalId: blueprint.principalId,
      ...(blueprint.clientSecret ? { blueprintClientSecret: blueprint.clientSecret } : {}),
      ...(blueprint.managedIdentityClientId ? { managedIdentityClientId: blueprint.managedIdentityClientId } : {}),
      agentIdentityId: identity.identityId,
      agentUserId: user.userId,
      agentUserPrincipalName: user.userPrincipalName,
      grantId: grant.grantId,
      grantScopes: grant.scopes,
    };
    this.registerOutputs({ ...this.outputs });
  }
}
