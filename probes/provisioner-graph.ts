import { PROVISIONER_CREDENTIAL_ERROR, provisionerToken, type ConfigLookup } from "../infra/provisioner-credential";
import { UsageError } from "../lib/errors";
import { GraphClient } from "../lib/graph-client";
import { DEFAULT_RETRY, transientOnly, withRetry, type RetryHooks } from "../lib/retry";

/** The provisioner settings' own errors (plain Errors, for the serialized providers) as the CLI's usage error. */
function asUsageError(err: unknown): unknown {
  if (!(err instanceof Error) || err.name !== PROVISIONER_CREDENTIAL_ERROR) return err;
  return new UsageError(err.message, "`agent-user emulator --env-out FILE` writes ARM_* for the local emulator", "provisioner credential");
}

/** Where the provisioner is and who it is: its azuread: keys (from `--config-from-stack`) over the ARM_* variables, as in `pulumi up`. */
export interface ProvisionerSource {
  authorityUrl: string;
  graphUrl: string;
  env: NodeJS.ProcessEnv;
  config?: ConfigLookup;
}

/** One request for the provisioner's token (or the cached one): GraphClient's getToken, inside the client's own retry loop. */
function provisionerTokenOnce(options: ProvisionerSource): Promise<string> {
  return provisionerToken(options.authorityUrl, options.graphUrl, { env: options.env, config: options.config }).catch((err: unknown) => Promise.reject(asUsageError(err)));
}

/**
 * The provisioner's Graph token itself, e.g. to read its `roles` claim. Asked
 * for directly, outside any Graph call, so it has its own retries: a 429 or a
 * 5xx is retried within DEFAULT_RETRY; anything else fails at once.
 */
export function provisionerAccessToken(options: ProvisionerSource, hooks?: RetryHooks): Promise<string> {
  return withRetry(() => provisionerTokenOnce(options), DEFAULT_RETRY, transientOnly, hooks);
}

/** A Graph client that reads as the provisioner: the same settings and token client as the Pulumi program's providers. */
export function provisionerGraph(options: ProvisionerSource & { timeoutMs: number; hooks?: RetryHooks }): GraphClient {
  return new GraphClient({
    baseUrl: options.graphUrl,
    timeoutMs: options.timeoutMs,
    hooks: options.hooks,
    getToken: () => provisionerTokenOnce(options),
  });
}
