import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { tokenExchangeAudience } from "../../lib/entra-rules";
import { UsageError } from "../../lib/errors";
import { Blueprint } from "../providers/blueprint";
import { BlueprintPrincipal } from "../providers/blueprint-principal";
import { credentialRefusedHooks } from "./credential-refused";
import { withExplicitProvisioner } from "./explicit-provisioner";
import { isPending } from "./pending";
import type { ProvisioningSettings } from "../providers/inputs";

export const BLUEPRINT_TYPE = "agent-user-kit:index:Blueprint";

/** How the blueprint proves itself in hop 1; `mode` decides which credential resource exists. */
export type BlueprintCredentialArgs =
  | { mode: "secret"; /** RFC 3339 expiry of the client secret; Entra chooses when absent. */ endDate?: pulumi.Input<string> }
  | { mode: "managedIdentity"; /** Principal (object) id of an existing managed identity to trust. */ existingPrincipalId: pulumi.Input<string> }
  | { mode: "managedIdentity"; /** Where to create a user-assigned managed identity (needs @pulumi/azure-native). */ newIdentity: { resourceGroupName: pulumi.Input<string>; location: pulumi.Input<string> } }
  | { mode: "certificate"; /** The public certificate (PEM) to upload. */ certificatePem: pulumi.Input<string>; /** Its expiry (RFC 3339). */ endDate?: pulumi.Input<string> };

export interface AgentIdentityBlueprintArgs {
  /** Display name of the blueprint application. */
  displayName: pulumi.Input<string>;
  /** Object ids of the users who sponsor the blueprint; at least one. */
  sponsors: pulumi.Input<string[]>;
  /**
   * How the blueprint proves itself in hop 1: client secret, managed identity,
   * or certificate. An Output for the whole credential defers the credential
   * resource until it resolves (a preview while it is unknown cannot list it),
   * and `clientSecret` and `managedIdentityClientId` are then both set, the one
   * of the other mode resolving to undefined. An Output inside it defers nothing.
   */
  credential: pulumi.Input<BlueprintCredentialArgs>;
  /** Tenant id: the federated credential's issuer is `{authorityUrl}/{tenantId}/v2.0`. */
  tenantId: pulumi.Input<string>;
  /** The federated credential's audience (an `api://` identifier); the authority's cloud's by default. */
  tokenExchangeAudience?: pulumi.Input<string>;
  /** Graph endpoint, consistency window and provider version for the Graph objects. */
  settings: ProvisioningSettings;
}

/** What the credential adds to the blueprint's outputs, in its mode. */
interface CredentialOutputs {
  clientSecret?: pulumi.Output<string>;
  managedIdentityClientId?: pulumi.Output<string>;
}

const DEFERRED_CREDENTIAL = "the blueprint's credential resource is registered once credential, an Output, resolves: a preview while it is unknown cannot list it";

/**
 * An agent identity blueprint with its principal (which Entra does not create
 * on its own) and the credential hop 1 uses.
 */
export class AgentIdentityBlueprint extends pulumi.ComponentResource {
  /** appId: `client_id` of hop 1. */
  readonly appId: pulumi.Output<string>;
  readonly objectId: pulumi.Output<string>;
  /** Object id of the blueprint principal: `oid` of hop-1 tokens. */
  readonly principalId: pulumi.Output<string>;
  /** The client secret, as a Pulumi secret; only in `secret` mode. */
  readonly clientSecret?: pulumi.Output<string>;
  /** Client id of the managed identity whose token is hop 1's assertion; only in `managedIdentity` mode. */
  readonly managedIdentityClientId?: pulumi.Output<string>;
  /** The blueprint application (a Graph object). */
  readonly application: Blueprint;
  /** The blueprint principal, which Entra does not create on its own. */
  readonly principal: BlueprintPrincipal;

  constructor(name: string, args: AgentIdentityBlueprintArgs, opts?: pulumi.ComponentResourceOptions) {
    super(BLUEPRINT_TYPE, name, {}, opts);
    const settings: ProvisioningSettings = args.settings.provisioner === undefined ? { ...args.settings, ...withExplicitProvisioner(this) } : args.settings;
    const blueprint = new Blueprint(
      name,
      {
        ...settings,
        displayName: args.displayName,
        sponsors: args.sponsors,
        // Unique per project, stack and component: a retried create finds its own blueprint by it.
        adoptionTag: `agent-user-kit:${pulumi.getProject()}/${pulumi.getStack()}/${name}`,
      },
      // Named `{name}-blueprint` until the doubled suffix went: the alias keeps existing stacks' blueprint.
      { parent: this, aliases: [{ name: `${name}-blueprint` }] },
    );
    const principal = new BlueprintPrincipal(
      `${name}-principal`,
      { ...settings, appId: blueprint.appId, blueprintObjectId: blueprint.objectId },
      { parent: this },
    );
    this.application = blueprint;
    this.principal = principal;
    this.appId = blueprint.appId;
    this.objectId = blueprint.objectId;
    this.principalId = principal.principalId;
    // azuread 6 addresses an application as "/applications/{objectId}".
    const applicationId = pulumi.interpolate`/applications/${blueprint.objectId}`;
    const credential = args.credential;
    if (isPending(credential)) {
      pulumi.log.info(DEFERRED_CREDENTIAL, this);
      // The Outputs inside carry their own secrecy; the credential's (a secret certificate, say) is not theirs.
      const made = pulumi.unsecret(pulumi.output(credential).apply((resolved) => this.addCredential(name, resolved, applicationId, args)));
      this.clientSecret = made.apply((outputs) => pulumi.output(outputs.clientSecret)) as pulumi.Output<string>;
      this.managedIdentityClientId = made.apply((outputs) => pulumi.output(outputs.managedIdentityClientId)) as pulumi.Output<string>;
    } else {
      const made = this.addCredential(name, credential, applicationId, args);
      if (made.clientSecret) this.clientSecret = made.clientSecret;
      if (made.managedIdentityClientId) this.managedIdentityClientId = made.managedIdentityClientId;
    }

    this.registerOutputs({
      appId: this.appId,
      objectId: this.objectId,
      principalId: this.principalId,
      clientSecret: this.clientSecret,
      managedIdentityClientId: this.managedIdentityClientId,
    });
  }

  /** The credential resource of the mode: a password, a federated credential (with a new managed identity or not), or a certificate. */
  private addCredential(name: string, credential: BlueprintCredentialArgs, applicationId: pulumi.Output<string>, args: AgentIdentityBlueprintArgs): CredentialOutputs {
    if (credential.mode === "secret") {
      const password = new azuread.ApplicationPassword(
        `${name}-secret`,
        { applicationId, displayName: `${name}-secret`, endDate: credential.endDate },
        { parent: this, hooks: credentialRefusedHooks("secret") },
      );
      return { clientSecret: pulumi.secret(password.value) };
    } else if (credential.mode === "managedIdentity") {
      let subject: pulumi.Output<string>;
      let managedIdentityClientId: pulumi.Output<string>;
      if ("existingPrincipalId" in credential) {
        subject = pulumi.output(credential.existingPrincipalId);
        // A managed identity's service principal has the identity's client id as its appId.
        managedIdentityClientId = azuread.getServicePrincipalOutput({ objectId: credential.existingPrincipalId }, { parent: this }).clientId;
      } else {
        const identity = new (userAssignedIdentityClass())(
          `${name}-identity`,
          { resourceGroupName: credential.newIdentity.resourceGroupName, location: credential.newIdentity.location },
          { parent: this },
        );
        subject = identity.principalId;
        managedIdentityClientId = identity.clientId;
      }
      new azuread.ApplicationFederatedIdentityCredential(
        `${name}-federated`,
        {
          applicationId,
          displayName: `${name}-managed-identity`,
          issuer: pulumi.interpolate`${args.settings.authorityUrl}/${args.tenantId}/v2.0`,
          subject,
          // As given, else the audience of the authority's cloud, as Microsoft documents the federated credential's.
          audiences: [
            pulumi.all([args.tokenExchangeAudience, args.settings.authorityUrl]).apply(([given, url]) => given ?? tokenExchangeAudience(url)),
          ],
        },
        { parent: this },
      );
      return { managedIdentityClientId };
    } else {
      new azuread.ApplicationCertificate(
        `${name}-certificate`,
        { applicationId, type: "AsymmetricX509Cert", encoding: "pem", value: credential.certificatePem, endDate: credential.endDate },
        { parent: this, hooks: credentialRefusedHooks("certificate") },
      );
      return {};
    }
  }
}

/**
 * @pulumi/azure-native is an optional peer dependency, loaded only in the one
 * mode that creates a managed identity: a consumer who never does need not
 * install its 100+ MB.
 */
function userAssignedIdentityClass(): typeof import("@pulumi/azure-native/managedidentity").UserAssignedIdentity {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require("@pulumi/azure-native/managedidentity") as typeof import("@pulumi/azure-native/managedidentity")).UserAssignedIdentity;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw err;
    throw new UsageError(
      "creating a user-assigned managed identity needs the @pulumi/azure-native package, which is not installed",
      "npm install @pulumi/azure-native, or name an existing identity with managedIdentityPrincipalId",
      "AgentIdentityBlueprint",
    );
  }
}
