import { resolve } from "node:path";
import { ExitCode } from "../../lib/errors";
import { GraphError } from "../../lib/graph-client";
import { isObject } from "../../lib/json-value";
import { badSegment } from "../../lib/path-segment";
import { redactJwts } from "../../lib/redact";
import type { RetryHooks } from "../../lib/retry";
import type { AgentUserTokenProvider } from "../../lib/token-provider";
import { providerFor, type ProbeSettings } from "../settings";
import { assertNewCaptureDir, CaptureDir } from "./capture-dir";
import { Recorder, type IndexEntry, type Recorded } from "./recorder";
import { mapLimit } from "../map-limit";
import { diffShapes, hasDrift, ShapeRecorder, type RecordedShape, type ShapeDiff } from "./shape";
import { shareIdFor, validateShareUrl } from "./share-id";

/**
 * The comment capture: resolve a sharing link, read every
 * page of the item's comments and the replies, and keep every answer
 * verbatim. Graph's answers, errors included, are evidence: an error answer
 * ends the walk but the capture is still finished and kept. Only a run that
 * got no answer to keep (no token, no connection) leaves nothing behind.
 */

/** With --all-replies, this many replies requests run at once: quick, and gentle on Graph's throttling. */
const REPLIES_CONCURRENCY = 4;

const CAPTURE_FORMAT = "agent-user-comments-capture/1";

export interface CaptureOptions {
  /** Where the finished capture goes; must not exist yet. */
  outDir: string;
  /** Fetch the replies of every comment, not only of the first. */
  allReplies?: boolean;
  /** An earlier shape.json to compare with. */
  baseline?: RecordedShape;
  /** A token provider to reuse; the agent user token is minted fresh all the same. */
  provider?: AgentUserTokenProvider;
  /** Told of each retry's wait (progress on a terminal, or with --verbose). */
  hooks?: RetryHooks;
}

/** An answer that ended the walk; it is recorded in `file`. */
export interface CaptureProblem {
  exitCode: ExitCode;
  /** The Graph call, e.g. "Graph GET /beta/drives/{driveId}/items/{itemId}/comments (page 2)". */
  step: string;
  status: number;
  code: string;
  message: string;
  hint: string;
  file: string;
}

export interface CapturedItem {
  driveId: string;
  itemId: string;
  name?: string;
}

export interface CaptureReport {
  exitCode: ExitCode;
  /** The finished capture directory. */
  dir: string;
  item?: CapturedItem;
  comments: number;
  commentPages: number;
  /** Comments whose replies were asked for, and the replies they had. */
  repliedComments: number;
  replies: number;
  /** capture.json's entries: every answer, retried ones included. */
  requests: IndexEntry[];
  shape: RecordedShape;
  drift?: ShapeDiff;
  problem?: CaptureProblem;
  /** One paragraph in plain words, for people and for `npm start`. */
  summary: string;
}

const STEP = {
  driveItem: "Graph GET /v1.0/shares/{shareId}/driveItem",
  comments: "Graph GET /beta/drives/{driveId}/items/{itemId}/comments",
  replies: "Graph GET /beta/drives/{driveId}/items/{itemId}/comments/{commentId}/replies",
} as const;

const COMMENTS_NOT_FOUND = "the comments endpoint answered 404 itemNotFound for this item";
const COMMENTS_NOT_FOUND_HINT =
  "this beta path is not in Graph's published metadata and real Graph answers it with 404 for Word documents; the recorded answer is the evidence (Excel workbooks have the documented .../workbook/comments instead)";

function hintFor(status: number, step: string): string {
  if (status === 401) return "Graph refused the agent user token; check that --resource is https://graph.microsoft.com, the audience Graph accepts";
  if (status === 403) {
    return "the agent user token has no files scope: grant Files.Read.All or Sites.Read.All (delegated) to the agent identity for the agent user, then run again (each run mints a fresh token)";
  }
  if (status === 404 && step === STEP.driveItem) return "check the sharing link, and that it is shared with the agent user or with the whole organization";
  if (status === 429 || status >= 500) return "Graph kept throttling or failing after retries; run again later";
  return "the answer is recorded verbatim in the capture; compare it with Graph's documentation for this call";
}

/** The files scopes a capture needs (either one does), and what a 403 says when the token has neither. */
const FILES_SCOPES = ["Files.Read.All", "Sites.Read.All"];

function missingScopeHint(scopes: readonly string[]): string {
  const has = FILES_SCOPES.filter((s) => scopes.includes(s));
  if (has.length > 0) return `the token carries ${has.join(" and ")}, so the agent user itself lacks access to this file: share it with the agent user`;
  return (
    `the agent user token's scp is "${scopes.join(" ")}", without Files.Read.All or Sites.Read.All: ` +
    "grant Files.Read.All or Sites.Read.All (delegated) to the agent identity for the agent user (with this package's stack: add Files.Read.All to agent-user-kit:scopes, as docs/pulumi.md's Stack configuration shows, and `pulumi up`), then run again (each run mints a fresh token)"
  );
}

/** A Graph error answer, in Graph's own codes; a 404 itemNotFound from the comments endpoint is its own finding. */
function answerProblem(step: string, rec: Recorded, commentsEndpoint: boolean): CaptureProblem {
  const err = new GraphError(step, rec.response);
  if (commentsEndpoint && err.status === 404 && err.code === "itemNotFound") {
    return { exitCode: ExitCode.commentsNotFound, step, status: 404, code: err.code, message: `${step}: ${COMMENTS_NOT_FOUND}`, hint: COMMENTS_NOT_FOUND_HINT, file: rec.file };
  }
  return { exitCode: err.exitCode, step, status: err.status, code: err.code, message: err.message, hint: hintFor(err.status, step), file: rec.file };
}

/** More pages than any real comment thread has: the walk stops there. */
const MAX_PAGES = 1000;

/** A link without its origin: links to another origin are refused before they are followed. */
const pathOf = (link: string) => link.replace(/^https?:\/\/[^/]+/i, "");

/** A success answer the probe cannot walk on: the shape moved under it. */
function shapeProblem(step: string, rec: Recorded, what: string): CaptureProblem {
  return {
    exitCode: ExitCode.shapeDrift,
    step,
    status: rec.response.status,
    code: "unexpectedShape",
    message: `${step}: HTTP ${rec.response.status}, but ${what}`,
    hint: "the answer is recorded verbatim; the endpoint's shape changed, or something other than Graph answered",
    file: rec.file,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const ok = (rec: Recorded) => rec.response.status >= 200 && rec.response.status < 300;
const pad = (n: number) => String(n).padStart(3, "0");

/** The objects of a collection, each with the page answer it came in. */
interface Collected {
  items: Array<{ value: unknown; page: Recorded }>;
  pages: number;
  problem?: CaptureProblem;
}

/** Everything one capture learns; summarized and indexed when the walk ends. */
class Walk {
  readonly shape = new ShapeRecorder();
  item?: CapturedItem;
  comments = 0;
  commentPages = 0;
  repliedComments = 0;
  replies = 0;
  problem?: CaptureProblem;

  constructor(private readonly recorder: Recorder) {}

  async run(shareUrl: string, allReplies: boolean): Promise<void> {
    const rec = await this.recorder.get("drive item", "01-drive-item", `/v1.0/shares/${shareIdFor(shareUrl)}/driveItem`);
    if (!ok(rec)) return void (this.problem = answerProblem(STEP.driveItem, rec, false));
    const item = parseJson(rec.response.body);
    if (isObject(item)) this.shape.add("driveItem", item);
    const driveId = isObject(item) && isObject(item.parentReference) ? item.parentReference.driveId : undefined;
    if (!isObject(item) || typeof item.id !== "string" || typeof driveId !== "string") {
      return void (this.problem = shapeProblem(STEP.driveItem, rec, "the body has no \"id\" and \"parentReference.driveId\""));
    }
    this.item = { driveId, itemId: item.id, ...(typeof item.name === "string" ? { name: item.name } : {}) };
    // Ids from an answer go into the next URL: one that is a path step ("..") or holds "/" would aim the token elsewhere.
    const badId = [["parentReference.driveId", driveId] as const, ["id", item.id] as const].map(([field, value]) => [field, badSegment(value)] as const).find(([, why]) => why);
    if (badId) return void (this.problem = shapeProblem(STEP.driveItem, rec, `its "${badId[0]}" ${badId[1]}; it is not an id, so nothing more was asked`));

    const itemPath = `/beta/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(item.id)}`;
    const comments = await this.collect("comment", STEP.comments, "comments", "02-comments", `${itemPath}/comments`);
    this.comments = comments.items.length;
    this.commentPages = comments.pages;
    if (comments.problem) return void (this.problem = comments.problem);

    // No comments, no replies call: there is nothing to ask about.
    const targets = allReplies ? comments.items : comments.items.slice(0, 1);
    const results = await mapLimit(targets, REPLIES_CONCURRENCY, async ({ value, page }, i): Promise<Collected> => {
      const id = isObject(value) ? value.id : undefined;
      const n = i + 1;
      if (typeof id !== "string") return { items: [], pages: 0, problem: shapeProblem(STEP.comments, page, `comment ${n} has no string "id" to ask for its replies`) };
      const bad = badSegment(id);
      if (bad) return { items: [], pages: 0, problem: shapeProblem(STEP.comments, page, `comment ${n}'s "id" ${bad}; its replies were not asked for`) };
      return this.collect("reply", `${STEP.replies} (comment ${n})`, `replies of comment ${n} (${id})`, `03-replies-comment-${pad(n)}`, `${itemPath}/comments/${encodeURIComponent(id)}/replies`);
    });
    this.repliedComments = results.length;
    this.replies = results.reduce((sum, r) => sum + r.items.length, 0);
    this.problem = results.find((r) => r.problem)?.problem;
  }

  /** Reads every page of a collection, following @odata.nextLink; stops at the first answer it cannot use. */
  private async collect(kind: "comment" | "reply", step: string, what: string, slug: string, first: string): Promise<Collected> {
    const items: Collected["items"] = [];
    const seen: string[] = [];
    let pages = 0;
    for (let next: string | undefined = first; next !== undefined; ) {
      const n = pages + 1;
      seen.push(pathOf(next));
      const page = await this.recorder.get(`${what} page ${n}`, `${slug}-page-${pad(n)}`, next);
      if (!ok(page)) return { items, pages, problem: answerProblem(`${step} (page ${n})`, page, kind === "comment") };
      const body = parseJson(page.response.body);
      if (!isObject(body) || !Array.isArray(body.value)) return { items, pages, problem: shapeProblem(`${step} (page ${n})`, page, 'the body has no "value" array') };
      for (const value of body.value) {
        this.shape.add(kind, value);
        items.push({ value, page });
      }
      pages = n;
      next = typeof body["@odata.nextLink"] === "string" ? body["@odata.nextLink"] : undefined;
      // A server that pages forever must not keep the probe (and the temporary capture) alive.
      if (next !== undefined && seen.includes(pathOf(next))) {
        return { items, pages, problem: shapeProblem(`${step} (page ${n})`, page, `its @odata.nextLink repeats page ${seen.indexOf(pathOf(next)) + 1}`) };
      }
      if (next !== undefined && pages >= MAX_PAGES) return { items, pages, problem: shapeProblem(`${step} (page ${n})`, page, `it pages on past ${MAX_PAGES} pages`) };
    }
    return { items, pages };
  }
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function summarize(r: Omit<CaptureReport, "summary">, allReplies: boolean): string {
  const name = r.item?.name ? `"${r.item.name}"` : "the shared file";
  const ids = r.item ? ` (drive ${r.item.driveId}, item ${r.item.itemId})` : "";
  const parts: string[] = [];
  // Comments are counted once every page was read, even if a replies call then failed.
  if (r.item && (!r.problem || r.problem.step.startsWith(STEP.replies))) {
    const replies =
      r.comments === 0
        ? "so no replies were asked for"
        : `and ${count(r.replies, "reply", "replies")} to ${allReplies ? count(r.repliedComments, "comment") : "the first comment"}`;
    parts.push(`Captured ${name}${ids}: ${count(r.comments, "comment")} on ${count(r.commentPages, "page")}, ${replies}.`);
  }
  if (r.problem?.exitCode === ExitCode.commentsNotFound) {
    parts.push(`The comments endpoint answered 404 itemNotFound for this item, ${name}${ids}; the answer is recorded verbatim in ${r.problem.file}.`);
  } else if (r.problem) {
    parts.push(`The capture of ${name}${ids} stopped at ${r.problem.step}, which answered HTTP ${r.problem.status} ${r.problem.code}; the answer is recorded verbatim in ${r.problem.file}.`);
  }
  const files = r.requests.filter((e) => e.file).length;
  parts.push(`${count(files, "response")} recorded verbatim in ${r.dir}, indexed in capture.json, with the fields seen in shape.json.`);
  if (r.drift) {
    parts.push(
      hasDrift(r.drift)
        ? `The shape drifted from the baseline: ${r.drift.added.length} added, ${r.drift.removed.length} removed, ${r.drift.retyped.length} retyped.`
        : "The shape matches the baseline.",
    );
  }
  return parts.join(" ");
}

/**
 * Captures the comments of the file behind a sharing link into a new
 * directory and reports what was found. Throws an AgentUserError, leaving no
 * directory, when nothing could be recorded: a bad link or --out (exit 2),
 * no token (3, 4 or 5), no connection to Graph (4).
 */
export async function captureSharedFile(settings: ProbeSettings, shareUrl: string, options: CaptureOptions): Promise<CaptureReport> {
  const link = validateShareUrl(shareUrl);
  const target = resolve(options.outDir);
  assertNewCaptureDir(target);
  const provider = options.provider ?? providerFor(settings, options.hooks);
  // Fresh, bypassing every cache: a files scope granted minutes ago must be in this token.
  const token = await provider.getToken({ fresh: true });
  const startedAt = new Date().toISOString();
  const dir = await CaptureDir.create(target);
  try {
    const recorder = new Recorder(settings.graphUrl, token.token, { timeoutMs: settings.timeoutMs }, dir);
    const walk = new Walk(recorder);
    const allReplies = options.allReplies ?? false;
    await walk.run(link, allReplies);
    const shape = walk.shape.shape();
    const drift = options.baseline && diffShapes(options.baseline, shape);
    const exitCode = walk.problem?.exitCode ?? (drift && hasDrift(drift) ? ExitCode.shapeDrift : ExitCode.ok);
    const { item, comments, commentPages, repliedComments, replies } = walk;
    const scopes = typeof token.claims.scp === "string" ? token.claims.scp.split(" ") : [];
    const problem = walk.problem?.status === 403 ? { ...walk.problem, hint: missingScopeHint(scopes) } : walk.problem;
    const base = { exitCode, dir: target, item, comments, commentPages, repliedComments, replies, requests: recorder.entries(), shape, drift, problem };
    const report: CaptureReport = { ...base, summary: summarize(base, allReplies) };
    const index = {
      format: CAPTURE_FORMAT,
      shareUrl: link,
      graphUrl: settings.graphUrl,
      startedAt,
      finishedAt: new Date().toISOString(),
      // The scopes the token carried explain a 403; the token itself is never written.
      tokenScopes: scopes,
      exitCode,
      summary: report.summary,
      item: item ?? null,
      counts: { comments, commentPages, repliedComments, replies },
      problem: problem ?? null,
      drift: drift ?? null,
      requests: report.requests,
    };
    // URLs (a $skiptoken), item names and ids come from Graph: the index gets the bodies' redaction too.
    await dir.write("capture.json", `${redactJwts(JSON.stringify(index, null, 2))}\n`);
    await dir.write("shape.json", `${JSON.stringify(shape, null, 2)}\n`);
    await dir.commit();
    return report;
  } catch (err) {
    await dir.discard();
    throw err;
  }
}
