import { AgentUserError } from "../../lib/errors";
import { GraphError } from "../../lib/graph-client";
import type { GraphResourceInputs } from "./inputs";

/** Likely fixes for a Graph answer, specific to one resource; undefined falls back to the generic hint. */
export type HintFor = (err: GraphError) => string | undefined;

export const PROVISIONING_ERROR = "ProvisioningError";

/**
 * A provider failure as Pulumi prints it: resource and operation, the failing
 * step (token request or Graph call) with its codes, and the likely fix, all
 * in the message, the one field Pulumi shows. A plain Error, not a subclass:
 * Pulumi's closure serializer rewrites `super()` in a class that extends
 * Error into `Error.call(this)`, which would leave the message empty.
 */
export function provisioningError(resource: string, operation: string, cause: unknown, hintFor?: HintFor): Error {
  const detail = (cause instanceof Error ? cause.message : String(cause)).replace(/\.+$/, "");
  const error = new Error(`${resource} ${operation} failed: ${detail}${hintOf(cause, hintFor)}`, { cause });
  error.name = PROVISIONING_ERROR;
  return error;
}

function hintOf(cause: unknown, hintFor?: HintFor): string {
  let hint: string | undefined;
  if (cause instanceof GraphError) hint = hintFor?.(cause) ?? cause.hint;
  // A refused token request's hint is the provisioner's own (provisionerToken names where its credential came from).
  else if (cause instanceof AgentUserError) hint = cause.hint;
  return hint ? `. Likely fix: ${hint}` : "";
}

/** Runs one provider operation, turning any failure into a provisioning error. */
export async function step<T>(resource: string, operation: string, run: () => Promise<T>, hintFor?: HintFor): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof Error && err.name === PROVISIONING_ERROR ? err : provisioningError(resource, operation, err, hintFor);
  }
}

/** The state read works from; absent only for `pulumi import`, which these resources do not support. */
export function requireState<T extends GraphResourceInputs>(resource: string, props: T | undefined): T {
  if (!props?.graphUrl) {
    throw provisioningError(resource, "read", "there is no saved state: importing an existing object is not supported; let `pulumi up` adopt it instead");
  }
  return props;
}
