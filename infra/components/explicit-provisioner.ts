import type * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { PROVISIONER_SOURCES, type ExplicitProvisioner, type ProvisionerSetting } from "../provisioner-credential";

/**
 * The settings of the azuread provider a program gave a component
 * (`{ providers: [ad] }` or `{ provider: ad }`), for the kit's own Graph
 * resources, so that they authenticate as the component's azuread resources
 * do. The resources register them as a Pulumi secret (providers/resource-args.ts).
 * Nothing when the component has no explicit azuread provider: the
 * resources then read the stack's azuread: configuration and ARM_*, as the
 * default azuread provider does, and carry no provisioner input.
 *
 * A provider resource's outputs are the arguments it was given. `useOidc` is
 * a boolean, which the provider does not expose: it still comes from
 * ARM_USE_OIDC.
 */
export function withExplicitProvisioner(component: pulumi.Resource): { provisioner?: pulumi.Output<ExplicitProvisioner> } {
  // getProvider reads only the package of the type it is given.
  const provider = component.getProvider("azuread::") as azuread.Provider | undefined;
  if (!provider) return {};
  const names = Object.keys(PROVISIONER_SOURCES).filter((name) => name !== "useOidc") as ProvisionerSetting[];
  const fields = provider as unknown as Record<string, pulumi.Output<string | undefined> | undefined>;
  const values = names.map((name) => pulumi.output(fields[name]));
  const provisioner = pulumi.all(values).apply((resolved) => {
    const settings: ExplicitProvisioner = {};
    resolved.forEach((value, index) => {
      if (typeof value === "string" && value !== "") settings[names[index]!] = value;
    });
    return settings;
  });
  return { provisioner };
}
