import { UsageError } from "./errors";
import { NESTING_TOO_DEEP, parseJson } from "./json-positions";
import { isObject } from "./json-value";
import { shownValue } from "./option-checks";

/**
 * The client capability that declares a client ready for Continuous Access
 * Evaluation's claims challenges ("Claims challenges, claims requests and
 * client capabilities", learn.microsoft.com/entra/identity-platform/claims-challenge).
 */
export const CAE_CAPABILITY = "cp1";

/**
 * The `claims` parameter of a token request: the claims request a resource's
 * challenge asked for, with the `cp1` capability declared under
 * `access_token.xms_cc` when `cae` is set, merged as MSAL's buildMergedClaims
 * does (the capability replaces any `xms_cc` the challenge named). Undefined
 * when there is nothing to send.
 */
export function claimsParameter(claims: string | undefined, cae: boolean, step: string): string | undefined {
  if (claims === undefined && !cae) return undefined;
  const merged = claims === undefined ? {} : parseClaimsRequest(claims, step);
  if (cae) {
    const accessToken = isObject(merged.access_token) ? merged.access_token : {};
    merged.access_token = { ...accessToken, xms_cc: { values: [CAE_CAPABILITY] } };
  }
  return JSON.stringify(merged);
}

const CLAIMS_EXAMPLE = `a JSON object such as {"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}`;
const CLAIMS_HINT = "pass the claims of the resource's WWW-Authenticate challenge, base64-decoded";

/**
 * A claims request as an object. Its text is scanned before it is parsed:
 * nesting deeper than MAX_JSON_NESTING (a claims request is a few levels
 * deep) is refused by name, where JSON.stringify of the merged request would
 * overflow the stack.
 */
function parseClaimsRequest(claims: string, step: string): Record<string, unknown> {
  const parsed = parseJson(claims);
  if ("problem" in parsed && parsed.problem.reason === NESTING_TOO_DEEP) {
    throw new UsageError(`claims must be a claims request, ${CLAIMS_EXAMPLE}; this one is ${NESTING_TOO_DEEP}, more than any claims request`, CLAIMS_HINT, step);
  }
  if ("problem" in parsed || !isObject(parsed.value)) {
    throw new UsageError(`claims must be a claims request, ${CLAIMS_EXAMPLE}, got ${shownValue(claims)}`, CLAIMS_HINT, step);
  }
  return { ...parsed.value };
}
