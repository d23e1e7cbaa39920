import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { COMMENTS_PAGE_SIZE } from "../../../emulator/graph/files";
import { ExitCode } from "../../../lib/errors";
import type { IndexEntry } from "../../../probes/comments/recorder";
import type { RecordedShape } from "../../../probes/comments/shape";
import { comment, graphToken, readJson, readResponseFile, SHARE_URLS, startHarness, type Harness } from "./harness";

interface CaptureIndex {
  exitCode: number;
  counts: { comments: number; commentPages: number; repliedComments: number; replies: number };
  tokenScopes: string[];
  requests: IndexEntry[];
}

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const pathsOf = (suffix: string) => h.graphRequests().filter((r) => r.path.endsWith(suffix));

describe("agent-user comments: capture", () => {
  it("follows every @odata.nextLink over three pages and records each answer verbatim", async () => {
    // Two full pages and one more comment: three pages.
    expect(COMMENTS_PAGE_SIZE).toBe(2);
    h.workbook().comments.push(comment("c4"), comment("c5"));
    const { code, stdout } = await h.comments([SHARE_URLS.workbook, "--out", "cap"]);

    expect(code).toBe(ExitCode.ok);
    expect(stdout).toContain("5 comments on 3 pages");
    const dir = path.join(h.cwd, "cap");
    expect((await readdir(dir)).sort()).toEqual([
      "01-drive-item.http",
      "02-comments-page-001.http",
      "02-comments-page-002.http",
      "02-comments-page-003.http",
      "03-replies-comment-001-page-001.http",
      "capture.json",
      "shape.json",
    ]);
    const pages = await Promise.all([1, 2, 3].map((n) => readResponseFile(path.join(dir, `02-comments-page-00${n}.http`))));
    const ids = pages.flatMap((p) => (JSON.parse(p.body) as { value: Array<{ id: string }> }).value.map((c) => c.id));
    expect(ids).toEqual(["c1", "c2", "c3", "c4", "c5"]);

    // Each page was fetched from the previous page's nextLink, and the last has none.
    const index = await readJson<CaptureIndex>(path.join(dir, "capture.json"));
    const commentRequests = index.requests.filter((r) => r.what.startsWith("comments page"));
    expect(commentRequests.map((r) => r.url)).toEqual([
      expect.stringMatching(/\/beta\/drives\/b!emulatorDrive01\/items\/01EMULATORITEM0000000000000000001\/comments$/),
      (JSON.parse(pages[0]!.body) as Record<string, string>)["@odata.nextLink"],
      (JSON.parse(pages[1]!.body) as Record<string, string>)["@odata.nextLink"],
    ]);
    expect(JSON.parse(pages[2]!.body)).not.toHaveProperty(["@odata.nextLink"]);
    expect(index.counts).toEqual({ comments: 5, commentPages: 3, repliedComments: 1, replies: 1 });
    for (const r of index.requests) {
      expect(r).toMatchObject({ method: "GET", status: 200, final: true, attempt: 1 });
      expect(typeof r.ms).toBe("number");
    }

    // Verbatim: the body is byte for byte what Graph sends, and the file keeps status and ids.
    const direct = await fetch(commentRequests[1]!.url, { headers: { authorization: `Bearer ${graphToken(h.emulator)}` } });
    expect(pages[1]!.body).toBe(await direct.text());
    expect(pages[1]!.status).toBe(200);
    expect(pages[1]!.headers["request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(pages[1]!.headers["client-request-id"]).toBe(commentRequests[1]!.clientRequestId);
    expect(Date.parse(pages[1]!.headers.date!)).not.toBeNaN();
  });

  it("fetches the replies of the first comment only, unless --all-replies asks for all of them", async () => {
    const c2 = h.workbook().comments[1]!;
    c2.replies = [{ id: "c2-r1", content: "one" }, { id: "c2-r2", content: "two" }, { id: "c2-r3", content: "three" }];

    const first = await h.comments([SHARE_URLS.workbook, "--out", "first", "--json"]);
    expect(first.code).toBe(ExitCode.ok);
    expect(JSON.parse(first.stdout)).toMatchObject({ comments: 3, repliedComments: 1, replies: 1 });
    expect(pathsOf("/replies").map((r) => r.path)).toEqual([expect.stringMatching(/\/comments\/c1\/replies$/)]);

    h.emulator.requests.length = 0;
    const all = await h.comments([SHARE_URLS.workbook, "--out", "all", "--all-replies", "--json"]);
    expect(all.code).toBe(ExitCode.ok);
    expect(JSON.parse(all.stdout)).toMatchObject({ comments: 3, repliedComments: 3, replies: 5 });
    // c2's three replies span two pages; every comment was asked once, in any order.
    expect(pathsOf("/replies").map((r) => r.path.split("/").at(-2)).sort()).toEqual(["c1", "c2", "c2", "c3"]);
    const files = (await readdir(path.join(h.cwd, "all"))).filter((f) => f.startsWith("03-"));
    expect(files.sort()).toEqual([
      "03-replies-comment-001-page-001.http",
      "03-replies-comment-002-page-001.http",
      "03-replies-comment-002-page-002.http",
      "03-replies-comment-003-page-001.http",
    ]);
    const shape = await readJson<RecordedShape>(path.join(h.cwd, "all", "shape.json"));
    expect(shape.reply.observed).toBe(5);
  });

  it("makes no replies call when the file has no comments", async () => {
    h.workbook().comments = [];
    const { code, stdout } = await h.comments([SHARE_URLS.workbook, "--out", "cap"]);

    expect(code).toBe(ExitCode.ok);
    expect(stdout).toContain("0 comments on 1 page, so no replies were asked for");
    expect(pathsOf("/comments")).toHaveLength(1);
    expect(pathsOf("/replies")).toHaveLength(0);
    const shape = await readJson<RecordedShape>(path.join(h.cwd, "cap", "shape.json"));
    expect(shape.comment).toEqual({ observed: 0, fields: {} });
  });

  it("retries a 429 and records the throttled answer beside the final one", async () => {
    h.emulator.faults.set({ throttle: 1, retryAfterS: 0, target: "graph" });
    const { code } = await h.comments([SHARE_URLS.workbook, "--out", "cap"]);

    expect(code).toBe(ExitCode.ok);
    expect(pathsOf("/driveItem").map((r) => r.status)).toEqual([429, 200]);
    const index = await readJson<CaptureIndex>(path.join(h.cwd, "cap", "capture.json"));
    expect(index.requests.filter((r) => r.what === "drive item")).toEqual([
      expect.objectContaining({ attempt: 1, status: 429, final: false, file: "01-drive-item.attempt-1.http" }),
      expect.objectContaining({ attempt: 2, status: 200, final: true, file: "01-drive-item.http" }),
    ]);
    const throttled = await readResponseFile(path.join(h.cwd, "cap", "01-drive-item.attempt-1.http"));
    expect(throttled.status).toBe(429);
    expect(throttled.headers["retry-after"]).toBe("0");
    expect(JSON.parse(throttled.body)).toMatchObject({ error: { code: "TooManyRequests" } });
  });

  it("writes the capture 0700/0600 and no token in any file", async () => {
    h.emulator.faults.set({ throttle: 1, retryAfterS: 0, target: "graph" });
    const { code } = await h.comments([SHARE_URLS.workbook, "--out", "cap", "--all-replies"]);
    expect(code).toBe(ExitCode.ok);

    const dir = path.join(h.cwd, "cap");
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      expect({ file, mode: (await stat(path.join(dir, file))).mode & 0o777 }).toEqual({ file, mode: 0o600 });
      const text = await readFile(path.join(dir, file), "utf8");
      expect({ file, jwt: /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.test(text) }).toEqual({ file, jwt: false });
      expect(text).not.toContain(h.secret);
    }
    // The drive item's download URL carried a tempauth JWT: replaced, and the index says so.
    expect(await readFile(path.join(dir, "01-drive-item.http"), "utf8")).toContain("tempauth=[redacted token]");
    const index = await readJson<CaptureIndex>(path.join(dir, "capture.json"));
    expect(index.requests.find((r) => r.file === "01-drive-item.http")).toMatchObject({ redactedTokens: 1 });
    expect(index.tokenScopes).toContain("Files.Read.All");
  });

  it("writes to captures/<UTC timestamp> by default, leaving no temporary directory", async () => {
    const { code } = await h.comments([SHARE_URLS.workbook]);

    expect(code).toBe(ExitCode.ok);
    const captures = await readdir(path.join(h.cwd, "captures"));
    expect(captures).toEqual([expect.stringMatching(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f]{6}$/)]);
    expect((await stat(path.join(h.cwd, "captures"))).mode & 0o777).toBe(0o700);
    expect(await readdir(path.join(h.cwd, "captures", captures[0]!))).toContain("capture.json");
  });
});
