import type * as pulumi from "@pulumi/pulumi";

/** Where and how the dynamic resources reach Graph; shared by every component that makes Graph objects. */
export interface ProvisioningSettings {
  /** Graph base URL (public cloud by default; the emulator's for local work). */
  graphUrl: pulumi.Input<string>;
  /** Identity provider base URL the provisioner's token is requested from. */
  authorityUrl: pulumi.Input<string>;
  /** How long a create waits for the object it depends on to replicate, in milliseconds. */
  consistencyWindowMs: pulumi.Input<number>;
  /** The package version, so that delete and refresh run the provider code of this version. */
  providerVersion: pulumi.Input<string>;
}
