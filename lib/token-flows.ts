import { CAE_CAPABILITY, claimsParameter } from "./claims-request";
import { federatedAssertion } from "./client-auth";
import { isGuid } from "./entra-rules";
import type { ClaimMismatch } from "./errors";
import { checkAgentUserClaims, checkAppClaims, checkOnBehalfOfClaims, LISTED_ROLES, missingRoles, rolesLacking, type TokenFacts } from "./flow-claims";
import { decodeJwtClaims, type JwtClaims } from "./jwt";
import { nodeCrypto } from "./node-crypto";
import { listed } from "./printable";

/**
 * The token flows of an agent identity (docs/protocol.md, "The three hops",
 * "The app flow" and "The on-behalf-of flow"),
 * each a short description of its hops over parts they share: hop 1 (T1, the
 * blueprint's token for one agent identity) is the same in every flow and is
 * cached once for all of them; the hop chain (hop-chain.ts) runs a flow, the
 * token source (token-source.ts) caches its tokens.
 *
 *   agent user: T1 → T2 (client_credentials, T1 as assertion) → user_fic with T1 and T2
 *   app:        T1 → client_credentials for the resource, T1 as assertion
 *   on behalf:  T1 → jwt-bearer with T1 as assertion and the user's token as `assertion`
 */

/** The steps of the agent user flow, as errors and `agent-user token` name them. */
export const HOP_STEPS = {
  1: "hop 1 (blueprint token)",
  2: "hop 2 (agent identity token)",
  3: "hop 3 (agent user token)",
} as const;
export type Hop = keyof typeof HOP_STEPS;

/** The final step of the two-hop flows. */
export const FINAL_STEPS = {
  app: "hop 2 (agent app token)",
  onBehalfOf: "hop 2 (on-behalf-of token)",
} as const;

export type FlowName = "agentUser" | "app" | "onBehalfOf";

export interface HopRecord {
  hop: Hop;
  /** The hop as errors name it, e.g. "hop 2 (agent app token)". */
  step: string;
  /** Wall time of this hop in this call; 0 when it came from the cache. */
  ms: number;
  /** Seconds until the hop's token expires, as the identity provider said (less time spent in the cache). */
  expiresIn: number;
  cached: boolean;
}

/** What every flow is asked for. */
export interface FlowRequest {
  agentIdentityId: string;
  /** Resource the final token is for, e.g. https://graph.microsoft.com. */
  resourceUrl: string;
  /** Bypass every cache, e.g. so newly granted scopes show up. */
  fresh?: boolean;
  /**
   * The claims request of a resource's claims challenge (JSON), sent on the
   * final hop as Entra's `claims` parameter: the final token is minted anew
   * (earlier hops may come from the cache) and replaces the cached one.
   */
  claims?: string;
  /** Declare the `cp1` client capability (Continuous Access Evaluation); such tokens are cached apart from the others. */
  cae?: boolean;
  /**
   * Mint a new final token although the cached one is still good (a
   * proactive refresh): earlier hops still come from the cache, and
   * concurrent renewals share one request.
   */
  renew?: boolean;
}

export interface AgentUserTokenRequest extends FlowRequest {
  /** Object id (sent as user_id) or UPN (sent as username). */
  agentUser: string;
}

export interface AppTokenRequest extends FlowRequest {
  /** App roles the token must hold (its `roles` claim); a missing one fails the check, naming the assignment. */
  roles?: readonly string[];
}

export interface OnBehalfOfTokenRequest extends FlowRequest {
  /** The user's access token, whose audience is the blueprint; used for this one request and never kept. */
  userAssertion: string;
}

/** What the hop chain gives a hop to build its form: the parts that are the same in every flow. */
export interface HopEnv {
  /** The tenant's token endpoint. */
  endpoint: string;
  blueprintAppId: string;
  /** `{token-exchange audience}/.default`, what hop 1 and T2 ask for. */
  exchangeScope: string;
  /** Hop 1's client authentication fields, made for this request (a new certificate assertion, a managed identity token). */
  blueprintAuth(signal?: AbortSignal): Promise<Record<string, string>>;
}

export interface HopSpec<R extends FlowRequest> {
  hop: Hop;
  step: string;
  /** The cache key of an intermediate hop's token; the final hop's is the flow's. */
  key?: (request: R) => string;
  /** The form of the request; `earlier` holds the tokens of the hops before this one, in order. */
  form: (request: R, earlier: readonly string[], env: HopEnv, signal?: AbortSignal) => Record<string, string> | Promise<Record<string, string>>;
}

export interface Flow<R extends FlowRequest> {
  name: FlowName;
  /** The final token as errors and docs name it. */
  token: string;
  /** The hops in order: the last one mints the final token. */
  hops: readonly HopSpec<R>[];
  /** The final token's cache key. */
  key(request: R): string;
  /** What is wrong with the final token's claims for its key; empty when it is the token asked for. */
  check(claims: JwtClaims, request: R, facts: TokenFacts): ClaimMismatch[];
  /**
   * What a request asks of its token beyond the token's key (the app flow's
   * `roles`), checked on every token served to it: minted for it, taken
   * from the cache, or shared with another caller's request, since the key
   * does not tell such tokens apart. Empty when the token holds it all.
   */
  checkRequest?(claims: JwtClaims, request: R): ClaimMismatch[];
  /** The fix of a claims mismatch, when the flow knows a better one than the generic. */
  claimsHint(mismatches: readonly ClaimMismatch[], request: R, claims: JwtClaims): string | undefined;
  /** Hints that replace an AADSTS code's generic one on this flow's final hop. */
  hints: Readonly<Record<number, string>>;
  /** Whether a served token is renewed in the background before it expires. */
  renewable: boolean;
}

/**
 * A cache key: the kind of token and the values it is for, as a JSON array,
 * so that no two lists of values share a key whatever characters they hold
 * (joined with a separator, "a|b" + "c" and "a" + "b|c" would).
 */
function keyOf(kind: string | number, ...values: string[]): string {
  return JSON.stringify([kind, ...values]);
}

/** The final token's key: its kind and values, and apart when it declares the `cp1` capability. */
const finalKey = (kind: string | number, request: FlowRequest, ...values: string[]) =>
  request.cae ? keyOf(kind, request.agentIdentityId, ...values, request.resourceUrl, CAE_CAPABILITY) : keyOf(kind, request.agentIdentityId, ...values, request.resourceUrl);

/** The `scope` of a final hop: the resource's `.default`, which carries every permission granted. */
const defaultScope = (resourceUrl: string) => `${resourceUrl.replace(/\/+$/, "")}/.default`;

/** The final hop's `claims` parameter, when a challenge or CAE asks for one. */
function claimsField(request: FlowRequest, step: string): Record<string, string> {
  const claims = claimsParameter(request.claims, request.cae === true, step);
  return claims === undefined ? {} : { claims };
}

/** The agent identity as the client, T1 its assertion: what every hop after the first sends. */
const asAgentIdentity = (agentIdentityId: string, t1: string, env: HopEnv) => ({ client_id: agentIdentityId, ...federatedAssertion(t1)(agentIdentityId, env.endpoint) });

/** Hop 1, the same in every flow: the blueprint's token for one agent identity, cached per identity for all of them. */
const BLUEPRINT_HOP: HopSpec<FlowRequest> = {
  hop: 1,
  step: HOP_STEPS[1],
  key: (request) => keyOf(1, request.agentIdentityId),
  form: async (request, _earlier, env, signal) => ({
    grant_type: "client_credentials",
    client_id: env.blueprintAppId,
    scope: env.exchangeScope,
    fmi_path: request.agentIdentityId,
    ...(await env.blueprintAuth(signal)),
  }),
};

/** Hop 2 of the agent user flow: the agent identity's token-exchange token (T2), cached per identity. */
const IDENTITY_HOP: HopSpec<FlowRequest> = {
  hop: 2,
  step: HOP_STEPS[2],
  key: (request) => keyOf(2, request.agentIdentityId),
  form: (request, [t1], env) => ({ grant_type: "client_credentials", scope: env.exchangeScope, ...asAgentIdentity(request.agentIdentityId, t1!, env) }),
};

export const AGENT_USER_FLOW: Flow<AgentUserTokenRequest> = {
  name: "agentUser",
  token: "agent user token",
  hops: [
    BLUEPRINT_HOP,
    IDENTITY_HOP,
    {
      hop: 3,
      step: HOP_STEPS[3],
      form: (request, [t1, t2], env) => ({
        grant_type: "user_fic",
        scope: defaultScope(request.resourceUrl),
        ...asAgentIdentity(request.agentIdentityId, t1!, env),
        user_federated_identity_credential: t2!,
        // A UPN in user_id fails with AADSTS50000: UPNs go in username.
        ...(isGuid(request.agentUser) ? { user_id: request.agentUser } : { username: request.agentUser }),
        ...claimsField(request, HOP_STEPS[3]),
      }),
    },
  ],
  // The agent user compared as Entra does, without case.
  key: (request) => finalKey(3, request, request.agentUser.toLowerCase()),
  check: (claims, request, facts) => checkAgentUserClaims(claims, { ...facts, agentIdentityId: request.agentIdentityId, agentUser: request.agentUser }),
  claimsHint: () => undefined,
  hints: {},
  renewable: true,
};

export const APP_FLOW: Flow<AppTokenRequest> = {
  name: "app",
  token: "agent app token",
  hops: [
    BLUEPRINT_HOP,
    {
      hop: 2,
      step: FINAL_STEPS.app,
      form: (request, [t1], env) => ({
        grant_type: "client_credentials",
        scope: defaultScope(request.resourceUrl),
        ...asAgentIdentity(request.agentIdentityId, t1!, env),
        ...claimsField(request, FINAL_STEPS.app),
      }),
    },
  ],
  // The roles are not in the key: every caller shares the one app token, and checkRequest holds it to each caller's roles.
  key: (request) => finalKey("app", request),
  check: (claims, request, facts) => checkAppClaims(claims, { ...facts, agentIdentityId: request.agentIdentityId }),
  checkRequest: (claims, request) => missingRoles(claims, request.roles),
  claimsHint: (mismatches, request, claims) => {
    if (mismatches.length !== 1 || mismatches[0]!.claim !== "roles") return undefined;
    const missing = listed(rolesLacking(claims, request.roles), LISTED_ROLES);
    return `the agent identity ${request.agentIdentityId} holds no app role assignment for ${missing} on ${request.resourceUrl}: declare it in the agent's appRoles and run \`pulumi up\`, then allow a few minutes before new tokens carry it; \`agent-user doctor\` names the missing assignment`;
  },
  hints: {},
  renewable: true,
};

/** The user a user assertion names (its `oid`), when it is a JWT that names one: the on-behalf-of token must be for that user. */
function assertedUser(userAssertion: string): string | undefined {
  const oid = decodeJwtClaims(userAssertion)?.oid;
  return typeof oid === "string" ? oid : undefined;
}

/** A user assertion's stand-in in a cache key: its SHA-256, so the token itself is kept nowhere. */
const assertionKey = (userAssertion: string) => nodeCrypto().createHash("sha256").update(userAssertion).digest("base64url");

export const ON_BEHALF_OF_FLOW: Flow<OnBehalfOfTokenRequest> = {
  name: "onBehalfOf",
  token: "on-behalf-of token",
  hops: [
    BLUEPRINT_HOP,
    {
      hop: 2,
      step: FINAL_STEPS.onBehalfOf,
      form: (request, [t1], env) => ({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        scope: defaultScope(request.resourceUrl),
        ...asAgentIdentity(request.agentIdentityId, t1!, env),
        assertion: request.userAssertion,
        requested_token_use: "on_behalf_of",
        ...claimsField(request, FINAL_STEPS.onBehalfOf),
      }),
    },
  ],
  // A new user assertion is a new token: the next caller with the same assertion shares it until it is spent.
  key: (request) => finalKey("obo", request, assertionKey(request.userAssertion)),
  check: (claims, request, facts) => checkOnBehalfOfClaims(claims, { ...facts, agentIdentityId: request.agentIdentityId, userObjectId: assertedUser(request.userAssertion) }),
  claimsHint: () => "check that the user assertion is the signed-in user's token for the blueprint, and that the agent identity belongs to that blueprint",
  hints: {
    65001:
      "the agent identity has no delegated consent to act for users on this resource: grant it (the agent's onBehalfOfScopes in the kit: an AllPrincipals oauth2PermissionGrant from the agent identity to the resource's service principal), or, right after `pulumi up`, wait up to 2 minutes for replication (consistencyWindowMs: 120000)",
    500131:
      "the user assertion's audience is not the blueprint: the client must ask for a token for the blueprint's exposed API (api://{blueprint appId}/{scope}, the kit's onBehalfOfScope) and pass that token (`userAssertion`)",
    50027: "the person's assertion (`userAssertion`) is not a well-formed JWT: pass the signed-in person's access token for the blueprint, whole, as the client received it",
    50013: "the user assertion is not a valid token of this tenant (its signature, issuer or lifetime failed): pass the signed-in user's access token as the client received it",
    500133: "the user assertion has expired: ask the client for a fresh user token and pass it",
    7000114: "the user assertion is an app-only token; the on-behalf-of flow needs a signed-in user's token",
    50034: "the user of the assertion was not found in this tenant; check the tenant",
    50057: "the user of the assertion is disabled; the on-behalf-of flow cannot act for a disabled user",
  },
  // Renewing would send the same user assertion again later; a new token takes a fresh one from the caller.
  renewable: false,
};
