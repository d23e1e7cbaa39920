import { PUBLIC_CLOUD } from "../../lib/entra-rules";
import { aadstsError } from "./aadsts-error";

/**
 * The `scope` parameter of a client-credentials or user_fic request, read as
 * Entra reads it: the OpenID Connect scopes may stand beside one resource's
 * `.default` (MSAL adds `openid profile offline_access` to every user-token
 * request); scopes of two resources, or a named permission where these grants
 * take only `.default`, are refused.
 *
 * Sources: the OpenID Connect scopes (openid, email, profile, offline_access):
 * "Scopes and permissions in the Microsoft identity platform" (entra-docs
 * identity-platform/scopes-oidc.md). 70011 InvalidScope: "Microsoft Entra
 * authentication and authorization error codes" (identity-platform/
 * reference-error-codes.md). 28000 (more than one resource) and 1002012 (client
 * credentials without `/.default`) are not on that page: their texts are
 * Entra's answers as quoted in Microsoft.Identity.Web and MSAL user reports.
 */

const OIDC_SCOPES = ["openid", "profile", "email", "offline_access"] as const;
export type OidcScope = (typeof OIDC_SCOPES)[number];

export interface RequestedScope {
  /** What stands before `/.default` (or before a named scope), trailing slashes removed. */
  resource: string;
  /** The OpenID Connect scopes asked for beside it. */
  oidc: ReadonlySet<OidcScope>;
  /** The permissions a delegated grant named (`api://x/Scope.Name`, or Graph's bare `User.Read`); absent for `.default`. */
  named?: readonly string[];
}

const asOidc = (s: string) => OIDC_SCOPES.find((o) => o === s.toLowerCase());

/** The resource part of a scope: everything before its last path segment. */
function resourceOf(scope: string): string {
  const cut = scope.lastIndexOf("/");
  return (cut > 0 ? scope.slice(0, cut) : scope).replace(/\/+$/, "").toLowerCase();
}

/** A named scope's permission and its resource; a bare name is Microsoft Graph's, as Entra reads it. */
function namedScope(item: string): { resource: string; name: string } {
  const cut = item.lastIndexOf("/");
  return cut > 0 ? { resource: item.slice(0, cut).replace(/\/+$/, ""), name: item.slice(cut + 1) } : { resource: PUBLIC_CLOUD.resourceUrl, name: item };
}

/**
 * The scope of a grant: client credentials and user_fic take one resource's
 * `.default` only; a delegated grant (the password grant, on-behalf-of) also
 * takes that resource's named scopes, never both forms at once.
 */
export function parseScope(scope: string, grant: "client_credentials" | "user_fic" | "delegated"): RequestedScope {
  const items = scope.split(/\s+/).filter((s) => s !== "");
  const oidc = new Set<OidcScope>();
  const rest: string[] = [];
  for (const item of items) {
    const o = asOidc(item);
    if (o) oidc.add(o);
    else rest.push(item);
  }
  const isDefault = (r: string) => /\/\.default$/i.test(r);
  const named = grant === "delegated" && rest.length > 0 && !rest.some(isDefault) ? rest.map(namedScope) : undefined;
  if (new Set(named ? named.map((n) => n.resource.toLowerCase()) : rest.map(resourceOf)).size > 1) {
    throw aadstsError(400, "invalid_request", 28000, `Provided value for the input parameter scope is not valid because it contains more than one resource. Scope ${scope} is not valid.`);
  }
  if (named) return { resource: named[0]!.resource, oidc, named: named.map((n) => n.name) };
  if (rest.length === 0 || !rest.every(isDefault)) {
    if (grant === "client_credentials") {
      throw aadstsError(
        400,
        "invalid_scope",
        1002012,
        `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
      );
    }
    const takes = grant === "user_fic" ? "the agent user flow takes '{resource}/.default'" : "ask for '{resource}/.default' or the resource's named scopes, not both";
    throw aadstsError(400, "invalid_scope", 70011, `The provided value for the input parameter 'scope' is not valid. The scope ${scope} is not valid: ${takes}.`);
  }
  // One resource (checked above), so the first scope names it.
  return { resource: rest[0]!.replace(/\/\.default$/i, "").replace(/\/+$/, ""), oidc };
}
