/**
 * Every local file the CLI reads (--outputs, --blueprint-secret-file, key,
 * certificate and token files, a tooling manifest, ARM_* files) is a regular
 * file of bounded size: /dev/zero, a FIFO or a directory is refused by name
 * before anything is read, and a file over its limit before it is read, so
 * nothing waits on a writer or reads until memory runs out. The bin runs as
 * a separate process with a timeout, so a hang fails the test instead of
 * the test run.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, ftruncateSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readPemBundle } from "../../infra/provisioner-credential";
import { readRegularFile, USER_FILE_LIMITS } from "../../lib/user-files";
import { inspectManifest } from "../../probes/manifest/report";
import { scratchDir } from "../harness";

const ROOT = resolve(__dirname, "../..");
const BIN = join(ROOT, (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin["agent-user"]!);
const scratch = scratchDir();
afterAll(() => scratch.remove());

const OUTPUTS = { tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d", authorityUrl: "http://127.0.0.1:9", blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70", agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9", agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d" };

/** A FIFO no one writes to: reading it would wait for ever. */
function fifo(name: string): string {
  const path = join(scratch.dir, name);
  const made = spawnSync("mkfifo", [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
  return path;
}

/** A sparse file of `bytes` bytes (nothing written to disk). */
function sized(name: string, bytes: number): string {
  const path = join(scratch.dir, name);
  const fd = openSync(path, "w", 0o600);
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return path;
}

function bin(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: scratch.dir, encoding: "utf8", env: { PATH: process.env.PATH, ...env }, timeout: 20_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const outputsFile = () => {
  const path = join(scratch.dir, "outputs.json");
  writeFileSync(path, JSON.stringify(OUTPUTS), { mode: 0o600 });
  return path;
};

describe("agent-user token", () => {
  it("--outputs /dev/zero is exit 2 naming a character device, at once", () => {
    const run = bin(["token", "--outputs", "/dev/zero"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("cannot read --outputs /dev/zero: it is a character device, not a regular file (ENOTREG)");
  });

  it("--outputs FIFO is exit 2 naming a FIFO, without waiting for a writer", () => {
    const path = fifo("outputs.fifo");
    const run = bin(["token", "--outputs", path]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`cannot read --outputs ${path}: it is a FIFO (named pipe), not a regular file (ENOTREG)`);
  });

  it("--outputs over 64 MiB is exit 2 naming the limit", () => {
    const path = sized("huge-outputs.json", USER_FILE_LIMITS.data + 1);
    const run = bin(["token", "--outputs", path]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("it is larger than 64 MiB, more than such a file holds (EFBIG)");
  });

  it("--blueprint-secret-file /dev/zero, a FIFO, or a 2 MiB file is exit 2, never showing the path", () => {
    for (const path of ["/dev/zero", fifo("secret.fifo"), sized("secret.txt", 2 * 1024 * 1024)]) {
      const run = bin(["token", "--outputs", outputsFile(), "--blueprint-secret-file", path]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/cannot read the file --blueprint-secret-file names: it is (a character device|a FIFO \(named pipe\)|larger than 1 MiB)/);
      expect(run.stderr).not.toContain(path);
    }
  });

  it("a managed identity token file and a certificate file that are FIFOs are refused the same way", () => {
    const token = bin(["token", "--outputs", outputsFile(), "--managed-identity-client-id", "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", "--managed-identity-token-file", fifo("mi.fifo")]);
    expect(token.status).toBe(2);
    expect(token.stderr).toContain("cannot read the managed identity token file: it is a FIFO (named pipe), not a regular file");
    const cert = bin(["token", "--outputs", outputsFile(), "--blueprint-cert", fifo("cert.fifo"), "--blueprint-key", fifo("key.fifo")]);
    expect(cert.status).toBe(2);
    expect(cert.stderr).toMatch(/cannot read the file --blueprint-(cert|key) names: it is a FIFO/);
  });
});

it("agent-user manifest /dev/zero names the file and why", () => {
  const run = bin(["manifest", "/dev/zero"]);
  expect(run.status).toBe(2);
  expect(run.stderr).toContain("it is a character device, not a regular file (ENOTREG)");
});

it("the provisioner's ARM_CLIENT_CERTIFICATE_PATH on /dev/zero or a FIFO is refused, the path not shown", () => {
  for (const path of ["/dev/zero", fifo("arm.fifo")]) {
    expect(() => readPemBundle({ kind: "certificate", clientId: OUTPUTS.blueprintAppId, certificatePath: { value: path, source: "ARM_CLIENT_CERTIFICATE_PATH" } } as Parameters<typeof readPemBundle>[0])).toThrow(
      /cannot read the file ARM_CLIENT_CERTIFICATE_PATH names: it is (a character device|a FIFO)/,
    );
  }
});

it("readRegularFile reads a file up to its limit, and refuses one byte more", () => {
  const path = join(scratch.dir, "exact.txt");
  writeFileSync(path, "x".repeat(1024));
  expect(readRegularFile(path, 1024)).toHaveLength(1024);
  expect(() => readRegularFile(path, 1023)).toThrow(/larger than 1023 bytes/);
  expect(() => readRegularFile(scratch.dir, 1024)).toThrow(/it is a directory, not a regular file/);
  expect(() => inspectManifest({ cwd: scratch.dir, env: {}, path: "/dev/zero" })).toThrow(/character device/);
});
