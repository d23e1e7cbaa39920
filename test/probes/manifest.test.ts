import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ExitCode } from "../../lib/errors";
import type { CliIo } from "../../probes/cli-io";
import { run } from "../../probes/commands/manifest";
import type { TriedPath } from "../../probes/manifest/candidates";
import type { ManifestProblem } from "../../probes/manifest/problems";
import { formatManifestReport, inspectManifest, type ManifestReport } from "../../probes/manifest/report";

const ROOT = path.resolve(__dirname, "../..");
const V1_SAMPLE = path.join(ROOT, "probes/samples/ToolingManifest.json");
const V2_SAMPLE = path.join(ROOT, "probes/samples/ToolingManifest.v2.json");
const V1_AUDIENCE = "ea9ffc3e-8a23-4a7d-836d-234d7c7565c1";

function fixture(name: string): string {
  return path.join(ROOT, "test/fixtures/manifests", name);
}

interface Captured {
  io: CliIo;
  stdout: () => string;
  stderr: () => string;
}

function capture(cwd: string, env: NodeJS.ProcessEnv = {}): Captured {
  let out = "";
  let err = "";
  return {
    io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env, cwd },
    stdout: () => out,
    stderr: () => err,
  };
}

/** Runs the command with --json and returns its exit code and its single JSON object. */
async function runJson(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; body: Record<string, unknown>; stderr: string }> {
  const c = capture(cwd, env);
  const code = await run([...argv, "--json"], c.io);
  const lines = c.stdout().trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return { code, body: JSON.parse(lines[0]) as Record<string, unknown>, stderr: c.stderr() };
}

async function runJsonReport(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; report: ManifestReport }> {
  const { code, body } = await runJson(argv, cwd, env);
  return { code, report: body as unknown as ManifestReport };
}

/** A manifest holding only the Word server plus one marker server, so a test can tell which file was read. */
function markedManifest(marker: string): string {
  return JSON.stringify({
    mcpServers: [
      { mcpServerName: "mcp_WordServer", scope: "McpServers.Word.All", audience: V1_AUDIENCE },
      { mcpServerName: marker, scope: "Tools.ListInvoke.All", audience: "910333d2-47e9-43ca-981f-6df2f4531ef4" },
    ],
  });
}

async function writeManifest(file: string, marker: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, markedManifest(marker));
  return file;
}

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "agent-user-manifest-"));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("agent-user manifest: registered servers", () => {
  it("prints every V1 sample server with its url, shared audience and token scope, and confirms Word", async () => {
    const sample = JSON.parse(await readFile(V1_SAMPLE, "utf8")) as { mcpServers: Array<{ mcpServerName: string; url: string; scope: string }> };
    const c = capture(tmp);
    const code = await run([V1_SAMPLE], c.io);

    expect(code).toBe(ExitCode.ok);
    expect(c.stderr()).toBe("");
    const out = c.stdout();
    expect(out).toContain(`Tooling manifest ${V1_SAMPLE} (from the PATH argument): ${sample.mcpServers.length} servers.`);
    for (const s of sample.mcpServers) {
      expect(out).toContain(`  ${s.mcpServerName}: ${s.url}; V1 shared audience ${V1_AUDIENCE}; token scope ${V1_AUDIENCE}/.default, which must grant ${s.scope}\n`);
    }
    expect(out).toContain("Registered: mcp_WordServer.");
  });

  it("prints one JSON object describing each V1 server", async () => {
    const { code, report } = await runJsonReport([V1_SAMPLE], tmp);

    expect(code).toBe(ExitCode.ok);
    expect(report).toMatchObject({ ok: true, file: V1_SAMPLE, source: "argument", required: ["mcp_WordServer"], missing: [], warnings: [] });
    expect(report.servers.map((s) => s.permissionModel)).toEqual(report.servers.map(() => "v1-shared-audience"));
    expect(report.servers[0]).toEqual({
      index: 0,
      name: "mcp_WordServer",
      uniqueName: "mcp_WordServer",
      url: "https://agent365.svc.cloud.microsoft/agents/servers/mcp_WordServer",
      audience: V1_AUDIENCE,
      scope: "McpServers.Word.All",
      permissionModel: "v1-shared-audience",
      tokenScope: `${V1_AUDIENCE}/.default`,
      note: null,
    });
  });

  it("gives each V2 server its own audience and the token scope {audience}/Tools.ListInvoke.All", async () => {
    const { code, report } = await runJsonReport([V2_SAMPLE], tmp);

    expect(code).toBe(ExitCode.ok);
    expect(report.servers.map((s) => [s.name, s.permissionModel, s.tokenScope])).toEqual([
      ["mcp_WordServer", "v2-own-audience", "c2d0c2b6-8013-4346-9f8b-b81d3b754a29/Tools.ListInvoke.All"],
      ["mcp_MailTools", "v2-own-audience", "16b1878d-62c7-4009-aa25-68989d63bbad/Tools.ListInvoke.All"],
      ["mcp_CalendarTools", "v2-own-audience", "910333d2-47e9-43ca-981f-6df2f4531ef4/Tools.ListInvoke.All"],
      ["mcp_MeServer", "v2-own-audience", "147dc821-b413-44c0-8009-1a3098378012/Tools.ListInvoke.All"],
    ]);

    const c = capture(tmp);
    await run([V2_SAMPLE], c.io);
    expect(c.stdout()).toContain(
      "  mcp_WordServer: https://agent365.svc.cloud.microsoft/agents/servers/mcp_WordServer; V2 own audience c2d0c2b6-8013-4346-9f8b-b81d3b754a29; token scope c2d0c2b6-8013-4346-9f8b-b81d3b754a29/Tools.ListInvoke.All\n",
    );
  });

  it("says plainly when an entry does not give enough to classify it, and never guesses a token scope", async () => {
    const { code, report } = await runJsonReport([fixture("classification.json")], tmp);

    expect(code).toBe(ExitCode.ok);
    const byName = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(byName.mcp_WordServer).toMatchObject({ permissionModel: "unclassified", tokenScope: null, url: null });
    expect(byName.mcp_WordServer.note).toContain(`no "audience" is given, so V1 and V2 cannot be told apart`);
    // The shared audience is recognised in its api:// and upper-case spellings too.
    expect(byName.mcp_CalendarTools).toMatchObject({ permissionModel: "v1-shared-audience", tokenScope: `${V1_AUDIENCE}/.default`, note: null });
    expect(byName.mcp_TeamsServer).toMatchObject({ permissionModel: "v1-shared-audience", tokenScope: `${V1_AUDIENCE}/.default` });
    expect(byName.mcp_MeServer).toMatchObject({ permissionModel: "unclassified", tokenScope: null });
    expect(byName.mcp_MeServer.note).toContain("api:// URI other than the shared V1 audience");
    expect(byName.mcp_M365Copilot).toMatchObject({ permissionModel: "unclassified", tokenScope: null });
    expect(byName.mcp_M365Copilot.note).toContain(`"audience" "copilot" is neither the shared V1 audience nor an application id (GUID)`);
    expect(byName.mcp_ODSPRemoteServer).toMatchObject({ permissionModel: "v2-own-audience", tokenScope: null });
    expect(byName.mcp_ODSPRemoteServer.note).toContain(`no "scope" is given`);
    expect(byName.mcp_SharePointRemoteServer).toMatchObject({ permissionModel: "v1-shared-audience", tokenScope: `${V1_AUDIENCE}/.default` });
    expect(byName.mcp_SharePointRemoteServer.note).toContain(`no "scope" is given`);
    // Named only by mcpServerUniqueName, as Microsoft's SDK allows; url null means unset.
    expect(byName.mcp_OneDriveRemoteServer).toMatchObject({ uniqueName: "mcp_OneDriveRemoteServer", url: null, permissionModel: "v2-own-audience" });

    const c = capture(tmp);
    await run([fixture("classification.json")], c.io);
    expect(c.stdout()).toContain(`  mcp_WordServer: no url (Microsoft's SDK builds one from its gateway base URL and the name); permission model unknown: no "audience" is given`);
  });

  it("exits 1 naming mcp_WordServer when the Word server is not registered", async () => {
    const file = fixture("word-missing.json");
    const c = capture(tmp);
    const code = await run([file], c.io);

    expect(code).toBe(ExitCode.notRegistered);
    expect(c.stdout()).toContain("NOT registered: mcp_WordServer.");
    expect(c.stderr()).toBe(`error: not registered in ${file}: mcp_WordServer\n`);

    const json = await runJsonReport([file], tmp);
    expect(json.code).toBe(ExitCode.notRegistered);
    expect(json.report).toMatchObject({ ok: false, file, required: ["mcp_WordServer"], missing: ["mcp_WordServer"] });
    expect(json.report.servers.map((s) => s.name)).toEqual(["mcp_MailTools", "mcp_CalendarTools"]);
  });

  it("--require adds servers that must be registered, by mcpServerName or mcpServerUniqueName", async () => {
    const present = await runJsonReport([V1_SAMPLE, "--require", "mcp_MailTools", "--require", "mcp_MeServer"], tmp);
    expect(present.code).toBe(ExitCode.ok);
    expect(present.report).toMatchObject({ ok: true, required: ["mcp_WordServer", "mcp_MailTools", "mcp_MeServer"], missing: [] });

    const byUniqueName = await runJsonReport([fixture("classification.json"), "--require", "mcp_OneDriveRemoteServer"], tmp);
    expect(byUniqueName.code).toBe(ExitCode.ok);

    const c = capture(tmp);
    const code = await run([V1_SAMPLE, "--require", "mcp_MailTools", "--require", "mcp_ExcelServer", "--require", "mcp_PowerPointServer"], c.io);
    expect(code).toBe(ExitCode.notRegistered);
    expect(c.stderr()).toBe(`error: not registered in ${V1_SAMPLE}: mcp_ExcelServer, mcp_PowerPointServer\n`);
  });

  it("accepts plain http only for loopback hosts", async () => {
    const { code, report } = await runJsonReport([fixture("loopback-http.json")], tmp);
    expect(code).toBe(ExitCode.ok);
    expect(report.servers.map((s) => s.url)).toEqual(["http://localhost:5309/agents/servers/mcp_WordServer", "http://[::1]:5309/agents/servers/mcp_MailTools"]);
  });

  it("exposes inspectManifest and formatManifestReport for npm start", () => {
    const report = inspectManifest({ cwd: ROOT, env: {}, path: "probes/samples/ToolingManifest.json" });
    expect(report.ok).toBe(true);
    const text = formatManifestReport(report);
    expect(text.startsWith(`Tooling manifest ${V1_SAMPLE} (from the PATH argument): 5 servers.\n`)).toBe(true);
    expect(text.endsWith("Registered: mcp_WordServer.\n")).toBe(true);
  });
});

describe("agent-user manifest: where the file is looked for", () => {
  const WORKING = () => path.join(tmp, "ToolingManifest.json");
  const DEFAULT_TOOLING = () => path.join(tmp, ".a365", "ToolingManifest.json");

  it("PATH shadows AGENT_USER_TOOLING_MANIFEST, which shadows ./ToolingManifest.json, which shadows the tooling dir", async () => {
    const argument = await writeManifest(path.join(tmp, "given", "chosen.json"), "mcp_FromArgument");
    const fromEnv = await writeManifest(path.join(tmp, "env", "ToolingManifest.json"), "mcp_FromEnvironment");
    await writeManifest(WORKING(), "mcp_FromWorkingDirectory");
    await writeManifest(DEFAULT_TOOLING(), "mcp_FromToolingDirectory");
    const env = { AGENT_USER_TOOLING_MANIFEST: "env/ToolingManifest.json" };

    const level1 = await runJsonReport(["given/chosen.json"], tmp, env);
    expect(level1.report).toMatchObject({ file: argument, source: "argument" });
    expect(level1.report.servers[1].name).toBe("mcp_FromArgument");

    const level2 = await runJsonReport([], tmp, env);
    expect(level2.report).toMatchObject({ file: fromEnv, source: "environment" });
    expect(level2.report.servers[1].name).toBe("mcp_FromEnvironment");

    const level3 = await runJsonReport([], tmp);
    expect(level3.report).toMatchObject({ file: WORKING(), source: "working-directory" });
    expect(level3.report.servers[1].name).toBe("mcp_FromWorkingDirectory");

    await rm(WORKING());
    const level4 = await runJsonReport([], tmp);
    expect(level4.report).toMatchObject({ file: DEFAULT_TOOLING(), source: "tooling-directory" });
    expect(level4.report.servers[1].name).toBe("mcp_FromToolingDirectory");
    expect(level4.report.tried.map((t) => [t.path, t.found])).toEqual([
      [WORKING(), false],
      [DEFAULT_TOOLING(), true],
    ]);
  });

  it("the tooling dir comes from --tooling-dir, else AGENT_USER_TOOLING_DIR, else .a365, relative to the working directory", async () => {
    await writeManifest(DEFAULT_TOOLING(), "mcp_FromDefault");
    const fromEnv = await writeManifest(path.join(tmp, "env-tools", "ToolingManifest.json"), "mcp_FromEnvDir");
    const fromFlag = await writeManifest(path.join(tmp, "flag-tools", "ToolingManifest.json"), "mcp_FromFlagDir");
    const env = { AGENT_USER_TOOLING_DIR: "env-tools" };

    expect((await runJsonReport(["--tooling-dir", "flag-tools"], tmp, env)).report.file).toBe(fromFlag);
    expect((await runJsonReport([], tmp, env)).report.file).toBe(fromEnv);
    expect((await runJsonReport([], tmp)).report.file).toBe(DEFAULT_TOOLING());
  });

  it("AGENT_USER_TOOLING_MANIFEST naming a missing file fails instead of falling back to ./ToolingManifest.json", async () => {
    await writeManifest(WORKING(), "mcp_FromWorkingDirectory");
    const c = capture(tmp, { AGENT_USER_TOOLING_MANIFEST: "typo/ToolingManifest.json" });
    const code = await run([], c.io);

    expect(code).toBe(ExitCode.usage);
    expect(c.stderr()).toContain(`${path.join(tmp, "typo", "ToolingManifest.json")} (AGENT_USER_TOOLING_MANIFEST)`);
    expect(c.stdout()).toBe("");
  });

  it("no file found: exits 2 and lists every path tried, in order", async () => {
    const c = capture(tmp);
    const code = await run([], c.io);

    expect(code).toBe(ExitCode.usage);
    expect(c.stderr()).toContain(
      `no tooling manifest found; tried, in order:\n  ${WORKING()} (the working directory)\n  ${DEFAULT_TOOLING()} (the tooling directory)\n`,
    );
    expect(c.stderr()).toContain("hint: ");

    const json = await runJson([], tmp);
    expect(json.code).toBe(ExitCode.usage);
    expect(json.body).toMatchObject({ ok: false, error: "usage" });
    expect((json.body.tried as Array<{ path: string }>).map((t) => t.path)).toEqual([WORKING(), DEFAULT_TOOLING()]);
  });

  it("a file of the wrong case beside a tried path is named as such", async () => {
    const wrongCase = path.join(tmp, "toolingmanifest.json");
    await writeFile(wrongCase, markedManifest("mcp_Ignored"));
    const c = capture(tmp);
    const code = await run([], c.io);

    expect(code).toBe(ExitCode.usage);
    expect(c.stderr()).toContain(`${wrongCase} exists, but its name differs from ToolingManifest.json in letter case`);
  });

  it("a wrong-case file shadowed by a lower level is reported as a warning", async () => {
    await writeFile(path.join(tmp, "TOOLINGMANIFEST.JSON"), markedManifest("mcp_Ignored"));
    await writeManifest(DEFAULT_TOOLING(), "mcp_FromToolingDirectory");
    const c = capture(tmp);
    const code = await run([], c.io);

    expect(code).toBe(ExitCode.ok);
    expect(c.stdout()).toContain(`warning: ${path.join(tmp, "TOOLINGMANIFEST.JSON")} was skipped because its name differs from ToolingManifest.json in letter case; ${DEFAULT_TOOLING()} was used instead`);
  });
});

describe("agent-user manifest: bad input exits 2 naming the file, entry and field", () => {
  async function failure(file: string): Promise<{ stderr: string; problems: ManifestProblem[]; tried: TriedPath[] }> {
    const c = capture(tmp);
    expect(await run([file], c.io)).toBe(ExitCode.usage);
    expect(c.stdout()).toBe("");
    const json = await runJson([file], tmp);
    expect(json.code).toBe(ExitCode.usage);
    expect(json.body).toMatchObject({ ok: false, error: "usage" });
    return { stderr: c.stderr(), problems: json.body.problems as ManifestProblem[], tried: json.body.tried as TriedPath[] };
  }

  it("invalid JSON: file, line and column", async () => {
    const file = fixture("invalid-json.json");
    const { stderr, problems, tried } = await failure(file);

    expect(stderr).toContain(`${file}:6:7: invalid JSON: expected ',' or '}' after a property value, found '"'`);
    expect(problems).toEqual([expect.objectContaining({ file, line: 6, column: 7 })]);
    expect(tried).toEqual([expect.objectContaining({ path: file, source: "argument", found: true })]);
  });

  it("mcpServers missing", async () => {
    const file = fixture("no-mcp-servers.json");
    const { stderr, problems } = await failure(file);

    expect(stderr).toContain(`${file}: field "mcpServers": is missing`);
    expect(problems).toEqual([expect.objectContaining({ file, field: "mcpServers", entry: null })]);
  });

  it("mcpServers not an array", async () => {
    const file = fixture("mcp-servers-object.json");
    const { stderr } = await failure(file);

    expect(stderr).toContain(`${file}: field "mcpServers": must be an array of server entries, found an object`);
  });

  it("an entry with no name", async () => {
    const file = fixture("no-name.json");
    const { stderr, problems } = await failure(file);

    expect(stderr).toContain(`${file}: mcpServers[1]: field "mcpServerName": the entry has no name`);
    expect(problems).toEqual([expect.objectContaining({ file, entry: { index: 1, name: null }, field: "mcpServerName" })]);
  });

  it("duplicate names", async () => {
    const file = fixture("duplicate-names.json");
    const { stderr, problems } = await failure(file);

    expect(stderr).toContain(`${file}: mcpServers[2] "mcp_WordServer": field "mcpServerName": duplicate name: mcpServers[0] is also named "mcp_WordServer"`);
    expect(problems).toEqual([expect.objectContaining({ entry: { index: 2, name: "mcp_WordServer" }, field: "mcpServerName" })]);
  });

  it("a url that is not https, while the loopback one beside it passes", async () => {
    const file = fixture("insecure-url.json");
    const { stderr, problems } = await failure(file);

    expect(stderr).toContain(`${file}: mcpServers[1] "mcp_MailTools": field "url": must use https`);
    expect(stderr).toContain(`"http://agent365.example.com/agents/servers/mcp_MailTools"`);
    expect(problems).toEqual([expect.objectContaining({ entry: { index: 1, name: "mcp_MailTools" }, field: "url" })]);
  });

  it("every bad entry is reported in one run, with fields of the wrong type", async () => {
    const file = path.join(tmp, "ToolingManifest.json");
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: [
          { mcpServerName: "mcp_WordServer", audience: 42 },
          "mcp_MailTools",
          { mcpServerName: "mcp_X", url: "not a url" },
          { mcpServerName: "mcp_Y", url: "https://ops:hunter2@tools.example.com/mcp" },
        ],
      }),
    );
    const { stderr, problems } = await failure(file);

    expect(stderr).toContain(`4 problems in ${file}:`);
    expect(problems.map((p) => [p.entry?.index, p.field])).toEqual([
      [0, "audience"],
      [1, null],
      [2, "url"],
      [3, "url"],
    ]);
    // The same URL rule as every other URL the kit takes: no credentials in it, and never repeated.
    expect(stderr).toContain(`mcpServers[3] "mcp_Y": field "url": must not carry a user name or password`);
    expect(stderr).not.toContain("hunter2");
    expect(stderr).toContain(`mcpServers[0] "mcp_WordServer": field "audience": must be a string, found a number`);
    expect(stderr).toContain(`mcpServers[1]: must be an object, found a string`);
    expect(stderr).toContain(`mcpServers[2] "mcp_X": field "url": is not an absolute URL`);
  });

  it("argument errors: unknown option, two paths, empty --require", async () => {
    for (const argv of [["--verbose"], ["a.json", "b.json"], ["--require", ""]]) {
      const c = capture(tmp);
      expect(await run(argv, c.io)).toBe(ExitCode.usage);
      expect(c.stderr()).toMatch(/^error: /);
    }
    const json = await runJson(["--bogus"], tmp);
    expect(json.code).toBe(ExitCode.usage);
    expect(json.body).toMatchObject({ ok: false, error: "usage" });
  });

  it("--help prints usage and exits 0", async () => {
    const c = capture(tmp);
    expect(await run(["--help"], c.io)).toBe(ExitCode.ok);
    expect(c.stdout()).toContain("Usage: agent-user manifest [PATH]");
    expect(c.stdout()).toContain("--require NAME");
  });
});

describe("the built CLI", () => {
  const cli = path.join(ROOT, "dist/probes/agent-user.js");

  it("runs `agent-user manifest` through the built bin (build first: npm run build)", async () => {
    expect(existsSync(path.join(ROOT, "dist/probes/commands/manifest.js"))).toBe(true);
    const sample = path.join(tmp, "ToolingManifest.json");
    await copyFile(V1_SAMPLE, sample);

    const ok = spawnSync(process.execPath, [cli, "manifest", "--json"], { cwd: tmp, encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(ok.status).toBe(ExitCode.ok);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, file: sample, source: "working-directory", missing: [] });

    const missing = spawnSync(process.execPath, [cli, "manifest", "--require", "mcp_Nope"], { cwd: tmp, encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(missing.status).toBe(ExitCode.notRegistered);
    expect(missing.stderr).toBe(`error: not registered in ${sample}: mcp_Nope\n`);
  });
});
