import { printable } from "../lib/printable";
import type { RetryHooks } from "../lib/retry";
import type { ConnectionSettings } from "./settings";
import type { CliIo } from "./cli-io";

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
      const what = printable((err instanceof Error ? err.message : String(err)).split("\n")[0]!.slice(0, 200));
      io.stderr(`waiting ${(delayMs / 1000).toFixed(1)} s before attempt ${attempt + 1}: ${what}\n`);
    },
  };
}

/**
 * What every command that mints a token shows before its work: with
 * --verbose, where each input came from; and the hooks that show its waits.
 */
export function announceSettings(io: CliIo, settings: ConnectionSettings, options: { verbose: boolean; json: boolean }): RetryHooks | undefined {
  if (options.verbose && !options.json) reportSources(io, settings);
  return progressHooks(io, options);
}

/** --verbose: where each input came from. Values are shown only for ids and URLs, never for the credential. */
export function reportSources(io: CliIo, settings: ConnectionSettings): void {
  const shown: Record<string, string | undefined> = {
    tenantId: settings.tenantId,
    authorityUrl: settings.authorityUrl,
    tokenExchangeAudience: settings.tokenExchangeAudience,
    blueprintAppId: settings.blueprintAppId,
    agentIdentityId: settings.agentIdentityId,
    agentUserId: settings.agentUser,
    agentUserPrincipalName: settings.agentUser,
    resourceUrl: settings.resource,
    graphUrl: settings.graphUrl,
  };
  for (const [key, source] of Object.entries(settings.sources)) {
    io.stderr(key === "credential" ? `input blueprint credential: ${printable(source)} (value not shown)\n` : `input ${key} = ${printable(shown[key] ?? "?")} (from ${printable(source)})\n`);
  }
}

/** One status line rewritten in place while a long run goes on (`token --all`). */
export interface LiveLine {
  /** Replaces the line with `text`. */
  show(text: string): void;
  /** Writes a whole line of output above the live line, which is then drawn again. */
  print(text: string): void;
  /** Removes the line, before the run's own output. */
  clear(): void;
}

const ERASE_LINE = "\r\x1b[2K";

/** A live line on a terminal's stderr; none when stderr is not a terminal (a CI log) or with --json. */
export function liveLine(io: CliIo, json: boolean): LiveLine | undefined {
  if (json || !io.stderrIsTTY) return undefined;
  let current = "";
  return {
    show: (text) => {
      current = text;
      io.stderr(`${ERASE_LINE}${text}`);
    },
    print: (text) => io.stderr(`${ERASE_LINE}${text}${current}`),
    clear: () => {
      if (current) io.stderr(ERASE_LINE);
      current = "";
    },
  };
}
