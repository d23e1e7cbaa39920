import type { LoadedCertificate } from "./client-assertion";
import { clientSecretPost, federatedAssertion, privateKeyJwt, type ClientAuth } from "./client-auth";
import { AgentUserError, exitCodeForStatus, type ExitCode } from "./errors";
import { BODY_LIMITS, parseRetryAfter, send, type HttpOptions } from "./http";
import { redactJwts } from "./redact";
import { secureUrlProblem } from "./urls";
import { readUserFile, USER_FILE_LIMITS } from "./user-files";
import { withRetry, type RetryPolicy } from "./retry";

/** How the blueprint proves itself on hop 1. */
export type BlueprintCredential =
  | { kind: "secret"; secret: string }
  | { kind: "certificate"; certificate: LoadedCertificate }
  | {
      kind: "managedIdentity";
      /** Client id of a user-assigned identity; IMDS picks the only one when absent. */
      clientId?: string;
      /** A file holding the managed identity's token (e.g. a projected token); read on every use. */
      tokenFile?: string;
      /** IMDS base URL; http://169.254.169.254 on Azure. */
      imdsEndpoint?: string;
    };

export const DEFAULT_IMDS_ENDPOINT = "http://169.254.169.254";
const STEP = "hop 1 (blueprint token): managed identity";

/** IMDS's answer; it sends numbers as strings. */
interface ImdsTokenResponse {
  access_token: string;
  expires_in?: string;
}

class ImdsError extends AgentUserError {
  readonly exitCode: ExitCode;
  declare readonly status: number;
  constructor(status: number, detail: string, retryAfterMs?: number) {
    super(STEP, `IMDS answered HTTP ${status}: ${detail}`, {
      code: "ImdsError",
      hop: 1,
      status,
      retryAfterMs,
      hint: "check that this machine has the user-assigned managed identity and that its client id is right",
    });
    this.exitCode = exitCodeForStatus(status);
  }
  /** As Azure's SDKs do: IMDS answers 404 while an identity is being assigned and 410 while it is being updated. */
  override get transient(): boolean {
    return this.status === 404 || this.status === 410 || this.status === 429 || this.status >= 500;
  }
}

async function managedIdentityToken(cred: Extract<BlueprintCredential, { kind: "managedIdentity" }>, http: HttpOptions, retry: RetryPolicy, audience: string): Promise<string> {
  if (cred.tokenFile) {
    // Read at each token request: platforms rotate the file.
    // The path is not shown: a token pasted where its path belongs would be printed.
    const hint = "it takes the path of a file that holds the token (`credential.tokenFile`), not the token itself";
    return readUserFile("the managed identity token file", cred.tokenFile, { hint, maxBytes: USER_FILE_LIMITS.credential }).trim();
  }
  const base = cred.imdsEndpoint ?? DEFAULT_IMDS_ENDPOINT;
  const url = new URL("/metadata/identity/oauth2/token", base);
  url.search = new URLSearchParams({ "api-version": "2018-02-01", resource: audience, ...(cred.clientId ? { client_id: cred.clientId } : {}) }).toString();
  return withRetry(async () => {
    const res = await send(STEP, { method: "GET", url: url.toString(), headers: { metadata: "true" } }, { ...http, maxBodyBytes: BODY_LIMITS.imds, hop: 1 });
    let body: Partial<ImdsTokenResponse> & { error_description?: string } = {};
    try {
      body = JSON.parse(res.body) ?? {};
    } catch {
      // reported below with the status
    }
    if (res.status !== 200 || typeof body.access_token !== "string") {
      // IMDS's text gets the same redaction as every other answer's: it may echo a token.
      const detail = typeof body.error_description === "string" ? redactJwts(body.error_description) : "no token in the answer";
      throw new ImdsError(res.status, detail, parseRetryAfter(res.headers["retry-after"]));
    }
    return body.access_token;
  }, retry, undefined, undefined, http.signal);
}

/** How the blueprint authenticates a hop-1 request; a managed identity asks IMDS (or reads its token file) each time. */
export async function blueprintClientAuth(cred: BlueprintCredential, http: HttpOptions, retry: RetryPolicy, audience: string): Promise<ClientAuth> {
  switch (cred.kind) {
    case "secret":
      return clientSecretPost(cred.secret);
    case "certificate":
      return privateKeyJwt(cred.certificate);
    case "managedIdentity":
      return federatedAssertion(await managedIdentityToken(cred, http, retry, audience));
  }
}

/** What is wrong with an IMDS base URL, or undefined: IMDS is plain http on a link-local address by design; anything else must be loopback or https. */
export function imdsEndpointProblem(value: string): string | undefined {
  // Compare the parsed host: a prefix test would pass http://169.254.169.254.example.com or http://169.254.169.254@example.com.
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // secureUrlProblem names it below
  }
  if (url?.protocol === "http:" && url.host === "169.254.169.254" && url.username === "" && url.password === "") return undefined;
  return secureUrlProblem(value);
}
