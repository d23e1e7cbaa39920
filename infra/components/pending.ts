import * as pulumi from "@pulumi/pulumi";

/**
 * Whether an Input is not known until it resolves (an Output, or a promise):
 * what it decides can be registered only inside an apply.
 */
export function isPending(value: unknown): value is pulumi.Output<unknown> | Promise<unknown> {
  return pulumi.Output.isInstance(value) || value instanceof Promise;
}
