/**
 * `agent-user-kit/pulumi` in a project without the optional Pulumi peers: the
 * import fails naming them and the command that installs them, as a consumer
 * who installed the kit alone meets it. Runs the built package (dist/).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { missingPeers } from "../../infra/peers";

const ROOT = join(__dirname, "..", "..");

describe("importing agent-user-kit/pulumi without its optional peers", () => {
  const project = mkdtempSync(join(tmpdir(), "no-peers-"));
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("fails naming each missing peer and the npm install command, not MODULE_NOT_FOUND", () => {
    const kit = join(project, "node_modules", "agent-user-kit");
    mkdirSync(kit, { recursive: true });
    cpSync(join(ROOT, "dist", "infra"), join(kit, "dist", "infra"), { recursive: true });
    cpSync(join(ROOT, "dist", "lib"), join(kit, "dist", "lib"), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; exports: unknown };
    writeFileSync(join(kit, "package.json"), JSON.stringify({ name: manifest.name, exports: manifest.exports }));

    let stderr = "";
    try {
      execFileSync(process.execPath, ["-e", 'require("agent-user-kit/pulumi")'], { cwd: project, encoding: "utf8", stdio: "pipe" });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toContain(
      "MissingPeerDependencyError: agent-user-kit/pulumi needs @pulumi/pulumi and @pulumi/azuread, which are not installed. " +
        "Fix: npm install @pulumi/pulumi @pulumi/azuread",
    );
    expect(stderr).not.toContain("MODULE_NOT_FOUND");
  });

  it("names only the peer that is missing", () => {
    const resolve = (id: string) => {
      if (id === "@pulumi/azuread") throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
      return `/node_modules/${id}/index.js`;
    };
    expect(missingPeers(resolve)).toEqual(["@pulumi/azuread"]);
  });
});
