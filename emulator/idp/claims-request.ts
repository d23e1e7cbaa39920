import { CAE_CAPABILITY } from "../../lib/claims-request";
import { isObject } from "../../lib/json-value";
import { emulatorRule } from "./aadsts-error";

/**
 * The client capabilities a token request's `claims` parameter declares, as
 * "Claims challenges, claims requests and client capabilities" (entra-docs
 * identity-platform/claims-challenge.md) describes them: a claims request is
 * a JSON object; `access_token.xms_cc.values` lists the capabilities, which
 * the access token then carries as its `xms_cc` array. Only `cp1` (Continuous
 * Access Evaluation), the one capability Entra documents, is copied: any
 * other value, however many and whatever they hold, never reaches a token.
 * Other requested claims (a challenge's `nbf`, `acrs`)
 * are accepted: a token minted now satisfies `nbf`, and the emulator has no
 * Conditional Access to step up for `acrs`. Entra's error for a claims
 * parameter that is no JSON object is not documented: the emulator refuses
 * it with its own rule rather than guess a code.
 */
export function requestedCapabilities(claims: string | null): string[] {
  if (claims === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(claims);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) throw emulatorRule("the claims parameter must be a JSON object (a claims request).");
  const accessToken = parsed.access_token;
  const xmsCc = isObject(accessToken) ? accessToken.xms_cc : undefined;
  const values = isObject(xmsCc) ? xmsCc.values : undefined;
  return Array.isArray(values) && values.includes(CAE_CAPABILITY) ? [CAE_CAPABILITY] : [];
}
