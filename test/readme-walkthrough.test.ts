/**
 * The README's provisioning walk-through, followed step by step as far as it
 * goes without a Pulumi engine: `pulumi stack init dev` on the example stack
 * file, the `pulumi config set` lines, the exported ARM_* variables through
 * the provisioner's resolution, then the smoke step; and the example CI
 * workflow, parsed, with its agent-user steps run against the emulator.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { gatherSettings, resolveProvisionerCredential } from "../infra/provisioner-credential";
import { validateConfig, type RawConfig } from "../infra/config";
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
    for (const line of block("### Running it", "sh").split("\n")) {
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
function agentUser(line: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const w = words(line.replace(/^.*?npx agent-user /, "agent-user "), {});
  const redirect = w.indexOf(">");
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...w.slice(1, redirect < 0 ? undefined : redirect)], { cwd, env: { PATH: process.env.PATH }, timeout: 60_000 }, (err, stdout, stderr) => {
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
    const pulumiStep = steps.find((s) => s.uses?.startsWith("pulumi/actions@"))!;
    expect(pulumiStep.with).toMatchObject({ command: "up", upsert: true });
    // State that outlives the runner: Pulumi Cloud's token, or a cloud-url the action logs in to.
    expect(env.PULUMI_ACCESS_TOKEN !== undefined || pulumiStep.with?.["cloud-url"] !== undefined).toBe(true);
    expect(steps.some((s) => s.run?.includes("pulumi stack output") && s.run.includes("--show-secrets > outputs.json"))).toBe(true);

    writeFileSync(join(ctx.scratch.dir, "outputs.json"), JSON.stringify(ctx.emulator.outputs()), { mode: 0o600 });
    writeFileSync(join(ctx.scratch.dir, "ToolingManifest.json"), readFileSync(join(ROOT, "probes/samples/ToolingManifest.json")));
    const agentUserSteps = steps.filter((s) => s.run?.startsWith("npx agent-user "));
    expect(agentUserSteps.length).toBeGreaterThanOrEqual(2);
    for (const step of agentUserSteps) {
      const run = await agentUser(step.run!, ctx.scratch.dir);
      expect({ step: step.run, code: run.code, stderr: run.stderr }).toEqual({ step: step.run, code: 0, stderr: "" });
    }
  });
});
