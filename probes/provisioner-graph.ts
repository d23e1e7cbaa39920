import { PROVISIONER_CREDENTIAL_ERROR, gatherSettings, provisionerToken, resolveProvisionerCredential, type ConfigLookup } from "../infra/provisioner-credential";
import { UsageError } from "../lib/errors";
import { GraphClient } from "../lib/graph-client";
import type { RetryHooks } from "../lib/retry";

/** The provisioner settings' own errors (plain Errors, for the serialized providers) as the CLI's usage error. */
function asUsageError(err: unknown): unknown {
  if (!(err instanceof Error) || err.name !== PROVISIONER_CREDENTIAL_ERROR) return err;
  return new UsageError(err.message, "`agent-user emulator --env-file FILE` writes ARM_* for the local emulator", "provisioner credential");
}

/** Where the provisioner is and who it is: its azuread: keys (from `--config-from-stack`) over the ARM_* variables, as in `pulumi up`. */
export interface ProvisionerSource {
  authorityUrl: string;
  graphUrl: string;
  env: NodeJS.ProcessEnv;
  config?: ConfigLookup;
}

/** The provisioner's Graph token itself, e.g. to read its `roles` claim. */
export function provisionerAccessToken(options: ProvisionerSource): Promise<string> {
  return provisionerToken(options.authorityUrl, options.graphUrl, Date.now, options.env, options.config).catch((err: unknown) => Promise.reject(asUsageError(err)));
}

/** A Graph client that reads as the provisioner: the same settings and token client as the Pulumi program's providers. */
export function provisionerGraph(options: ProvisionerSource & { timeoutMs: number; hooks?: RetryHooks }): GraphClient {
  try {
    resolveProvisionerCredential(gatherSettings(options.config, options.env));
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
