import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { forgetProvisioner } from "../../provisioner-state";
import { scratchDir, type ScratchDir } from "../../harness";

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

/** What usePreflightTenant sets up; every field is filled in by its `beforeAll`. */
export interface PreflightTenant {
  emulator: Emulator;
  /** The provisioner's ARM_* settings. */
  env: NodeJS.ProcessEnv;
  scratch: ScratchDir;
}

/** The built-in tenant for one test file, its provisioner's settings, and a scratch directory; the provisioner's token is forgotten before each test. */
export function usePreflightTenant(): PreflightTenant {
  const t = { scratch: scratchDir() } as PreflightTenant;
  beforeAll(async () => {
    t.emulator = await startEmulator();
    const p = t.emulator.provisioner()!;
    t.env = { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret };
  });
  afterAll(async () => {
    await t.emulator.close();
    t.scratch.remove();
  });
  beforeEach(() => forgetProvisioner());
  return t;
}
