import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CONFIG_KEYS, CONFIG_NAMESPACE, validateConfig, type ConfigKey, type KitConfig, type RawConfig } from "../../infra/config";
import { UsageError } from "../../lib/errors";

/**
 * The stack configuration preflight checks: the JSON of `pulumi config
 * --json` (`{"agent-user-kit:<key>": {"value": "...", "secret": false}}`,
 * lists JSON-encoded in `value`), with the same keys as flags over it, checked
 * by the Pulumi program's own validation (infra/config.ts).
 */

/** `userDomain` → `user-domain`. */
export const flagOf = (key: ConfigKey) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** One string flag per configuration key. */
export const CONFIG_FLAGS = Object.fromEntries(CONFIG_KEYS.map((key) => [flagOf(key), { type: "string" as const }])) as Record<string, { type: "string" }>;

const HINT = "write it with `pulumi config --json > config.json` in the stack's directory";

function readStackFile(path: string, cwd: string): RawConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(resolve(cwd, path), "utf8"));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // V8's message quotes the text around the fault, which may hold a secret: keep the position only.
    const at = /position \d+/.exec((err as Error).message)?.[0];
    throw new UsageError(`cannot read --config-from-stack ${path}: ${code ?? `not valid JSON${at ? ` (at ${at})` : ""}`}`, HINT);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new UsageError(`--config-from-stack ${path} is not the JSON object of \`pulumi config --json\``, HINT);
  const raw: RawConfig = {};
  for (const key of CONFIG_KEYS) {
    const entry = (json as Record<string, unknown>)[`${CONFIG_NAMESPACE}:${key}`];
    if (entry === undefined) continue;
    const value = entry !== null && typeof entry === "object" ? (entry as { value?: unknown }).value : undefined;
    if (typeof value !== "string") throw new UsageError(`--config-from-stack ${path}: ${CONFIG_NAMESPACE}:${key} has no string "value"`, HINT);
    raw[key] = value;
  }
  return raw;
}

/** The validated configuration from the file and the flags (flags win); a bad key is a usage error naming it. */
export function stackConfig(file: string | undefined, flags: Record<string, string | undefined>, cwd: string): KitConfig {
  const raw: RawConfig = file !== undefined ? readStackFile(file, cwd) : {};
  for (const key of CONFIG_KEYS) {
    const value = flags[flagOf(key)];
    if (value !== undefined) raw[key] = value;
  }
  return validateConfig(raw);
}
