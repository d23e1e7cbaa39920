import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";

/**
 * Writes into `dir` what `pulumi config --json` prints for a new stack's
 * agent-user-kit keys (lists JSON-encoded in value, as Pulumi does), with
 * `overrides` over the defaults; returns the file's path.
 */
export function writeStackConfig(dir: string, overrides: Record<string, string | string[]>): string {
  const keys: Record<string, string | string[]> = {
    userDomain: DEFAULT_IDS.domain,
    blueprintName: "Support agent blueprint",
    agentIdentityName: "Support agent",
    agentUserName: "support-agent",
    sponsors: [DEFAULT_IDS.sponsorId],
    scopes: ["Chat.ReadWrite", "User.Read"],
    ...overrides,
  };
  const json: Record<string, unknown> = { "azuread:clientSecret": { secret: true } };
  for (const [key, value] of Object.entries(keys)) {
    json[`agent-user-kit:${key}`] = Array.isArray(value) ? { value: JSON.stringify(value), objectValue: value, secret: false } : { value, secret: false };
  }
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}
