import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { ExitCode } from "../../../lib/errors";
import { shareIdFor } from "../../../probes/comments/share-id";
import { SHARE_URLS, startHarness, type Harness } from "./harness";

let h: Harness;
/** An emulator for each test of the describe blocks that talk to one. */
function withEmulator(): void {
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });
}

describe("agent-user comments: bad input is refused before any request", () => {
  withEmulator();

  it.each([
    ["not a URL", "not a url", "share URL: not an absolute URL"],
    ["http://", "http://contoso.sharepoint.com/:w:/s/agents/EShareLink", "share URL: must use https, got http"],
    ["empty", "", "share URL: missing <share_url>"],
    ["no host", "https:/contoso.sharepoint.com/:w:/s/agents/E", 'share URL: no host after "https://"'],
  ])("share URL %s: exit 2", async (_case, url, message) => {
    const { code, stderr } = await h.comments([url, "--out", "cap"]);

    expect(code).toBe(ExitCode.usage);
    expect(stderr).toContain(message);
    expect(h.emulator.requests).toHaveLength(0);
    expect(await readdir(h.cwd)).toEqual([]);
  });

  it("refuses a missing share URL, an --out that exists and a --baseline that is not a shape, with no request", async () => {
    expect((await h.comments([])).code).toBe(ExitCode.usage);

    await mkdir(path.join(h.cwd, "taken"));
    const taken = await h.comments([SHARE_URLS.workbook, "--out", "taken"]);
    expect(taken.code).toBe(ExitCode.usage);
    expect(taken.stderr).toContain("capture directory: ");
    expect(taken.stderr).toContain("taken already exists");

    const missing = await h.comments([SHARE_URLS.workbook, "--baseline", "missing.json"]);
    expect(missing.code).toBe(ExitCode.usage);
    expect(missing.stderr).toContain("--baseline: cannot read missing.json: ENOENT");

    await writeFile(path.join(h.cwd, "shape.json"), '{"driveItem": {}}');
    const baseline = await h.comments([SHARE_URLS.workbook, "--baseline", "shape.json"]);
    expect(baseline.code).toBe(ExitCode.usage);
    expect(baseline.stderr).toContain('--baseline: shape.json is not a shape.json written by "agent-user comments"');

    await writeFile(path.join(h.cwd, "broken.json"), '{\n  "format": "comments-shape/1",\n  "driveItem": {"observed": 1 "fields": {"secretField": "string"}}\n}');
    const broken = await h.comments([SHARE_URLS.workbook, "--baseline", "broken.json"]);
    expect(broken.code).toBe(ExitCode.usage);
    expect(broken.stderr).toContain("broken.json is not a shape.json written by \"agent-user comments\": invalid JSON at line 3, column 31: expected ',' or '}' after a property value, found '\"'");
    expect(broken.stderr).not.toContain("secretField");

    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe("agent-user comments: no token, no capture", () => {
  withEmulator();

  it("exits 3 naming hop 3 when the grant is gone, and leaves no capture or temporary directory", async () => {
    h.emulator.store.deleteGrant(DEFAULT_IDS.grantId);

    const explicit = await h.comments([SHARE_URLS.workbook, "--out", "out/cap"]);
    expect(explicit.code).toBe(ExitCode.rejected);
    expect(explicit.stderr).toContain("hop 3 (agent user token)");
    expect(explicit.stderr).toContain("AADSTS65001");
    const byDefault = await h.comments([SHARE_URLS.workbook]);
    expect(byDefault.code).toBe(ExitCode.rejected);

    expect(await readdir(h.cwd)).toEqual([]);
    expect(existsSync(path.join(h.cwd, "captures"))).toBe(false);
    expect(h.graphRequests()).toHaveLength(0);
  });

  it("exits 4 and removes the partial capture when Graph never answers", async () => {
    // Every attempt's connection is dropped, through all retries.
    h.emulator.faults.set({ drop: 5, target: "graph" });
    const { code, stderr } = await h.comments([SHARE_URLS.workbook, "--out", "cap"]);

    expect(code).toBe(ExitCode.unreachable);
    expect(stderr).toContain(`Graph GET /v1.0/shares/${shareIdFor(SHARE_URLS.workbook)}/driveItem`);
    expect(h.graphRequests()).toHaveLength(5);
    expect(await readdir(h.cwd)).toEqual([]);
  });
});

describe("share id", () => {
  it("encodes the share id as u! and unpadded base64url of the link", () => {
    // In base64 these are ...Pz8+YQ== and ...fn4/fg==: "+" and "/" must become "-" and "_", and the padding go.
    expect(shareIdFor("https://x.example/??>a")).toBe("u!aHR0cHM6Ly94LmV4YW1wbGUvPz8-YQ");
    expect(shareIdFor("https://x.example/~~?~")).toBe("u!aHR0cHM6Ly94LmV4YW1wbGUvfn4_fg");
  });
});
