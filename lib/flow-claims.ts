import type { ClaimMismatch } from "./errors";
import type { JwtClaims } from "./jwt";
import { listed } from "./printable";
import { isLoopbackUrl } from "./urls";
import { isGraphResource, isGuid, MAX_TOKEN_LIFETIME_S, MICROSOFT_GRAPH_APP_ID, resourceKey } from "./entra-rules";

/*
 * What must hold of each flow's final token before it is handed out or
 * cached (docs/protocol.md, "Checks on the agent user token" and "Checks on
 * the app and on-behalf-of tokens"), and what a token
 * that fails the check looks like instead: the claims say which flow a token
 * came from (agent-token-claims: `idtyp`, `oid`, `azp`/`appid`,
 * `xms_par_app_azp`, the facet claims).
 */

/** What every agent token is checked against, whichever flow minted it. */
export interface TokenFacts {
  /** A GUID, or a verified domain: then `tidOfT1` stands in for it. */
  tenantId: string;
  /** The resource asked for: `aud` must be it, or (for an appId-named resource) its GUID. */
  resourceUrl?: string;
  /** The `tid` of the T1 the chain used, which a domain-named tenant is checked against. */
  tidOfT1?: string;
  /** The blueprint: a token's `xms_par_app_azp`, when it has one, must be it. */
  blueprintAppId?: string;
  /** Now, in ms, for the `exp` check. */
  now?: number;
}

export interface ExpectedIdentity extends TokenFacts {
  agentIdentityId: string;
  agentUser: string;
}

/** The mismatches of an agent user token (the autonomous agent user flow); empty when it is the token asked for. */
export function checkAgentUserClaims(claims: JwtClaims, expected: ExpectedIdentity): ClaimMismatch[] {
  const subject = isGuid(expected.agentUser) ? { claim: "oid", value: expected.agentUser } : { claim: "upn", value: expected.agentUser };
  return checkAgentToken(claims, { idtyp: "user", subject, agentIdentityId: expected.agentIdentityId, facts: expected });
}

/** The mismatches of the agent identity's own app token (the autonomous app flow); the roles a caller asks for are missingRoles'. */
export function checkAppClaims(claims: JwtClaims, expected: TokenFacts & { agentIdentityId: string }): ClaimMismatch[] {
  return checkAgentToken(claims, { idtyp: "app", subject: { claim: "oid", value: expected.agentIdentityId }, agentIdentityId: expected.agentIdentityId, facts: expected });
}

/** How many missing roles an error or a hint names before "and N more": 100,000 declared roles are no message. */
export const LISTED_ROLES = 5;

/** The app roles a token holds (its `roles` claim). */
const heldRoles = (claims: JwtClaims): string[] => (Array.isArray(claims.roles) ? claims.roles.map(String) : []);

/** The roles of `asked` that the token does not hold. */
export function rolesLacking(claims: JwtClaims, asked: readonly string[] | undefined): string[] {
  if (asked === undefined || asked.length === 0) return [];
  const held = new Set(heldRoles(claims));
  return asked.filter((role) => !held.has(role));
}

/** The roles of `asked` that the token does not hold, as a mismatch of its `roles` claim; empty when it holds them all. */
export function missingRoles(claims: JwtClaims, asked: readonly string[] | undefined): ClaimMismatch[] {
  const missing = rolesLacking(claims, asked);
  if (missing.length === 0) return [];
  const held = heldRoles(claims);
  return [{ claim: "roles", expected: `to hold ${listed(missing, LISTED_ROLES)}`, actual: held.length > 0 ? held.join(" ") : undefined }];
}

/** The mismatches of an on-behalf-of token: the user is the one the user assertion names (its `oid`), when it names one. */
export function checkOnBehalfOfClaims(claims: JwtClaims, expected: TokenFacts & { agentIdentityId: string; userObjectId?: string }): ClaimMismatch[] {
  const subject = expected.userObjectId === undefined ? undefined : { claim: "oid", value: expected.userObjectId };
  return checkAgentToken(claims, { idtyp: "user", subject, agentIdentityId: expected.agentIdentityId, facts: expected });
}

interface AgentTokenShape {
  idtyp: "user" | "app";
  /** The claim naming the token's subject, when the caller knows who it must be. */
  subject?: { claim: string; value: string };
  agentIdentityId: string;
  facts: TokenFacts;
}

function checkAgentToken(claims: JwtClaims, want: AgentTokenShape): ClaimMismatch[] {
  const mismatches: ClaimMismatch[] = [];
  const expect = (claim: string, value: string, actual: unknown) => {
    if (typeof actual !== "string" || actual.toLowerCase() !== value.toLowerCase()) {
      mismatches.push({ claim, expected: value, actual: typeof actual === "string" ? actual : undefined });
    }
  };
  const { facts } = want;
  expect("idtyp", want.idtyp, claims.idtyp);
  if (want.subject) expect(want.subject.claim, want.subject.value, claims[want.subject.claim]);
  expect(claims.azp !== undefined ? "azp" : "appid", want.agentIdentityId, claims.azp ?? claims.appid);
  // Optional in Entra's tokens (agent-token-claims); when there, it names the blueprint that stands behind the identity.
  if (claims.xms_par_app_azp !== undefined && facts.blueprintAppId !== undefined) expect("xms_par_app_azp", facts.blueprintAppId, claims.xms_par_app_azp);
  const tenant = isGuid(facts.tenantId) ? facts.tenantId : facts.tidOfT1;
  if (tenant !== undefined) expect("tid", tenant, claims.tid);
  if (facts.resourceUrl !== undefined && !audienceMatches(claims.aud, facts.resourceUrl)) {
    mismatches.push({ claim: "aud", expected: facts.resourceUrl, actual: typeof claims.aud === "string" ? claims.aud : undefined });
  }
  if (facts.now !== undefined) mismatches.push(...timeMismatches(claims, facts.now));
  return mismatches;
}

function timeMismatches(claims: JwtClaims, now: number): ClaimMismatch[] {
  const mismatches: ClaimMismatch[] = [];
  const latest = now + MAX_TOKEN_LIFETIME_S * 1000;
  const exp = claims.exp;
  if (!(typeof exp === "number" && exp * 1000 > now && exp * 1000 <= latest)) {
    mismatches.push({ claim: "exp", expected: "a time after now, at most 7 days ahead", actual: timeClaimText(exp) });
  }
  // Entra's nbf and iat are minutes before the token was minted; one a week away is no token of a chain run now.
  for (const claim of ["nbf", "iat"] as const) {
    const value = claims[claim];
    if (value !== undefined && !(typeof value === "number" && Math.abs(value * 1000 - now) <= MAX_TOKEN_LIFETIME_S * 1000)) {
      mismatches.push({ claim, expected: "a time within 7 days of now", actual: timeClaimText(value) });
    }
  }
  return mismatches;
}

/** The facet value of an agent identity, in `xms_act_fct` and `xms_sub_fct` (agent-token-claims). */
const AGENT_IDENTITY_FACET = "11";
/** The facet value of an agent's user account, in `xms_sub_fct`. */
const AGENT_USER_FACET = "13";

const facets = (value: unknown): string[] => (typeof value === "string" ? value.split(/\s+/) : []);

/**
 * Which flow a token looks like it came from, in words for an error: the
 * claims tell an agent identity's app token from an agent user token and
 * from a token for a human user, and an agent's token from another app's.
 */
export function tokenOrigin(claims: JwtClaims): string {
  const client = claims.azp ?? claims.appid;
  const byAgent = claims.xms_par_app_azp !== undefined || facets(claims.xms_act_fct).includes(AGENT_IDENTITY_FACET);
  const who = typeof client === "string" ? ` of client ${client}` : "";
  if (claims.idtyp === "app") return byAgent ? `an agent identity's own app token${who} (the autonomous app flow)` : `an application's app-only token${who}, not an agent identity's`;
  if (claims.idtyp === "user") {
    if (facets(claims.xms_sub_fct).includes(AGENT_USER_FACET)) return `an agent user token${who} (the autonomous agent user flow)`;
    return byAgent ? `a token for a human user${who} (the on-behalf-of flow)` : `a delegated token${who}, not an agent identity's`;
  }
  return "a token without idtyp, from no agent flow";
}

/** The largest time a Date holds, in ms either side of 1970 (ECMA-262's time value range). */
const MAX_DATE_MS = 8.64e15;

/** A time claim (seconds since 1970) as a mismatch shows it: its date when it has one, else the number itself. */
function timeClaimText(seconds: unknown): string | undefined {
  if (typeof seconds !== "number") return undefined;
  return Number.isFinite(seconds) && Math.abs(seconds * 1000) <= MAX_DATE_MS ? new Date(seconds * 1000).toISOString() : String(seconds);
}

/**
 * Entra names the audience by the resource's URL or by its appId. Graph's
 * appId is known, so a Graph token must name Graph either way; another API's
 * appId is not known here, so its token may carry any appId (a GUID) but no
 * other API's URL.
 */
function audienceMatches(aud: unknown, resourceUrl: string): boolean {
  if (typeof aud !== "string") return false;
  const want = resourceKey(resourceUrl);
  const got = resourceKey(aud);
  if (got === want || `api://${got}` === want) return true;
  // The local emulator serves Graph at its own loopback origin, and a token asked for it is Graph's.
  if (isLoopbackUrl(want) && isGraphResource(got)) return true;
  return isGraphResource(want) ? got === MICROSOFT_GRAPH_APP_ID : isGuid(got);
}
