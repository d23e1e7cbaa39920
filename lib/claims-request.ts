import { UsageError } from "./errors";
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

function parseClaimsRequest(claims: string, step: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(claims);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) {
    throw new UsageError(
      `claims must be a claims request, a JSON object such as {"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}, got ${shownValue(claims)}`,
      "pass the claims of the resource's WWW-Authenticate challenge, base64-decoded",
      step,
    );
  }
  return { ...parsed };
}
