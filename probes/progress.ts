import type { RetryHooks } from "../lib/retry";
import type { ConnectionSettings } from "../lib/settings";
import type { CliIo } from "./cli-io";

/** The --verbose flag of every command that mints a token. */
export const VERBOSE_OPTION = { verbose: { type: "boolean" } } as const;

/**
 * What a person waiting at a terminal is told while the command waits out a
 * 429, a 503 or replication lag: which step, what it answered, how long, and
 * which attempt comes next. On a terminal, or with --verbose; never into --json.
 */
export function progressHooks(io: CliIo, options: { verbose: boolean; json: boolean }): RetryHooks | undefined {
  if (options.json || !(options.verbose || io.stderrIsTTY)) return undefined;
  return {
    onRetry: (err, attempt, delayMs) => {
      // AgentUserError messages name the step and code and are already free of secrets; keep the first line short.
      const what = (err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 200);
      io.stderr(`waiting ${(delayMs / 1000).toFixed(1)} s before attempt ${attempt + 1}: ${what}\n`);
    },
  };
}

/** --verbose: where each input came from. Values are shown only for ids and URLs, never for the credential. */
export function reportSources(io: CliIo, settings: ConnectionSettings): void {
  const shown: Record<string, string | undefined> = {
    tenantId: settings.tenantId,
    authorityUrl: settings.authorityUrl,
    blueprintAppId: settings.blueprintAppId,
    agentIdentityId: settings.agentIdentityId,
    agentUserId: settings.agentUser,
    agentUserPrincipalName: settings.agentUser,
    resourceUrl: settings.resourceUrl,
    graphUrl: settings.graphUrl,
  };
  for (const [key, source] of Object.entries(settings.sources)) {
    io.stderr(key === "credential" ? `input blueprint credential: ${source} (value not shown)\n` : `input ${key} = ${shown[key] ?? "?"} (from ${source})\n`);
  }
}
