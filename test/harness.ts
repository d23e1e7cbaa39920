/**
 * Shared helpers of the `agent-user token` tests: run the real command
 * in-process against a real emulator, shape the emulator's tenant, and watch
 * (never alter) the HTTP traffic.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Dispatcher } from "undici";
import { MICROSOFT_GRAPH_APP_ID, TOKEN_EXCHANGE_AUDIENCE } from "../lib/entra-rules";
import { AGENT_USER_FLOW, type AgentUserTokenRequest } from "../lib/token-flows";
import { TokenSource, type HopChainConfig, type MintedToken } from "../lib/token-source";
import { decodeJwt, type JwtClaims } from "../lib/jwt";
import type { StackOutputs } from "../lib/stack-outputs";
import { selfSignedCertificate } from "../emulator/certificate";
import { startEmulator, type Emulator, type EmulatorOptions } from "../emulator/server";
import { agentEntries } from "../emulator/seed";
import type { ServicePrincipal, User } from "../emulator/store";
import { main } from "../probes/cli";
import type { CliIo } from "../probes/cli-io";

export const EXCHANGE_SCOPE = `${TOKEN_EXCHANGE_AUDIENCE}/.default`;
export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** Anything shaped like a compact JWS. */
export const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ScratchDir {
  dir: string;
  remove: () => void;
}

/** A scratch directory removed by the returned function. */
export function scratchDir(): ScratchDir {
  const dir = mkdtempSync(join(tmpdir(), "agent-user-token-test-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What {@link useEmulator} sets up; every field is filled in by its `beforeAll`. */
export interface EmulatorContext {
  emulator: Emulator;
  /** `emulator.outputs()` as read right after start-up; a file's own `beforeAll` may replace it. */
  out: StackOutputs;
  scratch: ScratchDir;
  /** The options the emulator was started with. */
  options: EmulatorOptions;
}

/**
 * Registers `beforeAll` (a scratch directory, then an emulator started with
 * `options`, or with what `options(scratch)` returns) and `afterAll` (close the
 * emulator, remove the directory) hooks in the calling scope. Read the fields
 * of the returned context inside hooks and tests, never at module load.
 */
export function useEmulator(options: EmulatorOptions | ((scratch: ScratchDir) => EmulatorOptions) = {}): EmulatorContext {
  const ctx = {} as EmulatorContext;
  beforeAll(async () => {
    ctx.scratch = scratchDir();
    ctx.options = typeof options === "function" ? options(ctx.scratch) : options;
    ctx.emulator = await startEmulator(ctx.options);
    ctx.out = ctx.emulator.outputs();
  });
  afterAll(async () => {
    await ctx.emulator?.close();
    ctx.scratch?.remove();
  });
  return ctx;
}

/** A token source (cache and hop chain) for the seeded blueprint of `out`, with its client secret; `config` replaces any of it. */
export function seededChain(out: StackOutputs, config: Partial<HopChainConfig> = {}): TokenSource {
  return new TokenSource({
    authorityUrl: out.authorityUrl,
    tenantId: out.tenantId,
    blueprintAppId: out.blueprintAppId!,
    credential: { kind: "secret", secret: out.blueprintClientSecret! },
    ...config,
  });
}

/** The seeded agent user's token for the resource of `out`, as a request of the agent user flow. */
export function seededRequest(out: StackOutputs): AgentUserTokenRequest {
  return { agentIdentityId: out.agentIdentityId!, agentUser: out.agentUserId!, resourceUrl: out.resourceUrl };
}

/** One agent user token as the token provider asks its source for it: from the cache, or minted. */
export async function agentUserToken(source: TokenSource, request: AgentUserTokenRequest): Promise<MintedToken> {
  return source.cached(AGENT_USER_FLOW, request) ?? (await source.mint(AGENT_USER_FLOW, request));
}

/** Runs `agent-user ARGV` in-process with exactly `env` as its environment (and stderr a terminal with `stderrIsTTY`). */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = {}, cwd: string = tmpdir(), stderrIsTTY = false): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd, stderrIsTTY };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** The single JSON object a `--json` run printed; fails if it printed anything else. */
export function onlyJson(run: CliRun): Record<string, unknown> {
  const lines = run.stdout.split("\n").filter((l) => l.trim() !== "");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** Writes stack outputs (the emulator's, with `patch` applied; undefined deletes a key) to FILE. */
export function writeOutputs(dir: string, outputs: StackOutputs, patch: Record<string, unknown> = {}, name = `outputs-${randomUUID()}.json`): string {
  const json: Record<string, unknown> = { ...outputs };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete json[k];
    else json[k] = v;
  }
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
  return file;
}

export function claimsOf(token: string): JwtClaims {
  const jwt = decodeJwt(token);
  if (!jwt) throw new Error("not a JWT");
  return jwt.claims;
}

export const b64urlGuid = (guid: string) => Buffer.from(guid.replace(/-/g, ""), "hex").toString("base64url");

export const facets = (claim: unknown) => (typeof claim === "string" ? claim.split(/\s+/) : []);

/** Token endpoint requests the emulator saw since `from`, as status codes. */
export function tokenStatuses(emulator: Emulator, from = 0): number[] {
  return emulator.requests.slice(from).filter((r) => r.surface === "token" && r.path.endsWith("/oauth2/v2.0/token")).map((r) => r.status);
}

export interface AgentFixture {
  identity: ServicePrincipal;
  user: User;
  grantId: string | undefined;
}

/**
 * A new agent identity under the seeded blueprint, its agent user and (unless
 * `grant: false`) a Graph grant, written "now" so replication lag applies.
 */
export function addAgent(emulator: Emulator, options: { grant?: boolean; scope?: string; resourceId?: string } = {}): AgentFixture {
  const { store } = emulator;
  const outputs = emulator.outputs();
  const now = store.stamp();
  const id = randomUUID();
  const userId = randomUUID();
  const agent = agentEntries({
    identityId: id,
    userId,
    displayName: `agent ${id.slice(0, 8)}`,
    userPrincipalName: `agent-${userId.slice(0, 8)}@contoso.onmicrosoft.com`,
    blueprintAppId: outputs.blueprintAppId!,
    sponsors: [],
  });
  const identity: ServicePrincipal = { ...agent.identity, createdAt: now };
  const user: User = { ...agent.user, createdAt: now };
  store.createServicePrincipal(identity);
  store.createUser(user);
  let grantId: string | undefined;
  if (options.grant !== false) grantId = addGrant(emulator, id, userId, options);
  return { identity, user, grantId };
}

/** A Principal grant, effective after the store's replication lag as a Graph-created grant is. */
export function addGrant(emulator: Emulator, clientId: string, principalId: string, options: { scope?: string; resourceId?: string } = {}): string {
  const { store } = emulator;
  const grantId = randomUUID();
  const graph = store.servicePrincipalByAppId(MICROSOFT_GRAPH_APP_ID)!;
  store.createGrant({
    id: grantId,
    clientId,
    consentType: "Principal",
    principalId,
    resourceId: options.resourceId ?? graph.id,
    scope: options.scope ?? "User.Read",
    effectiveAt: store.now() + store.replicationLagMs,
  });
  return grantId;
}

/** A resource API (v2 tokens) in the tenant, e.g. an MCP server audience. */
export function addResource(emulator: Emulator, identifierUri: string): ServicePrincipal {
  const id = randomUUID();
  const appId = randomUUID();
  const sp: ServicePrincipal = {
    id,
    appId,
    kind: "servicePrincipal",
    displayName: `resource ${identifierUri}`,
    servicePrincipalType: "Application",
    servicePrincipalNames: [identifierUri, appId],
    sponsors: [],
    graphAppRoles: [],
    createdAt: 0,
  };
  emulator.store.createServicePrincipal(sp);
  return sp;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Form parameters of a POST body. */
  form: Record<string, string>;
}

/**
 * An undici dispatcher that lets every request through unchanged and records
 * what was sent, so a test can see the parameters the hop chain really used.
 */
export function recordingDispatcher(base: Dispatcher = new Agent()): { dispatcher: Dispatcher; sent: RecordedRequest[] } {
  const sent: RecordedRequest[] = [];
  const dispatcher = base.compose((dispatch) => (opts, handler) => {
    const body = typeof opts.body === "string" ? opts.body : "";
    const headers = Object.fromEntries(Object.entries((opts.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), String(v)]));
    sent.push({ method: opts.method, url: `${String(opts.origin ?? "")}${opts.path}`, headers, form: Object.fromEntries(new URLSearchParams(body)) });
    return dispatch(opts, handler);
  });
  return { dispatcher, sent };
}

/** JSON.stringify, message and stack of a thrown value: everything a logger might print. */
export function everythingAbout(err: unknown): string {
  const e = err as Error;
  return [JSON.stringify(err), e?.message, e?.stack, String(err)].join("\n");
}

/** The environment for `--outputs FILE` runs: nothing inherited from the machine running the tests. */
export const NO_ENV: NodeJS.ProcessEnv = Object.freeze({}) as NodeJS.ProcessEnv;

export interface UploadedCertificate {
  certFile: string;
  keyFile: string;
  certificatePem: string;
  privateKeyPem: string;
  keyId: string;
}

/** A fresh test certificate, written to PEM files and (unless `upload: false`) added to the keyCredentials of the blueprint, or of the application `appId`. */
export function blueprintCertificate(emulator: Emulator, dir: string, options: { upload?: boolean; appId?: string } = {}): UploadedCertificate {
  const cert = selfSignedCertificate({ commonName: "agent-user-kit test blueprint credential" });
  const keyId = randomUUID();
  const certFile = join(dir, `cert-${keyId}.pem`);
  const keyFile = join(dir, `key-${keyId}.pem`);
  writeFileSync(certFile, cert.certificatePem);
  writeFileSync(keyFile, cert.privateKeyPem, { mode: 0o600 });
  if (options.upload !== false) {
    const app = emulator.store.applicationByAppId(options.appId ?? emulator.outputs().blueprintAppId!)!;
    app.keyCredentials.push({
      keyId,
      displayName: "test certificate",
      type: "AsymmetricX509Cert",
      usage: "Verify",
      key: cert.certificate.raw.toString("base64"),
      startDateTime: new Date(Date.now() - 60_000).toISOString(),
      endDateTime: new Date(Date.now() + 86_400_000).toISOString(),
    });
  }
  return { certFile, keyFile, certificatePem: cert.certificatePem, privateKeyPem: cert.privateKeyPem, keyId };
}

/** A stand-in identity provider over real HTTP: each POST's form is answered 200 with `answer(form)` as JSON. */
export async function formAnsweringServer(answer: (form: URLSearchParams) => unknown): Promise<{ base: string; close: () => Promise<void> }> {
  return tokenPeer((form) => ({ status: 200, body: JSON.stringify(answer(form)) }));
}

/**
 * TEST ONLY, as the emulator's password grant is: the seeded person's token
 * for the seeded blueprint's exposed API, as the client they sign in to
 * would hand it to the agent (the on-behalf-of flow's user assertion).
 */
export async function userAssertion(emulator: Emulator, form: Record<string, string> = {}): Promise<string> {
  const user = emulator.testUser();
  if (!user) throw new Error("userAssertion: the tenant has no test user, public client and exposed blueprint API");
  const body = new URLSearchParams({ grant_type: "password", client_id: user.clientId, username: user.username, password: user.password, scope: user.scope, ...form });
  const res = await fetch(`${emulator.httpUrl}/${user.tenantId}/oauth2/v2.0/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
  const json = (await res.json()) as { access_token?: string; error_codes?: number[] };
  if (!json.access_token) throw new Error(`userAssertion: the password grant answered ${res.status} ${JSON.stringify(json.error_codes)}`);
  return json.access_token;
}

/** How a peer spells a value it echoes inside a JSON string: each one JSON.parse reads back as the value itself. */
export const ECHO_SPELLINGS = {
  /** One character as its \uXXXX escape, the rest as JSON.stringify writes them. */
  "a \\u escape of its first character": (value: string) => `\\u${value.charCodeAt(0).toString(16).padStart(4, "0")}${JSON.stringify(value.slice(1)).slice(1, -1)}`,
  /** Every character as its \uXXXX escape. */
  "every character a \\u escape": (value: string) => [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
  /** Each `/` as `\/`, JSON's other spelling of it. */
  "each / as \\/": (value: string) => JSON.stringify(value).slice(1, -1).replace(/\//g, "\\/"),
} as const;
export type EchoSpelling = keyof typeof ECHO_SPELLINGS;

/**
 * An error answer of the token endpoint that echoes `spelled` (a value as
 * the peer spells it inside a JSON string) in every field Entra's error body
 * has, and in one it does not.
 */
export function echoingErrorBody(spelled: string): string {
  const field = (name: string, text: string) => `"${name}":"${text}"`;
  return `{${[
    field("error", `invalid_grant ${spelled}`),
    field("error_description", `AADSTS50013: the value ${spelled} was refused. Trace ID: ${spelled}`),
    `"error_codes":[50013,"${spelled}"]`,
    field("trace_id", spelled),
    field("correlation_id", spelled),
    field("timestamp", spelled),
    field("error_uri", `https://login.example/error?echo=${spelled}`),
    field("echo", spelled),
  ].join(",")}}`;
}

/** A request as a peer received it: its path, its headers (names lower-cased) and its raw body. */
export interface PeerRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What a peer answers: a status and a raw body, sent with JSON's content type and any `headers` given. */
export interface PeerAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * A stand-in token endpoint on loopback: `answer(form, request)` answers
 * each request (status and raw body, JSON's content type); a request it
 * gives no answer gets a token (an opaque T1), so that a later hop is
 * reached. `requests` holds every form received.
 */
export async function tokenPeer(
  answer: (form: URLSearchParams, request: PeerRequest) => PeerAnswer | undefined,
): Promise<{ base: string; requests: URLSearchParams[]; close: () => Promise<void> }> {
  const requests: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      requests.push(form);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const given = answer(form, { method: req.method ?? "GET", path: req.url ?? "/", headers, body }) ?? {
        status: 200,
        body: JSON.stringify({ token_type: "Bearer", access_token: `opaque-t1-${randomUUID()}`, expires_in: 3600 }),
      };
      res.writeHead(given.status, { "content-type": "application/json", ...given.headers });
      res.end(given.body);
    });
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((done) => server.close(() => done())) };
}

/** A credential the kit sends, as an echo test finds it in a request's form (null in a request that does not carry it). */
export interface SentCredential {
  /** The step whose request carries it. */
  step: string;
  sentIn: (form: URLSearchParams) => string | null;
}

/** Hop 1 carries the blueprint's credential: its client_assertion, when it has one. */
const hop1Assertion = (form: URLSearchParams) => (form.get("fmi_path") ? form.get("client_assertion") : null);

/** The credentials an echo test has a peer echo: the person's, and the blueprint's of each kind. */
export const SENT_CREDENTIALS = {
  "the person's on-behalf-of assertion": { step: "hop 2 (on-behalf-of token)", sentIn: (form) => form.get("assertion") },
  "the blueprint secret": { step: "hop 1 (blueprint token)", sentIn: (form) => form.get("client_secret") },
  "the certificate assertion": { step: "hop 1 (blueprint token)", sentIn: hop1Assertion },
  "a federated token": { step: "hop 1 (blueprint token)", sentIn: hop1Assertion },
} as const satisfies Record<string, SentCredential>;
export type SentCredentialName = keyof typeof SENT_CREDENTIALS;

/**
 * A tokenPeer answer that refuses the request carrying `credential`, with
 * `body(value)` for the value it carries (any other request gets a token),
 * and the value it echoed last.
 */
export function echoing(credential: SentCredential, body: (value: string) => string): { answer: (form: URLSearchParams) => { status: number; body: string } | undefined; echoed: () => string | undefined } {
  let echoed: string | undefined;
  const answer = (form: URLSearchParams) => {
    const value = credential.sentIn(form);
    if (value === null) return undefined;
    echoed = value;
    return { status: 400, body: body(value) };
  };
  return { answer, echoed: () => echoed };
}

/** What {@link useEchoPeer} sets up: the peer, a scratch directory, and the answer the peer gives now. */
export interface EchoPeerContext {
  peer: Awaited<ReturnType<typeof tokenPeer>>;
  scratch: ScratchDir;
  answer: (form: URLSearchParams, request: PeerRequest) => PeerAnswer | undefined;
}

/** The credentials an echo test gives the kit to send, each with a `/` for the `\/` spelling. */
export const ECHOED_VALUES = {
  secret: `blueprint/secret~${randomUUID()}`,
  person: `person/assertion.${randomUUID()}`,
  federated: `federated/token.${randomUUID()}`,
  /** Graph's bearer token: opaque, so no JWT shape gives it away to a pattern. */
  bearer: `graph/bearer.${randomUUID()}`,
  /** A credential in a Graph request's body, as a password or a key the kit might PATCH. */
  password: `graph/password.${randomUUID()}`,
};

/** Registers hooks that start a tokenPeer answering with `ctx.answer`, and a scratch directory, in the calling scope. */
export function useEchoPeer(): EchoPeerContext {
  const ctx = { answer: () => undefined } as unknown as EchoPeerContext;
  beforeAll(async () => {
    ctx.scratch = scratchDir();
    ctx.peer = await tokenPeer((form, request) => ctx.answer(form, request));
  });
  afterAll(async () => {
    await ctx.peer?.close();
    ctx.scratch?.remove();
  });
  return ctx;
}

/** Every string of a JSON text, keys and values, at any depth; none of a text that is not JSON. */
export function stringsOf(text: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        walk(key);
        walk(item);
      }
    }
  };
  try {
    walk(JSON.parse(text));
  } catch {
    // Not JSON: no strings to echo.
  }
  return out;
}

/**
 * A Graph error answer that echoes `spelled` (values as the peer spells
 * them inside a JSON string) in every field of Graph's error envelope, in
 * the nested innerError, and in a field Graph does not send.
 */
export function echoingGraphErrorBody(spelled: readonly string[]): string {
  const all = spelled.join(" ");
  const field = (name: string, text: string) => `"${name}":"${text}"`;
  const inner = (nested: string) => `{${[field("code", `InnerEcho ${all}`), field("date", all), field("request-id", all), field("client-request-id", all), nested].join(",")}}`;
  return `{"error":{${[
    field("code", `Echo ${all}`),
    field("message", `the values ${all} were refused`),
    `"innerError":${inner(`"innerError":{${field("code", `Deeper ${all}`)}}`)}`,
    field("echo", all),
  ].join(",")}},${field("echo", all)}}`;
}

/**
 * A tokenPeer answer that stands in for both the identity provider and
 * Graph: a token request gets `bearer` as its access token; every other
 * request is refused (`status`) with `body(values)` for the values it
 * carries, the bearer token of its Authorization header first, then every
 * string of its JSON body; and the values it echoed last.
 */
export function echoingGraph(
  bearer: string,
  body: (values: readonly string[]) => string,
  status = 400,
): { answer: (form: URLSearchParams, request: PeerRequest) => PeerAnswer; echoed: () => readonly string[] } {
  let echoed: readonly string[] = [];
  const answer = (_form: URLSearchParams, request: PeerRequest): PeerAnswer => {
    if (request.path.endsWith("/oauth2/v2.0/token")) return { status: 200, body: JSON.stringify({ token_type: "Bearer", access_token: bearer, expires_in: 3600 }) };
    const token = (request.headers.authorization ?? "").replace(/^Bearer /, "");
    echoed = [token, ...stringsOf(request.body)];
    // The bearer token in Graph's own id headers too: a header is no JSON, so it is spelled as sent.
    return { status, body: body(echoed), headers: { "request-id": token, "client-request-id": token } };
  };
  return { answer, echoed: () => echoed };
}
