import { DEFAULT_IDS } from "../../../emulator/seed";
import { SigningKey } from "../../../emulator/signing-key";
import { shareIdFor } from "../../../probes/comments/share-id";
import { graphToken, SHARE_URLS, startHarness, type Harness } from "./harness";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

interface GraphAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function get(url: string, token?: string): Promise<GraphAnswer> {
  const res = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const driveItemUrl = (base: string, shareUrl: string) => `${base}/v1.0/shares/${shareIdFor(shareUrl)}/driveItem`;
const commentsUrl = (base: string) => `${base}/beta/drives/${DEFAULT_IDS.driveId}/items/${DEFAULT_IDS.sharedItemId}/comments`;

/** Graph's error envelope, with request ids in the body and the headers. */
function expectGraphError(answer: GraphAnswer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ error: { code, message: expect.any(String), innerError: { "request-id": expect.any(String), date: expect.any(String) } } });
  expect(answer.headers.get("request-id")).toBe((answer.body.error as { innerError: Record<string, string> }).innerError["request-id"]);
}

describe("emulated Graph file surface", () => {
  it("resolves a u! share id to its drive item, and answers an unknown one 404 itemNotFound", async () => {
    const ok = await get(driveItemUrl(h.emulator.httpUrl, SHARE_URLS.workbook), graphToken(h.emulator));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: DEFAULT_IDS.sharedItemId, name: "Quarterly plan.xlsx", parentReference: { driveId: DEFAULT_IDS.driveId } });

    expectGraphError(await get(driveItemUrl(h.emulator.httpUrl, "https://contoso.sharepoint.com/:x:/s/agents/ENoSuchLink"), graphToken(h.emulator)), 404, "itemNotFound");
  });

  it("pages comments with absolute nextLinks on the caller's origin, honours $top, and serves replies", async () => {
    // Asked through "localhost", the nextLinks must stay on "localhost".
    const base = h.emulator.httpUrl.replace("127.0.0.1", "localhost");
    const token = graphToken(h.emulator);
    const ids: string[] = [];
    const urls: string[] = [];
    for (let url: string | undefined = `${commentsUrl(base)}?$top=1`; url; ) {
      urls.push(url);
      const page = await get(url, token);
      expect(page.status).toBe(200);
      ids.push(...(page.body.value as Array<{ id: string }>).map((c) => c.id));
      url = page.body["@odata.nextLink"] as string | undefined;
    }
    expect(ids).toEqual(["c1", "c2", "c3"]);
    expect(urls.slice(1)).toEqual([`${commentsUrl(base)}?$top=1&$skiptoken=1`, `${commentsUrl(base)}?$top=1&$skiptoken=2`]);

    const replies = await get(`${commentsUrl(base)}/c2/replies`, token);
    expect(replies.body.value).toEqual([{ id: "c2-r1", content: "Reply to comment 2.", contentType: "text" }]);
    expectGraphError(await get(`${commentsUrl(base)}/no-such-comment/replies`, token), 404, "itemNotFound");
  });

  it("answers 404 itemNotFound on the comments and replies of an item set to, as Graph does for Word documents", async () => {
    const token = graphToken(h.emulator);
    const doc = `${h.emulator.httpUrl}/beta/drives/${DEFAULT_IDS.driveId}/items/${DEFAULT_IDS.sharedDocumentId}/comments`;
    expect((await get(driveItemUrl(h.emulator.httpUrl, SHARE_URLS.document), token)).status).toBe(200);
    expectGraphError(await get(doc, token), 404, "itemNotFound");

    h.workbook().commentsNotFound = true;
    expectGraphError(await get(commentsUrl(h.emulator.httpUrl), token), 404, "itemNotFound");
    expectGraphError(await get(`${commentsUrl(h.emulator.httpUrl)}/c1/replies`, token), 404, "itemNotFound");
  });

  it("answers 401 InvalidAuthenticationToken for a missing, foreign, expired or wrong-audience token", async () => {
    const url = commentsUrl(h.emulator.httpUrl);
    const past = Math.floor(Date.now() / 1000) - 3600;
    const missing = await get(url);
    expectGraphError(missing, 401, "InvalidAuthenticationToken");
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer /);

    const foreignKey = new SigningKey();
    const foreign = foreignKey.sign({ aud: "https://graph.microsoft.com", idtyp: "user", scp: "Files.Read.All", exp: past + 7200 });
    expectGraphError(await get(url, foreign), 401, "InvalidAuthenticationToken");
    expectGraphError(await get(url, "not-a-jwt"), 401, "InvalidAuthenticationToken");
    expectGraphError(await get(url, graphToken(h.emulator, { exp: past, nbf: past - 3600 })), 401, "InvalidAuthenticationToken");
    expectGraphError(await get(url, graphToken(h.emulator, { aud: "api://AzureADTokenExchange" })), 401, "InvalidAuthenticationToken");
    // The Graph appId is as good an audience as its URI.
    expect((await get(url, graphToken(h.emulator, { aud: "00000003-0000-0000-c000-000000000000" }))).status).toBe(200);
  });

  it("answers 403 accessDenied for a user token with no files scope and for an app token", async () => {
    const url = driveItemUrl(h.emulator.httpUrl, SHARE_URLS.workbook);
    expectGraphError(await get(url, graphToken(h.emulator, { scp: "User.Read Chat.ReadWrite" })), 403, "accessDenied");
    expectGraphError(await get(url, graphToken(h.emulator, { idtyp: "app", scp: undefined, roles: ["Files.Read.All"] })), 403, "accessDenied");
    for (const scope of ["Files.Read.All", "Files.ReadWrite.All", "Sites.Read.All", "Sites.ReadWrite.All"]) {
      expect({ scope, status: (await get(url, graphToken(h.emulator, { scp: `User.Read ${scope}` }))).status }).toEqual({ scope, status: 200 });
    }
  });

  it("throttles the Graph surface with the fault injector, in Graph's envelope", async () => {
    h.emulator.faults.set({ throttle: 1, retryAfterS: 2, target: "graph" });
    const throttled = await get(commentsUrl(h.emulator.httpUrl), graphToken(h.emulator));
    expectGraphError(throttled, 429, "TooManyRequests");
    expect(throttled.headers.get("retry-after")).toBe("2");
    expect((await get(commentsUrl(h.emulator.httpUrl), graphToken(h.emulator))).status).toBe(200);
  });
});
