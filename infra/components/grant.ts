import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";

export const GRANT_TYPE = "agent-user-kit:index:Grant";

export interface AgentUserGrantArgs {
  /** appId of the resource API the scopes belong to (Microsoft Graph's by default). */
  resourceAppId: pulumi.Input<string>;
  /** Object id of the agent identity: the client the grant authorizes. */
  agentIdentityId: pulumi.Input<string>;
  /** Object id of the agent user: the one principal the grant is for (consent type Principal). */
  agentUserId: pulumi.Input<string>;
  /** Delegated scopes to grant, each one a claim value. */
  scopes: pulumi.Input<string[]>;
}

/**
 * The delegated permission grant hop 3 needs: the agent identity may act as
 * the agent user on the resource API with these scopes.
 */
export class AgentUserGrant extends pulumi.ComponentResource {
  readonly grantId: pulumi.Output<string>;
  /** The granted scopes as Graph stores them: one space-separated string. */
  readonly scopes: pulumi.Output<string>;
  /** Object id of the resource API's service principal, found by lookup. */
  readonly resourceServicePrincipalId: pulumi.Output<string>;
  /** The resource's identifier URI (e.g. https://graph.microsoft.com), for `{resource}/.default`. */
  readonly resourceIdentifierUri: pulumi.Output<string>;
  /** The azuread grant itself. */
  readonly grant: azuread.ServicePrincipalDelegatedPermissionGrant;

  constructor(name: string, args: AgentUserGrantArgs, opts?: pulumi.ComponentResourceOptions) {
    super(GRANT_TYPE, name, {}, opts);
    // A lookup, never a managed resource: destroy must not touch the resource API's own principal.
    const resource = azuread.getServicePrincipalOutput({ clientId: args.resourceAppId }, { parent: this });
    const grant = new azuread.ServicePrincipalDelegatedPermissionGrant(
      name,
      {
        servicePrincipalObjectId: args.agentIdentityId,
        resourceServicePrincipalObjectId: resource.objectId,
        userObjectId: args.agentUserId,
        claimValues: args.scopes,
      },
      // Named `{name}-grant` until the doubled suffix went: the alias keeps existing stacks' grant.
      { parent: this, aliases: [{ name: `${name}-grant` }] },
    );
    this.grant = grant;
    this.grantId = grant.id;
    this.scopes = grant.claimValues.apply((values) => values.join(" "));
    this.resourceServicePrincipalId = resource.objectId;
    this.resourceIdentifierUri = resource.apply((sp) => sp.servicePrincipalNames.find((n) => n.includes("://")) ?? sp.clientId);
    this.registerOutputs({
      grantId: this.grantId,
      scopes: this.scopes,
      resourceServicePrincipalId: this.resourceServicePrincipalId,
      resourceIdentifierUri: this.resourceIdentifierUri,
    });
  }
}
