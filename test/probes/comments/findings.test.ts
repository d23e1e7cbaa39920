import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { ExitCode } from "../../../lib/errors";
import { captureSharedFile } from "../../../probes/comments/capture";
import { providerFor, resolveSettings } from "../../../probes/settings";
import { comment, readJson, readResponseFile, SHARE_URLS, startHarness, type Harness } from "./harness";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe("agent-user comments: findings", () => {
  it("reports a 404 itemNotFound from the comments endpoint in plain words, exits 7 and keeps the recorded answer", async () => {
    const { code, stdout, stderr } = await h.comments([SHARE_URLS.document, "--out", "cap"]);

    expect(code).toBe(ExitCode.commentsNotFound);
    expect(stdout).toContain("The comments endpoint answered 404 itemNotFound for this item");
    expect(stderr).toContain("error: Graph GET /beta/drives/{driveId}/items/{itemId}/comments (page 1): the comments endpoint answered 404 itemNotFound for this item");
    const dir = path.join(h.cwd, "cap");
    expect((await readdir(dir)).sort()).toEqual(["01-drive-item.http", "02-comments-page-001.http", "capture.json", "shape.json"]);
    const answer = await readResponseFile(path.join(dir, "02-comments-page-001.http"));
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "itemNotFound" } });
    expect(await readJson(path.join(dir, "capture.json"))).toMatchObject({
      exitCode: ExitCode.commentsNotFound,
      problem: { status: 404, code: "itemNotFound", file: "02-comments-page-001.http" },
    });
    expect(h.graphRequests().filter((r) => r.path.endsWith("/replies"))).toHaveLength(0);
  });

  it("compares the shape with --baseline: exit 0 when unchanged, 6 with added, removed and retyped fields", async () => {
    expect((await h.comments([SHARE_URLS.workbook, "--out", "before"])).code).toBe(ExitCode.ok);
    const baseline = path.join(h.cwd, "before", "shape.json");

    const same = await h.comments([SHARE_URLS.workbook, "--out", "same", "--baseline", baseline]);
    expect(same.code).toBe(ExitCode.ok);
    expect(same.stdout).toContain("The shape matches the baseline.");

    h.workbook().comments = [1, 2, 3].map((n) => {
      const drifted = comment(`c${n}`, { createdDateTime: 1_700_000_000 + n, author: { displayName: "Ada" } });
      delete drifted.contentType;
      return drifted;
    });
    const { code, stdout } = await h.comments([SHARE_URLS.workbook, "--out", "after", "--baseline", baseline, "--json"]);

    expect(code).toBe(ExitCode.shapeDrift);
    const report = JSON.parse(stdout) as { drift: Record<string, unknown> };
    expect(report.drift).toEqual({
      added: [
        { kind: "comment", field: "author", after: "object" },
        { kind: "comment", field: "author.displayName", after: "string" },
      ],
      removed: [{ kind: "comment", field: "contentType", before: "string" }],
      retyped: [{ kind: "comment", field: "createdDateTime", before: "string", after: "number" }],
      notCompared: [],
    });
    // A drifted capture is still a finished capture.
    expect(await readdir(path.join(h.cwd, "after"))).toContain("capture.json");
  });

  it("keeps Graph's 403 as evidence and exits 3 when the token has no files scope", async () => {
    h.emulator.store.changeGrantScope(DEFAULT_IDS.grantId, "User.Read");
    const { code, stderr } = await h.comments([SHARE_URLS.workbook, "--out", "cap"]);

    expect(code).toBe(ExitCode.rejected);
    expect(stderr).toContain("Graph GET /v1.0/shares/{shareId}/driveItem: accessDenied (HTTP 403)");
    expect(stderr).toContain("grant Files.Read.All");
    // The hint names what the token carried, from its scp claim.
    expect(stderr).toMatch(/the agent user token's scp is "User.Read[^"]*", without Files.Read.All or Sites.Read.All/);
    const answer = await readResponseFile(path.join(h.cwd, "cap", "01-drive-item.http"));
    expect(answer.status).toBe(403);
    expect(h.graphRequests().filter((r) => r.path.includes("/comments"))).toHaveLength(0);
  });

  it("mints a fresh token, so a files scope granted after the last token is used at once", async () => {
    h.emulator.store.changeGrantScope(DEFAULT_IDS.grantId, "User.Read");
    const settings = resolveSettings({ outputs: h.outputs }, {}, h.cwd);
    const provider = providerFor(settings);
    expect((await provider.getToken()).claims.scp).not.toContain("Files.Read.All");

    h.emulator.store.changeGrantScope(DEFAULT_IDS.grantId, "User.Read Files.Read.All");
    // A cached token would still lack the scope; the capture must not use it.
    expect((await provider.getToken()).hops.every((hop) => hop.cached)).toBe(true);
    const report = await captureSharedFile(settings, SHARE_URLS.workbook, { outDir: path.join(h.cwd, "cap"), provider });

    expect(report.exitCode).toBe(ExitCode.ok);
    expect(report.summary).toMatch(/^Captured "Quarterly plan.xlsx" \(drive b!emulatorDrive01, item 01EMULATORITEM0000000000000000001\): 3 comments on 2 pages, and 1 reply to the first comment\./);
  });
});

describe("agent-user comments: a Graph that pages forever", () => {
  it("stops when @odata.nextLink repeats a page, keeps what it recorded and exits 6", async () => {
    // Tokens from the emulator; Graph answers from a server whose comments nextLink points back at itself.
    const graph = createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url?.includes("/driveItem")) res.end(JSON.stringify({ id: "item1", name: "loop.xlsx", parentReference: { driveId: "drive1" } }));
      else res.end(JSON.stringify({ value: [], "@odata.nextLink": `http://127.0.0.1:${(graph.address() as AddressInfo).port}${req.url}` }));
    });
    await new Promise<void>((r) => graph.listen(0, "127.0.0.1", r));
    try {
      const { code, stderr } = await h.comments([SHARE_URLS.workbook, "--out", "cap", "--graph", `http://127.0.0.1:${(graph.address() as AddressInfo).port}`]);
      expect(code).toBe(ExitCode.shapeDrift);
      expect(stderr).toContain("its @odata.nextLink repeats page 1");
      expect((await readdir(path.join(h.cwd, "cap"))).sort()).toEqual(["01-drive-item.http", "02-comments-page-001.http", "capture.json", "shape.json"]);
    } finally {
      await new Promise((r) => graph.close(r));
    }
  });
});

describe("agent-user comments: token-shaped text from Graph outside the bodies", () => {
  it("is redacted in capture.json, in --json stdout and in the human report, as in the bodies", async () => {
    const h = await startHarness();
    try {
      const jwtShaped = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJpdGVtIn0.c2lnbmF0dXJl";
      h.workbook().name = `${jwtShaped}.xlsx`;
      const out = path.join(h.cwd, "cap");
      const json = await h.comments([SHARE_URLS.workbook, "--out", out, "--json"]);
      expect(json.code).toBe(ExitCode.ok);
      expect(json.stdout).not.toContain(jwtShaped);
      expect(json.stdout).toContain("[redacted token]");
      expect(await readFile(path.join(out, "capture.json"), "utf8")).not.toContain(jwtShaped);
      const human = await h.comments([SHARE_URLS.workbook, "--out", `${out}-2`]);
      expect(human.stdout).not.toContain(jwtShaped);
    } finally {
      await h.close();
    }
  });
});
