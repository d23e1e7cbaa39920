import type { GraphResourceInputs, ResourceArgs } from "../providers/inputs";

/**
 * Where and how the dynamic resources reach Graph; shared by every component
 * that makes Graph objects. The inputs every Graph resource carries, each of
 * them a pulumi.Input, so a field is added in one place.
 */
export type ProvisioningSettings = ResourceArgs<GraphResourceInputs>;
