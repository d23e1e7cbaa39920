/**
 * `node microsoft-client.js < job.json`: runs one of Microsoft's own clients
 * against an authority, as a user's process does: the CA trusted only through
 * NODE_EXTRA_CA_CERTS, MSAL told nothing but the authority and
 * `knownAuthorities`, @azure/identity nothing but the authority host and
 * `disableInstanceDiscovery`. The job (secrets in it) comes on standard input,
 * never on the command line; the answer on standard output is one JSON line of
 * claims and cache facts, never a token or a secret.
 */
// First: the agents-hosting job routes Node's own fetch, which must be captured before anything loads undici.
import "../../bench/capture-fetch-agent";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfidentialClientApplication, type AuthenticationResult } from "@azure/msal-node";
import { ClientAssertionCredential, ClientSecretCredential } from "@azure/identity";
import { certificateAssertion, loadCertificate } from "../../../lib/client-assertion";
import { decodeJwtClaims, type JwtClaims } from "../../../lib/jwt";
import { PeerClient } from "../../bench/peer";

const EXCHANGE_SCOPE = "api://AzureADTokenExchange/.default";

export type Credential = { secret: string } | { certificatePem: string; privateKeyPem: string };

/** The agent user flow through MSAL's own APIs: fmiPath (hop 1), a client assertion (hop 2), user_fic (hop 3). */
export interface MsalAgentUserJob {
  client: "msal-agent-user";
  /** https://host:port/{tenant} */
  authority: string;
  blueprintAppId: string;
  credential: Credential;
  agentIdentityId: string;
  user: { userObjectId: string } | { username: string };
  resource: string;
}

/** A plain application's Graph token through @azure/identity. */
export interface IdentityJob {
  client: "identity-secret" | "identity-assertion";
  authorityHost: string;
  tenantId: string;
  clientId: string;
  credential: Credential;
  scope: string;
}

/**
 * @microsoft/agents-hosting's MsalTokenProvider, as the bench's peer runs it: it
 * takes no `knownAuthorities`, so it addresses login.microsoftonline.com and the
 * process's fetch dispatcher connects that name to the emulator's HTTPS port.
 */
export interface AgentsHostingJob {
  client: "agents-hosting";
  httpsPort: number;
  tenantId: string;
  blueprintAppId: string;
  secret: string;
  agentIdentityId: string;
  agentUserId: string;
  resource: string;
}

export type ClientJob = MsalAgentUserJob | IdentityJob | AgentsHostingJob;

export interface MsalAgentUserResult {
  t1: JwtClaims;
  t1FromCache: boolean[];
  t2: JwtClaims;
  t2FromCache: boolean[];
  t3: JwtClaims;
  t3Scopes: string[];
  account: { homeAccountId: string; localAccountId: string; tenantId: string; username: string } | null;
  idTokenClaims: Record<string, unknown>;
  /** acquireTokenSilent for the scopes hop 3 reported: served from the cache, the same token. */
  silent: { fromCache: boolean; sameToken: boolean };
}

export interface IdentityResult {
  claims: JwtClaims;
  expiresInS: number;
  secondCallSameToken: boolean;
}

function claims(token: string | undefined): JwtClaims {
  const c = token ? decodeJwtClaims(token) : undefined;
  if (!c) throw new Error("the answer carried no JWT access token");
  return c;
}

function msalCertificate(credential: { certificatePem: string; privateKeyPem: string }) {
  const der = new X509Certificate(credential.certificatePem).raw;
  return { thumbprintSha256: createHash("sha256").update(der).digest("hex"), privateKey: credential.privateKeyPem };
}

function need(result: AuthenticationResult | null, hop: string): AuthenticationResult {
  if (!result) throw new Error(`${hop}: MSAL returned no result`);
  return result;
}

async function msalAgentUser(job: MsalAgentUserJob): Promise<MsalAgentUserResult> {
  const knownAuthorities = [new URL(job.authority).host];
  const blueprint = new ConfidentialClientApplication({
    auth: {
      clientId: job.blueprintAppId,
      authority: job.authority,
      knownAuthorities,
      ...("secret" in job.credential ? { clientSecret: job.credential.secret } : { clientCertificate: msalCertificate(job.credential) }),
    },
  });
  const t1 = async () => need(await blueprint.acquireTokenByClientCredential({ scopes: [EXCHANGE_SCOPE], fmiPath: job.agentIdentityId }), "hop 1");
  const identity = new ConfidentialClientApplication({
    auth: { clientId: job.agentIdentityId, authority: job.authority, knownAuthorities, clientAssertion: async () => (await t1()).accessToken },
  });
  const t2 = async () => need(await identity.acquireTokenByClientCredential({ scopes: [EXCHANGE_SCOPE] }), "hop 2");

  const first1 = await t1();
  const again1 = await t1();
  const first2 = await t2();
  const again2 = await t2();
  const t3 = need(
    await identity.acquireTokenByUserFederatedIdentityCredential({ scopes: [`${job.resource}/.default`], assertion: first2.accessToken, ...job.user }),
    "hop 3",
  );
  if (!t3.account) throw new Error("hop 3: MSAL built no account from the answer");
  const silent = await identity.acquireTokenSilent({ account: t3.account, scopes: t3.scopes });
  const a = t3.account;
  return {
    t1: claims(first1.accessToken),
    t1FromCache: [first1.fromCache, again1.fromCache],
    t2: claims(first2.accessToken),
    t2FromCache: [first2.fromCache, again2.fromCache],
    t3: claims(t3.accessToken),
    t3Scopes: t3.scopes,
    account: { homeAccountId: a.homeAccountId, localAccountId: a.localAccountId, tenantId: a.tenantId, username: a.username },
    idTokenClaims: t3.idTokenClaims as Record<string, unknown>,
    silent: { fromCache: silent.fromCache, sameToken: silent.accessToken === t3.accessToken },
  };
}

async function identityToken(job: IdentityJob): Promise<IdentityResult> {
  const options = { authorityHost: job.authorityHost, disableInstanceDiscovery: true };
  const tokenEndpoint = `${job.authorityHost}/${job.tenantId}/oauth2/v2.0/token`;
  const { credential } = job;
  const cred =
    job.client === "identity-secret"
      ? new ClientSecretCredential(job.tenantId, job.clientId, "secret" in credential ? credential.secret : "", options)
      : new ClientAssertionCredential(
          job.tenantId,
          job.clientId,
          async () => {
            if ("secret" in credential) throw new Error("identity-assertion needs a certificate credential");
            return certificateAssertion(job.clientId, tokenEndpoint, loadCertificate(credential, "application"));
          },
          options,
        );
  const first = await cred.getToken(job.scope);
  const second = await cred.getToken(job.scope);
  return { claims: claims(first.token), expiresInS: Math.round((first.expiresOnTimestamp - Date.now()) / 1000), secondCallSameToken: second.token === first.token };
}

async function agentsHosting(job: AgentsHostingJob): Promise<JwtClaims> {
  const caPem = readFileSync(process.env.NODE_EXTRA_CA_CERTS ?? "", "utf8");
  const peer = await PeerClient.create({ httpsPort: job.httpsPort, caPem }, { tenantId: job.tenantId, blueprintAppId: job.blueprintAppId, secret: job.secret });
  try {
    return claims(await peer.token({ identity: job.agentIdentityId, user: job.agentUserId }, job.resource));
  } finally {
    await peer.close();
  }
}

function run(job: ClientJob): Promise<unknown> {
  if (job.client === "msal-agent-user") return msalAgentUser(job);
  if (job.client === "agents-hosting") return agentsHosting(job);
  return identityToken(job);
}

async function main(): Promise<void> {
  let input = "";
  for await (const chunk of process.stdin) input += String(chunk);
  const job = JSON.parse(input) as ClientJob;
  const result = await run(job);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  // MSAL's and @azure/identity's messages name the AADSTS code; they carry no secret of the job.
  const e = err as { errorCode?: string; message?: string };
  process.stderr.write(`${JSON.stringify({ errorCode: e.errorCode, message: String(e.message ?? err).slice(0, 2000) })}\n`);
  process.exitCode = 1;
});
