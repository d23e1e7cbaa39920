/**
 * Ids are ids, never paths: an id that is ".", ".." (in any percent-encoded
 * form) or holds "/" or "\" is refused before any request, wherever it comes
 * from: a hostile Graph answer (comments), a resource's state (providers), or
 * an emulator --tenant-file.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDS, defaultTenant, loadTenantFile, SHARE_URLS } from "../../emulator/seed";
import { agentIdentityPath, agentUserPath, blueprintPath } from "../../lib/graph-paths";
import { ExitCode, UsageError } from "../../lib/errors";
import { badSegment } from "../../lib/path-segment";
import { startHarness, type Harness } from "../probes/comments/harness";

const BAD = ["", ".", "..", "%2e%2e", "%2E.", "%252e%252e", "a/b", "a%2Fb", "a\\b"];

it.each(BAD)("%j is not a path segment", (value) => {
  expect(badSegment(value)).toBeDefined();
  for (const path of [blueprintPath, agentIdentityPath, agentUserPath]) expect(() => path(value)).toThrow(UsageError);
});

it("real ids pass, encoded", () => {
  expect(badSegment(DEFAULT_IDS.agentIdentityId)).toBeUndefined();
  expect(badSegment("01EMULATORITEM0000000000000000001")).toBeUndefined();
  expect(badSegment("b!emulatorDrive01")).toBeUndefined();
  expect(agentUserPath(DEFAULT_IDS.agentUserId)).toBe(`/v1.0/users/microsoft.graph.agentUser/${DEFAULT_IDS.agentUserId}`);
});

it("a --tenant-file entry whose id is a path step is refused", () => {
  const seed = defaultTenant();
  seed.users[0]!.id = "..";
  const file = join(tmpdir(), `tenant-${process.pid}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(seed));
  expect(() => loadTenantFile(file)).toThrow(/users\[0\]\.id is "\.\.", a path step rather than an id/);
});

describe("comments against a Graph that answers with path steps for ids", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it.each([
    ["..", ".."],
    ["%2e%2e", "b!emulatorDrive01"],
    ["01EMULATOR/../x", "b!emulatorDrive01"],
  ])("item id %j, drive id %j: exit 6, and the token goes nowhere else", async (itemId, driveId) => {
    const item = h.workbook();
    item.id = itemId;
    item.driveId = driveId;
    const { code, stderr } = await h.comments([SHARE_URLS.workbook, "--out", join(h.cwd, "cap")]);
    expect(code).toBe(ExitCode.shapeDrift);
    expect(stderr).toMatch(/it is not an id, so nothing more was asked/);
    expect(h.graphRequests().map((r) => r.path)).toEqual([expect.stringMatching(/^\/v1\.0\/shares\/u!.*\/driveItem$/)]);
  });
});

it("a malformed tenant file is reported by line and column, never by quoting its content", () => {
  const secret = "tenant-file-secret-7c1e";
  const file = join(tmpdir(), `tenant-bad-${process.pid}-${Date.now()}.json`);
  writeFileSync(file, `{"tenantId": "x", "applications": [{"secretText": "${secret}" oops}]}`);
  let message = "";
  try {
    loadTenantFile(file);
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toMatch(/not valid JSON at line 1, column 77: expected ',' or '}' after a property value, found a letter$/);
  expect(message).not.toContain(secret);
  expect(message).not.toContain("oops");
});
