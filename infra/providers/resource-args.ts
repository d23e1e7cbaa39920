import * as pulumi from "@pulumi/pulumi";
import type { GraphResourceInputs, ResourceArgs } from "./inputs";

/**
 * A Graph resource's arguments as it registers them: the provisioner's
 * settings, however they were given, as a Pulumi secret, so the state holds
 * them (inputs, and outputs, which the engine marks secret after a secret
 * input of the same name) encrypted. Program-side only: the providers never
 * reference the SDK.
 */
export function registeredArgs<T extends ResourceArgs<GraphResourceInputs>>(args: T): T {
  return args.provisioner === undefined ? args : { ...args, provisioner: pulumi.secret(args.provisioner) };
}
