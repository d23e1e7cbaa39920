/**
 * The cloud and the token, as go-azure-sdk finds them for azuread: the
 * metadata at `https://{metadata host}/metadata/endpoints?api-version=2022-09-01`
 * (sdk/internal/metadata/client.go; sdk/environments/from_endpoint.go refuses
 * one without name, resourceManager or microsoftGraphResourceId), then a
 * client-credentials token from `{loginEndpoint}/{tenant}/oauth2/v2.0/token`
 * for `{microsoftGraphResourceId without its trailing /}/.default`
 * (sdk/auth/client_secret_authorizer.go, client_credentials.go), kept until
 * shortly before it expires. The token's claims are read unverified, as
 * sdk/claims does: the provider only learns who it is from them.
 */
import { exchange, type HttpOptions } from "./http";
import type { StandInSettings } from "./settings";

export interface Cloud {
  /** Where tokens come from, e.g. https://login.microsoftonline.com. */
  loginEndpoint: string;
  /** Graph's origin and its resource identifier, e.g. https://graph.microsoft.com. */
  graph: string;
}

const METADATA_API_VERSION = "2022-09-01";
/** What go-azure-sdk reads of a token answer, 1 MiB at most. */
const TOKEN_BODY_BYTES = 1 << 20;
/** A token is renewed this long before it expires, so none expires in flight. */
const RENEW_BEFORE_MS = 120_000;

const field = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined), value);

/** The cloud a metadata document describes, or go-azure-sdk's error for one it refuses. */
export function cloudFromMetadata(document: unknown, endpoint: string): Cloud {
  const text = (...path: string[]) => {
    const value = field(document, ...path);
    return typeof value === "string" ? value : "";
  };
  if (!text("name")) throw new Error("retrieving metadata from endpoint: `name` was nil");
  if (!text("resourceManager")) throw new Error("retrieving metadata from endpoint: no `resourceManagerEndpoint` was returned");
  const graph = text("microsoftGraphResourceId").replace(/\/+$/, "");
  if (!graph) throw new Error("retrieving metdata from endpoint: no `microsoftGraphResourceId` was returned");
  const loginEndpoint = text("authentication", "loginEndpoint");
  if (!loginEndpoint) throw new Error(`retrieving metadata from endpoint ${JSON.stringify(endpoint)}: no authentication.loginEndpoint`);
  return { loginEndpoint, graph };
}

/** The metadata of `https://{host}`. */
export async function discoverCloud(host: string, http: HttpOptions): Promise<Cloud> {
  const endpoint = `https://${host}`;
  const answer = await exchange({ method: "GET", url: `${endpoint}/metadata/endpoints?api-version=${METADATA_API_VERSION}`, headers: {} }, http);
  if (answer.status !== 200) {
    throw new Error(`retrieving metadata from endpoint ${JSON.stringify(endpoint)}: performing request: expected 200 OK but got ${answer.status} ${answer.statusLine}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(answer.text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new Error(`retrieving metadata from endpoint ${JSON.stringify(endpoint)}: unmarshaling response: ${(err as Error).message}`);
  }
  return cloudFromMetadata(document, endpoint);
}

/** A JWT's payload, unverified. */
export function tokenClaims(token: string): Record<string, unknown> {
  const payload = token.split(".")[1];
  if (!payload) throw new Error("unable to parse claims in access token: not a JWT");
  const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) throw new Error("unable to parse claims in access token: not an object");
  return claims as Record<string, unknown>;
}

interface HeldToken {
  value: string;
  renewAt: number;
}

/** Client-credentials tokens for Graph, one request at a time however many operations ask. */
export class TokenSource {
  private held?: HeldToken;
  private pending?: Promise<HeldToken>;

  constructor(
    private readonly settings: StandInSettings,
    private readonly cloud: Cloud,
    private readonly http: HttpOptions,
    private readonly now: () => number = Date.now,
  ) {}

  async token(): Promise<string> {
    if (this.held && this.now() < this.held.renewAt) return this.held.value;
    this.pending ??= this.request().finally(() => (this.pending = undefined));
    this.held = await this.pending;
    return this.held.value;
  }

  private async request(): Promise<HeldToken> {
    const { tenantId, clientId, clientSecret } = this.settings;
    const form = new URLSearchParams({ client_id: clientId, client_secret: clientSecret, grant_type: "client_credentials", scope: `${this.cloud.graph}/.default` });
    const answer = await exchange(
      {
        method: "POST",
        url: `${this.cloud.loginEndpoint}/${tenantId || "common"}/oauth2/v2.0/token`,
        headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      },
      { ...this.http, maxBodyBytes: TOKEN_BODY_BYTES },
    );
    if (answer.status < 200 || answer.status > 299) throw new Error(`clientCredentialsToken: received HTTP status ${answer.status} with response: ${answer.text}`);
    const body = JSON.parse(answer.text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== "string" || body.access_token === "") throw new Error("clientCredentialsToken: the answer holds no access_token");
    // expires_in arrives as a number or a string of one (client_credentials.go reads both).
    const seconds = Number(body.expires_in);
    const lifetimeMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
    return { value: body.access_token, renewAt: this.now() + Math.max(0, lifetimeMs - RENEW_BEFORE_MS) };
  }
}
