import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";

export const ON_BEHALF_OF_CONSENT_TYPE = "agent-user-kit:index:OnBehalfOfConsent";

export interface OnBehalfOfConsentArgs {
  /** appId of the resource API the scopes belong to (the kit's `resourceAppId`). */
  resourceAppId: pulumi.Input<string>;
  /** Object id of the agent identity: the client the consent authorizes. */
  agentIdentityId: pulumi.Input<string>;
  /** Delegated scopes it may use for any signed-in person. */
  scopes: pulumi.Input<string[]>;
}

/**
 * The on-behalf-of flow's consent: the agent identity may call the resource
 * API with these delegated scopes for whichever person's token it exchanges,
 * an admin consent for all principals (an oauth2PermissionGrant without a
 * user). Without it the exchange fails with AADSTS65001.
 */
export class OnBehalfOfConsent extends pulumi.ComponentResource {
  readonly grantId: pulumi.Output<string>;
  /** The consented scopes as Graph stores them: one space-separated string. */
  readonly scopes: pulumi.Output<string>;
  readonly grant: azuread.ServicePrincipalDelegatedPermissionGrant;

  constructor(name: string, args: OnBehalfOfConsentArgs, opts?: pulumi.ComponentResourceOptions) {
    super(ON_BEHALF_OF_CONSENT_TYPE, name, {}, opts);
    // A lookup, never a managed resource: destroy must not touch the resource API's own principal.
    const resource = azuread.getServicePrincipalOutput({ clientId: args.resourceAppId }, { parent: this });
    this.grant = new azuread.ServicePrincipalDelegatedPermissionGrant(
      name,
      { servicePrincipalObjectId: args.agentIdentityId, resourceServicePrincipalObjectId: resource.objectId, claimValues: args.scopes },
      { parent: this },
    );
    this.grantId = this.grant.id;
    this.scopes = this.grant.claimValues.apply((values) => values.join(" "));
    this.registerOutputs({ grantId: this.grantId, scopes: this.scopes });
  }
}
