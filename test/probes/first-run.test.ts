/**
 * A new platform engineer's first hour, through the built CLI (spawned, as a
 * shell runs it): typos, help, first errors, progress while waiting, and
 * comment captures started in the same second.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { selfSignedCertificate } from "../../emulator/certificate";
import { SHARE_URLS } from "../../emulator/seed";
import { CaptureDir } from "../../probes/comments/capture-dir";
import { NO_ENV, useEmulator, writeOutputs } from "../harness";

const CLI = join(resolve(__dirname, "../.."), "dist/probes/agent-user.js");
const ctx = useEmulator();

/** The built CLI as a separate process (the emulator answers from this one), with exactly `env`. */
function cli(args: string[], env: NodeJS.ProcessEnv = NO_ENV, cwd = ctx.scratch.dir): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

describe("help and typos", () => {
  it("no arguments: usage on stderr, exit 2", async () => {
    const run = await cli([]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(/^agent-user: mint and probe/);
  });

  it("agent-user help token prints the token help", async () => {
    const run = await cli(["help", "token"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^agent-user token: /);
  });

  it("a mistyped command or flag gets a did-you-mean line, and an unknown flag is called one", async () => {
    expect((await cli(["tokn"])).stderr).toMatch(/unknown command "tokn"; did you mean "token"\?/);
    // A name every object has is no command either.
    const inherited = await cli(["constructor"]);
    expect(inherited.code).toBe(2);
    expect(inherited.stderr).toMatch(/unknown command "constructor"/);
    const jsn = await cli(["token", "--jsn"]);
    expect(jsn.code).toBe(2);
    expect(jsn.stderr).toMatch(/^error: usage: unknown flag --jsn for agent-user token; did you mean --json\?/);
    expect((await cli(["token", "--output", "x.json"])).stderr).toMatch(/did you mean --outputs\?/);
    expect((await cli(["manifest", "--requir", "x"])).stderr).toMatch(/did you mean --require\?/);
  });

  it("--graph is an option of comments, not of token", async () => {
    expect((await cli(["token", "--help"])).stdout).not.toContain("--graph");
    expect((await cli(["comments", "--help"])).stdout).toContain("--graph URL");
    expect((await cli(["token", "--graph", "https://graph.microsoft.com"])).stderr).toMatch(/unknown flag --graph for agent-user token/);
  });
});

describe("first errors", () => {
  it("token with nothing set lists every missing input at once and points at --outputs", async () => {
    const run = await cli(["token"]);
    expect(run.code).toBe(2);
    for (const flag of ["--tenant", "--blueprint-app-id", "--agent-identity", "--agent-user", "a blueprint credential"]) expect(run.stderr).toContain(`missing ${flag}`);
    expect(run.stderr).toContain("pulumi stack output --json --show-secrets > outputs.json");
  });

  it("--outputs naming a missing file gets the pulumi line that writes it", async () => {
    const run = await cli(["token", "--outputs", "nope.json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("hint: write it after `pulumi up` with `pulumi stack output --json --show-secrets > nope.json`");
  });

  it("a certificate name mismatch gets its own hint, not the NODE_EXTRA_CA_CERTS one", async () => {
    // A trusted certificate, for another host than the one the URL names.
    const tls = selfSignedCertificate({ commonName: "idp.example.com", hosts: ["idp.example.com"] });
    const server = createServer({ key: tls.privateKeyPem, cert: tls.certificatePem }, (_req, res) => res.end("{}"));
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const port = (server.address() as AddressInfo).port;
    const file = writeOutputs(ctx.scratch.dir, { ...ctx.emulator.outputs(), authorityUrl: `https://127.0.0.1:${port}` });
    writeFileSync(join(ctx.scratch.dir, "other-ca.pem"), tls.certificatePem);
    const run = await cli(["token", "--outputs", file], { NODE_EXTRA_CA_CERTS: join(ctx.scratch.dir, "other-ca.pem") }).finally(() => server.close());
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(run.stderr).toMatch(/hint: the server's certificate names another host than the URL's/);
    expect(run.stderr).not.toContain("NODE_EXTRA_CA_CERTS");
  });

  it("manifest says when a required server differs only in case", async () => {
    const file = join(ctx.scratch.dir, "ToolingManifest.json");
    writeFileSync(file, JSON.stringify({ mcpServers: [{ mcpServerName: "mcp_wordserver", url: "https://example.com/mcp", scope: "McpServers.Word.All", audience: "ea9ffc3e-8a23-4a7d-836d-234d7c7565c1" }] }));
    const run = await cli(["manifest", file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("found mcp_wordserver, which differs only in case");
  });
});

describe("waiting is never silent on a terminal or with --verbose, and never in --json", () => {
  afterEach(() => ctx.emulator.faults.reset());

  it("--verbose says where each input came from and each wait; the secret's value never appears", async () => {
    const out = ctx.emulator.outputs();
    const file = writeOutputs(ctx.scratch.dir, out);
    ctx.emulator.faults.set({ throttle: 1, retryAfterS: 1, target: "token" });
    const run = await cli(["token", "--outputs", file, "--verbose"], { AGENT_USER_TENANT_ID: out.tenantId });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`input tenantId = ${out.tenantId} (from AGENT_USER_TENANT_ID)`);
    expect(run.stderr).toContain(`input agentIdentityId = ${out.agentIdentityId} (from --outputs ("agentIdentityId"))`);
    expect(run.stderr).toContain('input blueprint credential: client secret from --outputs ("blueprintClientSecret") (value not shown)');
    expect(run.stderr).toMatch(/waiting 1\.0 s before attempt 2: hop 1 \(blueprint token\): AADSTS90055/);
    expect(run.stderr + run.stdout).not.toContain(out.blueprintClientSecret);
  });

  it("with --json nothing goes to stderr, waits included", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.emulator.outputs());
    ctx.emulator.faults.set({ throttle: 1, retryAfterS: 1, target: "token" });
    const run = await cli(["token", "--outputs", file, "--json", "--verbose"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
  });

  it("a spent consistency window is not answered with advice to pass it again", async () => {
    const file = writeOutputs(ctx.scratch.dir, ctx.emulator.outputs(), { agentUserId: "00000000-0000-4000-8000-0000000000aa" });
    const run = await cli(["token", "--outputs", file, "--consistency-window", "1"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/hint: still not there after the 1 s consistency window/);
    expect(run.stderr).not.toContain("--consistency-window 120");
  });
});

describe("comments runs in the same second", () => {
  it("get distinct default folders; two runs into one --out are told exactly that, and keep their capture", async () => {
    const dir = join(ctx.scratch.dir, `same-second-${Date.now()}`);
    mkdirSync(dir);
    const file = writeOutputs(ctx.scratch.dir, ctx.emulator.outputs());
    const runs = await Promise.all([0, 1, 2].map(() => cli(["comments", SHARE_URLS.workbook, "--outputs", file], NO_ENV, dir)));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(new Set(readdirSync(join(dir, "captures"))).size).toBe(3);

    const both = await Promise.all([0, 1].map(() => cli(["comments", SHARE_URLS.workbook, "--outputs", file, "--out", "shared"], NO_ENV, dir)));
    // One wins; the other either saw the folder before sending anything, or lost the final rename.
    expect(both.map((r) => r.code).sort()).toEqual([0, 2]);
    const loser = both.find((r) => r.code === 2)!;
    expect(loser.stderr).toMatch(/--out \S+shared (already exists; a capture never overwrites another|was created by another run while this one captured; this capture is kept, complete, in \S+shared-[0-9a-f]{6})/);
    expect(both.some((r) => /ENOTEMPTY|writable disk/.test(r.stderr))).toBe(false);
  });

  it("a run that loses the final rename to another says so, and keeps its complete capture beside", async () => {
    const target = join(ctx.scratch.dir, `race-${Date.now()}`);
    const capture = await CaptureDir.create(target);
    await capture.write("capture.json", "{}");
    // Another run finishes first.
    mkdirSync(target);
    writeFileSync(join(target, "capture.json"), "{}");
    const err = (await capture.commit().catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/was created by another run while this one captured; this capture is kept, complete, in (\S+)$/);
    const kept = /kept, complete, in (\S+)$/.exec(err.message)![1]!;
    expect(readdirSync(kept)).toEqual(["capture.json"]);
    expect(readdirSync(join(target, ".."))).not.toContainEqual(expect.stringMatching(/\.partial-/));
  });

  it("a dangling link or a file in the way of --out is refused before any request", async () => {
    const dir = join(ctx.scratch.dir, `links-${Date.now()}`);
    mkdirSync(dir);
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
    writeFileSync(join(dir, "afile"), "");
    const file = writeOutputs(ctx.scratch.dir, ctx.emulator.outputs());
    const before = ctx.emulator.requests.length;
    const dangling = await cli(["comments", SHARE_URLS.workbook, "--outputs", file, "--out", "dangling"], NO_ENV, dir);
    expect(dangling.code).toBe(2);
    expect(dangling.stderr).toMatch(/already exists; a capture never overwrites another, nor writes through a link/);
    const underFile = await cli(["comments", SHARE_URLS.workbook, "--outputs", file, "--out", "afile/capture"], NO_ENV, dir);
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toMatch(/afile is not a directory/);
    expect(ctx.emulator.requests.length).toBe(before);
  });
});

describe("progress on a terminal", () => {
  it("is shown on a terminal without --verbose, and not when stderr is not one", async () => {
    const { progressHooks } = await import("../../probes/progress");
    const lines: string[] = [];
    const io = { stdout: () => undefined, stderr: (t: string) => void lines.push(t), env: {}, cwd: ctx.scratch.dir };
    progressHooks({ ...io, stderrIsTTY: true }, { verbose: false, json: false })!.onRetry!(new Error("hop 2 (agent identity token): AADSTS90055"), 1, 2500);
    expect(lines).toEqual(["waiting 2.5 s before attempt 2: hop 2 (agent identity token): AADSTS90055\n"]);
    expect(progressHooks({ ...io, stderrIsTTY: false }, { verbose: false, json: false })).toBeUndefined();
    expect(progressHooks({ ...io, stderrIsTTY: true }, { verbose: true, json: true })).toBeUndefined();
  });
});
