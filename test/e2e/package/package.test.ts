/**
 * The packed tarball, installed into fresh projects: the runtime entry with
 * no Pulumi installed, minting against the emulator from TypeScript (strict,
 * node16 and bundler resolution), plain CommonJS and an ES module, with
 * doctor and preflight run from that same install; and the Pulumi entry
 * with only the peers a secret-mode program needs, under setMocks with three
 * agents, its dynamic providers serialized from the installed package and
 * loaded as Pulumi's provider host loads them.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { installConsumer, packTarball, pinned, readmeExample, runNode, typeCheck } from "./consumer";

jest.setTimeout(240_000);

let work: string;
let tarball: string;
let emulator: Emulator;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-user-kit-package-"));
  tarball = packTarball(work);
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("the runtime entry, installed without Pulumi", () => {
  let dir: string;
  beforeAll(() => {
    dir = installConsumer(join(work, "agent"), tarball);
    // The stack outputs as `agent-user emulator --outputs outputs.json` writes them, which the README's example reads.
    writeFileSync(join(dir, "outputs.json"), JSON.stringify(emulator.outputs()), { mode: 0o600 });
  });

  it("installs no @pulumi package", () => {
    expect(existsSync(join(dir, "node_modules/agent-user-kit/package.json"))).toBe(true);
    expect(existsSync(join(dir, "node_modules/@pulumi"))).toBe(false);
  });

  it("the README's agent example type-checks (strict; node16 and bundler) and mints a token against the emulator", async () => {
    writeFileSync(join(dir, "agent.ts"), readmeExample("### In an agent"));
    typeCheck(dir, ["agent.ts"], "bundler");
    typeCheck(dir, ["agent.ts"], "node16", true);
    const run = await runNode(dir, "out/agent.js");
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(new RegExp(`^a \\d+-character token for ${emulator.outputs().agentUserPrincipalName} until \\d{4}-`));
    expect(run.stdout).toMatch(/Graph token ends with .{4}\n$/);
  });

  it("plain CommonJS JavaScript requires it, and its errors carry their exit codes", async () => {
    writeFileSync(
      join(dir, "plain.js"),
      `const { AgentUserTokenProvider, TokenEndpointError, ExitCode } = require("agent-user-kit");
const outputs = require("./outputs.json");
(async () => {
  const ok = await AgentUserTokenProvider.fromStackOutputs(outputs, { agent: "research-agent" }).getToken();
  console.log(ok.claims.idtyp, ok.hops.length);
  const wrong = AgentUserTokenProvider.fromStackOutputs({ ...outputs, blueprintClientSecret: "wrong" }, { agent: "research-agent" });
  await wrong.getToken().catch((err) => console.log(err instanceof TokenEndpointError, err.codes.join(","), err.exitCode === ExitCode.rejected));
})();
`,
    );
    const run = await runNode(dir, "plain.js");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("user 3\ntrue 7000215 true\n");
  });

  it("an ES module imports it by name (Node's CommonJS interop), and mints a token", async () => {
    writeFileSync(
      join(dir, "agent.mjs"),
      `import { readFileSync } from "node:fs";
import { AgentUserTokenProvider, AgentUserError } from "agent-user-kit";
const outputs = JSON.parse(readFileSync("outputs.json", "utf8"));
const token = await AgentUserTokenProvider.fromStackOutputs(outputs, { agent: "research-agent" }).getToken();
console.log(token.claims.idtyp, typeof AgentUserError);
`,
    );
    const run = await runNode(dir, "agent.mjs");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("user function\n");
  });

  it("the installed agent-user command mints through the same provider", async () => {
    const run = await runNode(dir, "node_modules/.bin/agent-user", ["token", "--outputs", "outputs.json", "--agent", "research-agent", "--json"]);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, claims: { idtyp: "user", oid: emulator.outputs().agentUserId } });
  });

  it("doctor and preflight run from it too: they read stack keys from files, so they need no Pulumi SDK", async () => {
    const p = emulator.provisioner()!;
    const provisioner = { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret };
    const doctor = await runNode(dir, "node_modules/.bin/agent-user", ["doctor", "--outputs", "outputs.json", "--agent", "research-agent", "--json"], provisioner);
    expect(doctor.stderr).toBe("");
    expect(doctor.code).toBe(0);
    const links = (JSON.parse(doctor.stdout) as { links: Array<{ link: string; status: string }> }).links;
    expect(links.map((l) => l.link)).toEqual(["blueprint", "blueprint credential", "blueprint principal", "agent identity", "agent user", "grant", "tokens"]);
    expect(links.filter((l) => l.status !== "ok")).toEqual([]);
    const { domain, sponsorId } = DEFAULT_IDS;
    const flags = ["--user-domain", domain, "--blueprint-name", "Support blueprint", "--agent-identity-name", "Support agent", "--agent-user-name", "support-agent", "--sponsors", sponsorId];
    const preflight = await runNode(dir, "node_modules/.bin/agent-user", ["preflight", ...flags, "--graph", emulator.httpUrl, "--authority", emulator.httpUrl], provisioner);
    expect(preflight.stderr).toBe("");
    expect(preflight.code).toBe(0);
    expect(preflight.stdout).toMatch(new RegExp(`^ok\\s+agent user upn\\s+support-agent@${domain.replace(/\./g, "\\.")}\\s`, "m"));
  });
});

describe("the Pulumi entry, installed with @pulumi/pulumi and @pulumi/azuread only", () => {
  let dir: string;
  beforeAll(() => {
    dir = installConsumer(join(work, "infra"), tarball, [pinned("@pulumi/pulumi"), pinned("@pulumi/azuread")]);
  });

  it("its folder, required by path as Pulumi's plugin host requires it, is the plugin's entry; by name it is still the token library", async () => {
    writeFileSync(
      join(dir, "entry.js"),
      `const plugin = require("./node_modules/agent-user-kit");
const library = require("agent-user-kit");
console.log(typeof plugin, plugin.name, typeof library.AgentUserTokenProvider, Object.keys(require("agent-user-kit/pulumi")).includes("AgentUserKit"));
`,
    );
    const run = await runNode(dir, "entry.js");
    expect({ stdout: run.stdout, stderr: run.stderr }).toEqual({ stdout: "function serve function true\n", stderr: "" });
  });

  it("the README's Pulumi example type-checks (strict; node16 and bundler)", () => {
    writeFileSync(join(dir, "index.ts"), readmeExample("### In a Pulumi program"));
    typeCheck(dir, ["index.ts"], "node16");
    typeCheck(dir, ["index.ts"], "bundler");
  });

  it("runs three agents under setMocks; the serialized providers require the installed package and load as the host loads them", async () => {
    writeFileSync(
      join(dir, "program.js"),
      `const Module = require("node:module");
const pulumi = require("@pulumi/pulumi");
const registrations = [];
pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      registrations.push(args);
      const ids = { appId: "b2000000-0000-0000-0000-000000000002", objectId: "b1", principalId: "b3", identityId: args.name + "-oid", userId: args.name + "-uid", value: "s" };
      return { id: args.name + "-id", state: { ...args.inputs, ...ids } };
    },
    call: (args) => (args.token.endsWith("getClientConfig") ? { tenantId: "t" } : { objectId: "g", clientId: "00000003-0000-0000-c000-000000000000", servicePrincipalNames: [] }),
  },
  "project", "stack", false,
);
const { AgentUserKit } = require("agent-user-kit/pulumi");
const kit = new AgentUserKit("kit", {
  blueprintName: "b",
  sponsors: ["5e000000-0000-0000-0000-000000000001"],
  userDomain: "contoso.onmicrosoft.com",
  agents: [{ name: "a", userName: "agent-a" }, { name: "b", userName: "agent-b" }, { name: "c", userName: "agent-c" }],
});
kit.outputs.agents.apply((agents) => {
  const dynamic = registrations.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"));
  const required = new Set();
  for (const r of dynamic) for (const m of r.inputs.__provider.matchAll(/require\\("([^"]+)"\\)/g)) required.add(m[1]);
  // Load each provider the way the dynamic-provider host does: compiled from its text.
  const loaded = dynamic.map((r) => {
    const m = new Module("", undefined);
    m.paths = Module._nodeModulePaths(process.cwd());
    m._compile(r.inputs.__provider, "");
    return typeof m.exports.handler().create;
  });
  console.log(JSON.stringify({ agents: Object.keys(agents), dynamic: dynamic.length, loaded, required: [...required].sort() }));
  try {
    new AgentUserKit("mi", { blueprintName: "b", sponsors: ["5e000000-0000-0000-0000-000000000001"], userDomain: "contoso.onmicrosoft.com",
      agents: [{ name: "a", userName: "a" }], credential: "managedIdentity", resourceGroupName: "rg", location: "westeurope" });
  } catch (err) {
    console.log(err.message);
  }
});
`,
    );
    const run = await runNode(dir, "program.js");
    expect(run.stderr).toBe("");
    const [first, second] = run.stdout.trim().split("\n");
    const report = JSON.parse(first!) as { agents: string[]; dynamic: number; loaded: string[]; required: string[] };
    expect(report.agents).toEqual(["a", "b", "c"]);
    // One blueprint and its principal, then an identity and an agent user per agent.
    expect(report.dynamic).toBe(2 + 3 * 2);
    expect(report.loaded).toEqual(Array(8).fill("function"));
    expect(report.required.length).toBeGreaterThan(0);
    expect(report.required.every((m) => m.startsWith("agent-user-kit/dist/infra/"))).toBe(true);
    // azure-native is not installed: only the one mode that needs it says so, by name.
    expect(second).toMatch(/needs the @pulumi\/azure-native package, which is not installed/);
  });
});
