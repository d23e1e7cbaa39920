import { PROVISIONER_CREDENTIAL_ERROR, gatherSettings, provisionerToken, resolveProvisionerCredential } from "../infra/provisioner-credential";
import { UsageError } from "../lib/errors";
import { GraphClient } from "../lib/graph-client";
import type { RetryHooks } from "../lib/retry";

/** The provisioner settings' own errors (plain Errors, for the serialized providers) as the CLI's usage error. */
function asUsageError(err: unknown): unknown {
  if (!(err instanceof Error) || err.name !== PROVISIONER_CREDENTIAL_ERROR) return err;
  return new UsageError(err.message, "`agent-user emulator --env-file FILE` writes ARM_* for the local emulator", "provisioner credential");
}

/** The provisioner's Graph token itself, e.g. to read its `roles` claim. */
export function provisionerAccessToken(options: { authorityUrl: string; graphUrl: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return provisionerToken(options.authorityUrl, options.graphUrl, Date.now, options.env).catch((err: unknown) => Promise.reject(asUsageError(err)));
}

/**
 * A Graph client that reads as the provisioner: the same ARM_* settings and
 * token client as the Pulumi program's providers (`azuread:` stack
 * configuration is not read here: export ARM_* instead).
 */
export function provisionerGraph(options: { authorityUrl: string; graphUrl: string; env: NodeJS.ProcessEnv; timeoutMs: number; hooks?: RetryHooks }): GraphClient {
  try {
    resolveProvisionerCredential(gatherSettings(undefined, options.env));
  } catch (err) {
    throw asUsageError(err);
  }
  return new GraphClient({
    baseUrl: options.graphUrl,
    timeoutMs: options.timeoutMs,
    hooks: options.hooks,
    getToken: () => provisionerAccessToken(options),
  });
}
