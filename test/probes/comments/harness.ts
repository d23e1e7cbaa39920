import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DEFAULT_IDS, SHARE_URLS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { type Comment, type DriveItem } from "../../../emulator/store";
import { PUBLIC_CLOUD } from "../../../lib/entra-rules";
import type { JwtClaims } from "../../../lib/jwt";
import { run } from "../../../probes/commands/comments";

/** A fresh emulator and scratch directories per test, and the comments command run in-process over real HTTP. */
export interface Harness {
  emulator: Emulator;
  /** The command's working directory; captures go here. */
  cwd: string;
  /** The seeded tenant's stack outputs (they hold the blueprint secret), outside `cwd`. */
  outputs: string;
  secret: string;
  /** Runs `agent-user comments ARGV --outputs FILE` with an empty environment. */
  comments(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  workbook(): DriveItem;
  /** Requests the emulator answered on its Graph surface. */
  graphRequests(): Array<{ path: string; status: number }>;
  close(): Promise<void>;
}

export { SHARE_URLS };

export async function startHarness(): Promise<Harness> {
  const emulator = await startEmulator();
  const scratch = await mkdtemp(path.join(os.tmpdir(), "agent-user-comments-"));
  const cwd = path.join(scratch, "work");
  await mkdir(cwd);
  const outputs = path.join(scratch, "outputs.json");
  const stackOutputs = emulator.outputs();
  await writeFile(outputs, JSON.stringify(stackOutputs), { mode: 0o600 });
  return {
    emulator,
    cwd,
    outputs,
    secret: stackOutputs.blueprintClientSecret!,
    comments: async (argv) => {
      let stdout = "";
      let stderr = "";
      const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), env: {}, cwd };
      const code = await run([...argv, "--outputs", outputs], io);
      return { code, stdout, stderr };
    },
    workbook: () => emulator.store.driveItem(DEFAULT_IDS.driveId, DEFAULT_IDS.sharedItemId)!,
    graphRequests: () => emulator.requests.filter((r) => r.surface === "graph"),
    close: async () => {
      await emulator.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** A Graph token signed by the emulator: by default a valid agent user token with Files.Read.All. */
export function graphToken(emulator: Emulator, claims: JwtClaims = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return emulator.key.sign({
    aud: PUBLIC_CLOUD.resourceUrl,
    iat: now,
    nbf: now,
    exp: now + 3600,
    idtyp: "user",
    oid: DEFAULT_IDS.agentUserId,
    tid: DEFAULT_IDS.tenantId,
    scp: "User.Read Files.Read.All",
    ...claims,
  });
}

export function comment(id: string, fields: Partial<Comment> = {}): Comment {
  return { id, content: `Comment ${id}.`, contentType: "text", createdDateTime: "2026-11-01T09:00:00Z", replies: [{ id: `${id}-r1`, content: "A reply.", contentType: "text" }], ...fields };
}

/** A response file split into its status, recorded headers and body. */
export interface ResponseFile {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function readResponseFile(file: string): Promise<ResponseFile> {
  const text = await readFile(file, "utf8");
  const split = text.indexOf("\n\n");
  const [statusLine, ...headerLines] = text.slice(0, split).split("\n");
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
  return { status: Number(/^HTTP (\d{3})$/.exec(statusLine!)![1]), headers, body: text.slice(split + 2) };
}

export async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, "utf8")) as T;
}

export async function listFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}
