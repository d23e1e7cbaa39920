import { randomUUID } from "node:crypto";
import type { NetworkError } from "../../lib/errors";
import { GraphClient, GraphError } from "../../lib/graph-client";
import type { HttpOptions, HttpResponse } from "../../lib/http";
import { redactJwts } from "../../lib/redact";
import type { CaptureDir } from "./capture-dir";

/** One answer (or lost attempt) in capture.json. Never holds a token: URLs and ids only. */
export interface IndexEntry {
  /** What the request was for, e.g. "comments page 2". */
  what: string;
  /** The response file; null when the attempt got no answer. */
  file: string | null;
  method: "GET";
  url: string;
  /** Sent on every attempt of one request and echoed by Graph, for support cases. */
  clientRequestId: string;
  attempt: number;
  status: number | null;
  /** The network error code when there was no answer. */
  error?: string;
  ms: number | null;
  /** False for an answer that was retried (429, 5xx); the last answer of a request is final. */
  final: boolean;
  /** Token-shaped strings (e.g. a download URL's tempauth) replaced in the file. */
  redactedTokens?: number;
}

export interface Recorded {
  response: HttpResponse;
  file: string;
  url: string;
}

/** The headers each response file keeps, besides the status and the body. */
const RECORDED_HEADERS = ["request-id", "client-request-id", "date", "retry-after"] as const;

/** A response as an HTTP message: status line, the recorded headers, a blank line, then the body. */
function responseFile(res: HttpResponse, body: string): string {
  const head = [`HTTP ${res.status}`];
  // Headers get the bodies' redaction: a peer could put a token anywhere it answers.
  for (const name of RECORDED_HEADERS) if (res.headers[name] !== undefined) head.push(`${name}: ${redactJwts(res.headers[name])}`);
  return `${head.join("\n")}\n\n${body}`;
}

const REDACTED = "[redacted token]";
const occurrences = (text: string, part: string) => text.split(part).length - 1;

/**
 * Sends the probe's GETs through GraphClient.raw (transient answers retried)
 * and writes every answer verbatim, the retried ones included, so the capture
 * shows throttling as it happened.
 */
export class Recorder {
  /** Entries by slug: requests finish in any order, the index lists them in the slugs' order. */
  private readonly groups = new Map<string, IndexEntry[]>();
  private readonly graphUrl: string;
  private readonly token: string;
  private readonly http: HttpOptions;
  private readonly dir: CaptureDir;

  constructor(graphUrl: string, token: string, http: HttpOptions, dir: CaptureDir) {
    this.graphUrl = graphUrl;
    this.token = token;
    this.http = http;
    this.dir = dir;
  }

  /**
   * GETs `pathOrUrl` and records it under `slug`, unique and sortable
   * (files `{slug}.http`, and `{slug}.attempt-N.http` for retried answers).
   * Throws NetworkError when no answer came (the capture is then incomplete),
   * and GraphError for a link outside the Graph URL.
   */
  async get(what: string, slug: string, pathOrUrl: string): Promise<Recorded> {
    const clientRequestId = randomUUID();
    const retried: Array<{ attempt: number; err: unknown }> = [];
    const client = new GraphClient({
      ...this.http,
      baseUrl: this.graphUrl,
      getToken: async () => this.token,
      hooks: { onRetry: (err, attempt) => void retried.push({ attempt, err }) },
    });
    // raw() would turn a refused foreign link into a response; resolving first keeps it an error, never evidence.
    const url = client.resolve(pathOrUrl);
    const entry = { what, method: "GET" as const, url, clientRequestId };
    const entries: IndexEntry[] = [];
    this.groups.set(slug, entries);
    const response = await client.raw("GET", url, { headers: { "client-request-id": clientRequestId } });
    for (const { attempt, err } of retried) {
      if (err instanceof GraphError) {
        entries.push({ ...entry, ...(await this.write(`${slug}.attempt-${attempt}.http`, err.response)), attempt, final: false });
      } else {
        // GraphClient retries only Graph answers and lost connections.
        entries.push({ ...entry, file: null, attempt, status: null, error: (err as NetworkError).code, ms: null, final: false });
      }
    }
    const file = `${slug}.http`;
    entries.push({ ...entry, ...(await this.write(file, response)), attempt: retried.length + 1, final: true });
    return { response, file, url };
  }

  /** Every answer so far, ordered by slug, then attempt. */
  entries(): IndexEntry[] {
    return [...this.groups.keys()].sort().flatMap((slug) => this.groups.get(slug)!);
  }

  /**
   * Writes the answer as received, except that anything shaped like a token
   * (a downloadUrl's tempauth, say) is replaced: a capture never holds one.
   */
  private async write(file: string, res: HttpResponse): Promise<Pick<IndexEntry, "file" | "status" | "ms" | "redactedTokens">> {
    const body = redactJwts(res.body);
    const redacted = occurrences(body, REDACTED) - occurrences(res.body, REDACTED);
    await this.dir.write(file, responseFile(res, body));
    return { file, status: res.status, ms: Math.round(res.ms), ...(redacted > 0 ? { redactedTokens: redacted } : {}) };
  }
}
