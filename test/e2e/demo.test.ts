import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

describe("npm start (the demo on the embedded emulator)", () => {
  let cwd: string;
  beforeAll(() => {
    const build = spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, encoding: "utf8" });
    expect(build.status).toBe(0);
    cwd = mkdtempSync(join(tmpdir(), "agent-user-demo-test-"));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("runs the three probes, reports each ok, exits 0 and leaves nothing running", () => {
    // spawnSync returns only when the process has exited: a server left listening would hang it until the timeout.
    const run = spawnSync(process.execPath, [join(ROOT, "dist/probes/demo.js")], { cwd, encoding: "utf8", timeout: 60_000 });
    expect(run.error).toBeUndefined();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/ok {4}token: three hops to an agent user token/);
    expect(run.stdout).toMatch(/ok {4}manifest: is the Word tool server registered\?/);
    expect(run.stdout).toMatch(/ok {4}comments: raw JSON of a shared file's comments and replies/);
    expect(run.stdout).toMatch(/ok {4}token --agent: another agent of the same three-agent stack/);
    // It ends with doctor: every link ok, read as the provisioner.
    expect(run.stdout).toMatch(/ok {4}doctor: every link of the chain, read from Graph as the provisioner/);
    expect(run.stdout).toMatch(/^ok\s+grant\s+\S+\s+Principal grant/m);
    expect(run.stdout).toMatch(/^ok\s+tokens\s+hops 1 to 3 minted/m);
    // Then the grant drifts to another user, and doctor names that link and its fix (exit 8, as the step means).
    expect(run.stdout).toMatch(/ok \(exit 8, as meant\) {2}doctor on a drifted tenant/);
    expect(run.stdout).toMatch(/^failed\s+grant\s+\S+\s+the agent identity's grant is for user \S+, not the agent user/m);
    expect(run.stdout).toMatch(/^ {2}grant: run `pulumi refresh`, then `pulumi up`/m);
    expect(run.stdout).not.toMatch(/emu~/);
    expect(run.stdout).toContain("== agent-user token --outputs outputs.json --agent agent-3\n");
    expect(run.stdout).toContain("upn    agent-3@contoso.onmicrosoft.com");
    expect(run.stdout).toContain("idtyp  user");
    expect(run.stdout).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./);
    // Nothing in the directory it ran from; the capture is under the temp directory, where it says.
    expect(readdirSync(cwd)).toEqual([]);
    const capture = /the comment capture is in (\S+)\n/.exec(run.stdout)?.[1];
    expect(capture?.startsWith(tmpdir())).toBe(true);
    expect(existsSync(join(capture!, "capture.json"))).toBe(true);
    rmSync(join(capture!, ".."), { recursive: true, force: true });
  });
});
