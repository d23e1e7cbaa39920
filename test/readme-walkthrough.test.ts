/**
 * The README's provisioning walk-through, followed step by step as far as it
 * goes without a Pulumi engine: `pulumi stack init dev` on the example stack
 * file, the `pulumi config set` lines, the exported ARM_* variables through
 * the provisioner's resolution, then the smoke step; and the example CI
 * workflow, parsed, with its agent-user steps run against the emulator.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { gatherSettings, resolveProvisionerCredential } from "../infra/provisioner-credential";
import { validateConfig, type RawConfig } from "../infra/config";
import { startEmulator } from "../emulator/server";
import { DEFAULT_IDS } from "../emulator/seed";
import { useEmulator } from "./token/helpers";

const ROOT = resolve(__dirname, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const CLI = join(ROOT, "dist/probes/agent-user.js");

/** The first fenced block of `lang` after `heading`. */
function block(heading: string, lang: string): string {
  const at = README.indexOf(`\n${heading}\n`);
  expect(at).toBeGreaterThan(0);
  return new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(README.slice(at))![1]!;
}

/** Splits a shell line into words, honouring single and double quotes; $VAR is looked up in `vars`. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  // A word is quoted parts and bare parts run together (KEY="$VALUE" is one word).
  for (const m of line.replace(/\s+#.*$/, "").matchAll(/(?:'[^']*'|"[^"]*"|[^\s'"]+)+/g)) {
    let word = "";
    for (const part of m[0].matchAll(/'([^']*)'|"([^"]*)"|([^'"]+)/g)) {
      word += part[1] ?? (part[2] ?? part[3]!).replace(/\$([A-Z_]+)/g, (_, name: string) => vars[name] ?? "");
    }
    out.push(word);
  }
  return out;
}

const ctx = useEmulator();

describe("README: provisioning walk-through", () => {
  const vars = {
    SPONSOR_OBJECT_ID: "5e000000-0000-0000-0000-000000000001",
    PROVISIONER_TENANT_ID: "72f988bf-86f1-41af-91ab-2d7cd011db47",
    PROVISIONER_CLIENT_ID: "0c000000-0000-0000-0000-00000000000c",
    PROVISIONER_SECRET: "provisioner-secret-value",
  };
  const stack = (parse(readFileSync(join(ROOT, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> }).config;

  it("the example stack file alone is refused at preview, naming the placeholder", () => {
    const raw = Object.fromEntries(Object.entries(stack).map(([k, v]) => [k.replace(/^agent-user-kit:/, ""), v])) as RawConfig;
    expect(() => validateConfig(raw)).toThrow(/agent-user-kit:sponsors is the placeholder 00000000-0000-0000-0000-000000000000 of the example stack file/);
  });

  it("its steps give a valid configuration, and the exported ARM_* values win over the example stack file", () => {
    const config: Record<string, unknown> = { ...stack };
    const env: Record<string, string> = {};
    for (const line of block("### Deploy to a real tenant", "sh").split("\n")) {
      const w = words(line, vars);
      if (w[0] === "export") for (const pair of w.slice(1)) env[pair.split("=")[0]!] = pair.slice(pair.indexOf("=") + 1);
      if (w[0] === "pulumi" && w[1] === "config" && w[2] === "set") {
        const path = w[3] === "--path";
        const [key, value] = path ? [w[4]!, w[5]!] : [w[3]!, w[4]!];
        const list = /^(.*)\[(\d+)\]$/.exec(key);
        if (path && list) {
          const items = [...((config[list[1]!] as string[] | undefined) ?? [])];
          items[Number(list[2])] = value;
          config[list[1]!] = items;
        } else config[key] = value;
      }
    }
    const raw = Object.fromEntries(Object.entries(config).filter(([k]) => k.startsWith("agent-user-kit:")).map(([k, v]) => [k.slice("agent-user-kit:".length), v])) as RawConfig;
    const kit = validateConfig(raw);
    expect(kit.sponsors).toEqual([vars.SPONSOR_OBJECT_ID]);
    expect(kit.agents[0]!.userPrincipalName).toBe("research-agent@contoso.onmicrosoft.com");
    const lookup = { get: (key: string) => (typeof config[key] === "string" ? (config[key] as string) : undefined) };
    const credential = resolveProvisionerCredential(gatherSettings(lookup, env));
    expect(credential).toMatchObject({ tenantId: vars.PROVISIONER_TENANT_ID, clientId: vars.PROVISIONER_CLIENT_ID, kind: "secret" });
  });

  it("a placeholder azuread: key in a stack file is refused, naming the key and the fix, never used", () => {
    const lookup = { get: (key: string) => (key === "azuread:tenantId" ? "00000000-0000-0000-0000-000000000000" : undefined) };
    expect(() => resolveProvisionerCredential(gatherSettings(lookup, { ARM_TENANT_ID: vars.PROVISIONER_TENANT_ID, ARM_CLIENT_ID: vars.PROVISIONER_CLIENT_ID, ARM_CLIENT_SECRET: "s" }))).toThrow(
      /azuread:tenantId is the placeholder 0{8}-0{4}-0{4}-0{4}-0{12} in the stack configuration \(Pulumi.<stack>.yaml\); it is never used\. Fix: remove it \(`pulumi config rm azuread:tenantId`\) so that ARM_TENANT_ID applies/,
    );
  });
});

/** Runs a README shell line's agent-user command (npx agent-user … → the built CLI) in `cwd`. */
function agentUser(line: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const w = words(line.replace(/^.*?npx agent-user /, "agent-user "), {});
  const redirect = w.indexOf(">");
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...w.slice(1, redirect < 0 ? undefined : redirect)], { cwd, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe("README: smoke step and example CI workflow", () => {
  it("the smoke step mints against the emulator's stack outputs", async () => {
    writeFileSync(join(ctx.scratch.dir, "outputs.json"), JSON.stringify(ctx.emulator.outputs()), { mode: 0o600 });
    const smoke = block("The smoke step after `pulumi up`:", "sh").trim().split(" && ")[1]!;
    const run = await agentUser(smoke, ctx.scratch.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("idtyp  user");
  });

  it("parses as a workflow that keeps state, creates the stack, and whose agent-user steps pass", async () => {
    const workflow = parse(block("### Example CI workflow", "yaml")) as {
      jobs: { up: { env: Record<string, string>; steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> } };
    };
    const { env, steps } = workflow.jobs.up;
    const pulumiStep = steps.find((s) => s.uses?.startsWith("pulumi/actions@") && s.with?.command === "up")!;
    expect(pulumiStep.with).toMatchObject({ command: "up", upsert: true });
    // preflight checks the stack's configuration before `pulumi up`, from `pulumi config --json`.
    const preflight = steps.findIndex((s) => s.run?.startsWith("npx agent-user preflight --config-from-stack config.json"));
    expect(preflight).toBeGreaterThan(steps.findIndex((s) => s.run?.includes("pulumi config --json > config.json")));
    expect(preflight).toBeLessThan(steps.indexOf(pulumiStep));
    // State that outlives the runner: Pulumi Cloud's token, or a cloud-url the action logs in to.
    expect(env.PULUMI_ACCESS_TOKEN !== undefined || pulumiStep.with?.["cloud-url"] !== undefined).toBe(true);
    expect(steps.some((s) => s.run?.includes("pulumi stack output") && s.run.includes("--show-secrets > outputs.json"))).toBe(true);
    // The provisioner fetches its own refreshed ID token (ARM_USE_OIDC), so no step pins a static one that expires mid-run.
    expect(env.ARM_USE_OIDC).toBe("true");
    expect(steps.filter((s) => s.run?.includes("ARM_OIDC_TOKEN"))).toEqual([]);

    writeFileSync(join(ctx.scratch.dir, "outputs.json"), JSON.stringify(ctx.emulator.outputs()), { mode: 0o600 });
    writeFileSync(join(ctx.scratch.dir, "ToolingManifest.json"), readFileSync(join(ROOT, "probes/samples/ToolingManifest.json")));
    // What `pulumi config --json` prints for a new stack on the emulator's tenant, and the provisioner's ARM_* (the job's env).
    const config = {
      "agent-user-kit:userDomain": { value: "contoso.onmicrosoft.com", secret: false },
      "agent-user-kit:blueprintName": { value: "CI agent blueprint", secret: false },
      "agent-user-kit:agentIdentityName": { value: "CI agent", secret: false },
      "agent-user-kit:agentUserName": { value: "ci-agent", secret: false },
      "agent-user-kit:sponsors": { value: JSON.stringify([DEFAULT_IDS.sponsorId]), objectValue: [DEFAULT_IDS.sponsorId], secret: false },
      "agent-user-kit:graphUrl": { value: ctx.emulator.httpUrl, secret: false },
      "agent-user-kit:authorityUrl": { value: ctx.emulator.httpUrl, secret: false },
    };
    writeFileSync(join(ctx.scratch.dir, "config.json"), JSON.stringify(config));
    const p = ctx.emulator.provisioner()!;
    const arm = { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret };
    const agentUserSteps = steps.filter((s) => s.run?.startsWith("npx agent-user "));
    expect(agentUserSteps.map((s) => s.run!.split(" ")[2])).toEqual(["preflight", "token", "manifest", "doctor"]);
    for (const step of agentUserSteps) {
      const run = await agentUser(step.run!, ctx.scratch.dir, arm);
      expect({ step: step.run, code: run.code, stderr: run.stderr }).toEqual({ step: step.run, code: 0, stderr: "" });
    }
  });

  it("its fleet smoke step (token --all) mints for every agent of a fleet stack", async () => {
    const workflow = parse(block("### Example CI workflow", "yaml")) as { jobs: { up: { steps: Array<{ run?: string }> } } };
    const smoke = workflow.jobs.up.steps.find((s) => s.run?.startsWith("npx agent-user token ") && s.run.includes(" --all"))!;
    expect(smoke.run).toMatch(/--outputs outputs\.json .*--json/);
    const fleet = await startEmulator({ agents: 3 });
    const dir = mkdtempSync(join(ctx.scratch.dir, "fleet-"));
    try {
      writeFileSync(join(dir, "outputs.json"), JSON.stringify(fleet.outputs()), { mode: 0o600 });
      const run = await agentUser(smoke.run!, dir);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      const json = JSON.parse(run.stdout) as { ok: boolean; agents: Array<{ name: string; ok: boolean }> };
      expect(json.ok).toBe(true);
      expect(json.agents.map((a) => [a.name, a.ok])).toEqual([
        ["research-agent", true],
        ["agent-2", true],
        ["agent-3", true],
      ]);
    } finally {
      await fleet.close();
    }
  });
});
