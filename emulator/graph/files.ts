import type { EmulatorContext, EmulatorRequest, EmulatorResponse, Route } from "../router";
import type { Comment, DriveItem } from "../store";
import { graphError, graphOk } from "./envelope";
import { GRAPH_ERRORS } from "./errors";
import { metadataUrl } from "./odata";

/**
 * Graph's file surface as far as the comment probe uses it (reference
 * section 5): resolving a sharing link, and the beta comments and replies
 * paths, which real Graph answers with 404 itemNotFound for Word documents.
 */

/**
 * Comments and replies come in pages of this many unless `$top` asks for
 * another size; small, so the seeded file's three comments already span pages.
 */
export const COMMENTS_PAGE_SIZE = 2;
const MAX_TOP = 200;

function without(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([k]) => !keys.includes(k)));
}

/** SharePoint Online's appId, the audience of a download URL's tempauth token. */
const SHAREPOINT_APP_ID = "00000003-0000-0ff1-ce00-000000000000";
const DOWNLOAD_URL_LIFETIME_S = 60 * 60;

/**
 * A pre-authenticated download URL, as Graph puts on every file: its
 * tempauth is a short-lived bearer token (a JWT), which a capture must never
 * write to disk.
 */
function downloadUrl(ctx: EmulatorContext, item: DriveItem): string {
  const site = new URL(item.webUrl);
  const audience = `${SHAREPOINT_APP_ID}/${site.host}@${ctx.store.tenantId}`;
  const now = Math.floor(ctx.store.now() / 1000);
  const tempauth = ctx.key.sign({ aud: audience, iss: audience, nbf: now, exp: now + DOWNLOAD_URL_LIFETIME_S, tid: ctx.store.tenantId });
  return `${site.origin}/_layouts/15/download.aspx?UniqueId=${encodeURIComponent(item.id)}&Translate=false&tempauth=${tempauth}&ApiVersion=2.0`;
}

/** The item as Graph serves it: none of the store's own fields, and the drive id inside parentReference. */
function driveItemView(ctx: EmulatorContext, item: DriveItem, context: string): Record<string, unknown> {
  const fields = without(item, ["driveId", "shareUrl", "commentsNotFound", "comments", "parentReference"]);
  return {
    "@odata.context": context,
    "@microsoft.graph.downloadUrl": downloadUrl(ctx, item),
    ...fields,
    parentReference: { driveType: "business", driveId: item.driveId, ...(item.parentReference as object | undefined) },
  };
}

/** The item a `u!{base64url(sharing URL)}` share id names, if any. */
function itemByShareId(ctx: EmulatorContext, shareId: string): DriveItem | undefined {
  if (!shareId.startsWith("u!")) return undefined;
  const url = Buffer.from(shareId.slice(2), "base64url").toString("utf8");
  return ctx.store.driveItemByShareUrl(url);
}

function shareDriveItem(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const shareId = req.params.shareId!;
  const item = itemByShareId(ctx, shareId);
  if (!item) throw graphError(req, GRAPH_ERRORS.sharingLinkNotFound());
  return graphOk(driveItemView(ctx, item, metadataUrl(req, `shares('${shareId}')/driveItem/$entity`)), req.headers);
}

/** The item of a comments path, honouring its per-item 404. */
function commentedItem(req: EmulatorRequest, ctx: EmulatorContext): DriveItem {
  const { driveId, itemId } = req.params;
  const item = ctx.store.driveItem(driveId, itemId);
  if (!item || item.commentsNotFound) throw graphError(req, GRAPH_ERRORS.itemNotFound());
  return item;
}

function nonNegativeInteger(req: EmulatorRequest, name: string): number | undefined {
  const value = req.url.searchParams.get(name);
  if (value === null) return undefined;
  if (!/^\d+$/.test(value)) throw graphError(req, GRAPH_ERRORS.pageValueInvalid(name, value));
  return Number(value);
}

/**
 * One page of a collection; the nextLink is absolute, on the origin the caller
 * used. Its $skiptoken is an offset here, but opaque to clients, as at Graph.
 */
function page(req: EmulatorRequest, all: readonly unknown[], context: string): EmulatorResponse {
  const top = nonNegativeInteger(req, "$top");
  if (top !== undefined && (top < 1 || top > MAX_TOP)) throw graphError(req, GRAPH_ERRORS.pageTopOutOfRange(top, MAX_TOP));
  const size = top ?? COMMENTS_PAGE_SIZE;
  const skip = nonNegativeInteger(req, "$skiptoken") ?? 0;
  const end = skip + size;
  const nextLink = end < all.length ? `${req.origin}${req.url.pathname}?${top === undefined ? "" : `$top=${top}&`}$skiptoken=${end}` : undefined;
  return graphOk({ "@odata.context": context, value: all.slice(skip, end), ...(nextLink ? { "@odata.nextLink": nextLink } : {}) }, req.headers);
}

const itemContext = (req: EmulatorRequest) => `${req.origin}/beta/$metadata#drives('${req.params.driveId}')/items('${req.params.itemId}')`;

function comments(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const item = commentedItem(req, ctx);
  // Replies are a navigation property: listed only through .../replies.
  const listed = item.comments.map((c: Comment) => without(c, ["replies"]));
  return page(req, listed, `${itemContext(req)}/comments`);
}

function replies(req: EmulatorRequest, ctx: EmulatorContext): EmulatorResponse {
  const item = commentedItem(req, ctx);
  const comment = item.comments.find((c) => c.id === req.params.commentId);
  if (!comment) throw graphError(req, GRAPH_ERRORS.itemNotFound());
  return page(req, comment.replies, `${itemContext(req)}/comments('${comment.id}')/replies`);
}

export const fileRoutes: Route[] = [
  { method: "GET", pattern: /^\/shares\/(?<shareId>[^/]+)\/driveItem$/, surface: "graph", operation: "share.driveItem", handler: shareDriveItem },
  { method: "GET", pattern: /^\/drives\/(?<driveId>[^/]+)\/items\/(?<itemId>[^/]+)\/comments$/, surface: "graph", versions: ["beta"], operation: "comments.list", handler: comments },
  { method: "GET", pattern: /^\/drives\/(?<driveId>[^/]+)\/items\/(?<itemId>[^/]+)\/comments\/(?<commentId>[^/]+)\/replies$/, surface: "graph", versions: ["beta"], operation: "comments.replies", handler: replies },
];
