/**
 * An argument given as a Pulumi secret that fails a check: the error names
 * the argument and its problem, and shows nothing of the value, from the
 * TypeScript component and from the plugin's construct (where the engine
 * hands a program's `fn::secret` over as a secret Output). The checks of a
 * secret run once it resolves, inside an apply, so each case is a program of
 * the built package under Pulumi's mocks, as `pulumi up` runs one.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
const SPONSOR = "5e000000-0000-0000-0000-000000000001";
const BASE = `{ blueprintName: "Team", sponsors: [${JSON.stringify(SPONSOR)}], userDomain: "contoso.onmicrosoft.com", agents: [{ name: "a", userName: "agent-a" }] }`;

/** Each case: a name for its kit, the arguments beside BASE (JavaScript, with `pulumi` in scope), the key the error must name, and the secret it must not show. */
type Case = [name: string, args: string, key: string, value: string];

const COMPONENT: Case[] = [
  ["end-date", `credential: { mode: "secret", endDate: pulumi.secret("not-a-date") }`, "secretEndDate", "not-a-date"],
  ["sponsor", `sponsors: [pulumi.secret("sponsor-hunter2")]`, "sponsors", "sponsor-hunter2"],
  // TypeScript's credential takes its mode as a plain value: a secret mode is the whole credential a secret.
  ["mode", `credential: pulumi.secret({ mode: "mode-hunter2" })`, "credential", "mode-hunter2"],
  ["agent", `agents: [{ name: "hunter2-agent", userName: pulumi.secret("user hunter2") }]`, "agents", "hunter2"],
];

const PLUGIN: Case[] = [
  ["end-date", `credential: { mode: "secret", endDate: pulumi.secret("not-a-date") }`, "secretEndDate", "not-a-date"],
  ["sponsor", `sponsors: pulumi.secret(["sponsor-hunter2"])`, "sponsors", "sponsor-hunter2"],
  ["mode", `credential: pulumi.secret({ mode: "mode-hunter2" })`, "credential", "mode-hunter2"],
  ["mode-inside", `credential: { mode: pulumi.secret("mode-hunter2") }`, "credential", "mode-hunter2"],
];

/**
 * Runs the cases in one program and answers each kit's error message: the
 * check of a secret fails an Output, which Pulumi leaves as an unhandled
 * rejection, or construct's own promise; Pulumi also logs each to stderr,
 * which is what the engine shows.
 */
function messages(cases: readonly Case[], make: (name: string, args: string) => string): { messages: Record<string, string>; stderr: string } {
  const program = `
    const pulumi = require("@pulumi/pulumi");
    const seen = {};
    const note = (err) => {
      const message = String(err && err.message);
      const name = /AgentUserKit "([^"]+)"/.exec(message)?.[1] ?? "?";
      seen[name] ??= message;
    };
    process.on("unhandledRejection", note);
    process.on("exit", () => console.log(JSON.stringify(seen)));
    pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({ tenantId: "t", objectId: "o", clientId: "c", servicePrincipalNames: [] }) }, "p", "s", false).then(() => {
      ${cases.map(([name, args]) => make(name, `{ ...${BASE}, ${args} }`)).join("\n")}
    });`;
  const run = spawnSync(process.execPath, ["-e", program], { cwd: ROOT, encoding: "utf8" });
  return { messages: JSON.parse(run.stdout.trim().split("\n").pop()!) as Record<string, string>, stderr: run.stderr };
}

describe("a secret argument that fails a check", () => {
  let component: ReturnType<typeof messages>;
  let plugin: ReturnType<typeof messages>;
  beforeAll(() => {
    component = messages(COMPONENT, (name, args) => `new (require("./dist/infra").AgentUserKit)(${JSON.stringify(name)}, ${args});`);
    const provider = `new (require("./dist/infra/plugin/provider").PackageProvider)(() => process.cwd())`;
    plugin = messages(PLUGIN, (name, args) => `${provider}.construct(${JSON.stringify(name)}, "agent-user-kit:index:AgentUserKit", ${args}, {}).catch(note);`);
  });

  it.each(COMPONENT)("names the argument and its problem, never the value: the TypeScript component (%s)", (name, _args, key, value) => {
    expect(component.messages[name]).toContain(`AgentUserKit "${name}": ${key} `);
    expect(component.messages[name]).toContain("[secret]");
    expect(component.messages[name]).not.toContain(value);
    expect(component.stderr).not.toContain(value);
  });

  it.each(PLUGIN)("names the argument and its problem, never the value: the plugin's construct (%s)", (name, _args, key, value) => {
    expect(plugin.messages[name]).toContain(`AgentUserKit "${name}": ${key} `);
    expect(plugin.messages[name]).toContain("[secret]");
    expect(plugin.messages[name]).not.toContain(value);
    expect(plugin.stderr).not.toContain(value);
  });
});
