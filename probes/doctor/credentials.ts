import type { BlueprintCredential } from "../../lib/blueprint-credential";
import { USE_MANAGED_IDENTITY } from "../../lib/graph-client";
import { failed, ok, warning, type Check } from "../checks";

/** A password or certificate of a blueprint as Graph lists it (passwordCredential, keyCredential). */
export interface GraphCredential {
  keyId: string;
  displayName?: string | null;
  /** Passwords only: the first characters of the secret (Graph's `hint`). */
  hint?: string | null;
  endDateTime?: string | null;
}

export interface GraphFederatedCredential {
  name: string;
  subject: string;
  audiences: string[];
}

export interface BlueprintCredentials {
  passwords: GraphCredential[];
  certificates: GraphCredential[];
  federated: GraphFederatedCredential[];
}

const DAY_MS = 86_400_000;
const LINK = "blueprint credential";
const ROTATE =
  "rotate the secret: set agent-user-kit:secretEndDate to a later date (or empty), run `pulumi up`, then write the outputs again (`pulumi stack output --json --show-secrets`)";
const RENEW_CERTIFICATE = "upload a new certificate: set agent-user-kit:certificatePem and run `pulumi up`";
const NONE_ALLOWED = `run \`pulumi up\`; if it cannot add one, the tenant refuses secrets and certificates on blueprints: ${USE_MANAGED_IDENTITY}`;

const day = (iso: unknown) => (typeof iso === "string" ? iso.slice(0, 10) : "an unknown date");
const ends = (c: GraphCredential) => (typeof c.endDateTime === "string" ? Date.parse(c.endDateTime) : Number.POSITIVE_INFINITY);
const named = (kind: string, c: GraphCredential) => `${kind} ${c.displayName ? `"${c.displayName}" ` : ""}(keyId ${c.keyId})`;

/**
 * The blueprint's credentials against the one the outputs use: the credential
 * in use must be there and current; any credential that has expired, or
 * ends within `warnDays`, is a warning (a failure when it is the one in use).
 */
export function checkCredentials(found: BlueprintCredentials, inUse: BlueprintCredential, warnDays: number, now: number, audience: string): Check {
  const soon = now + warnDays * DAY_MS;
  const summary = `${found.passwords.length} password(s), ${found.certificates.length} certificate(s), ${found.federated.length} federated credential(s)`;
  const problems: Check[] = [];

  if (inUse.kind === "secret") {
    // Graph shows a secret's first characters as its hint: the candidates for the secret the outputs hold.
    const candidates = found.passwords.filter((p) => typeof p.hint !== "string" || inUse.secret.startsWith(p.hint));
    const best = candidates.sort((a, b) => ends(b) - ends(a))[0];
    if (!best) return failed(LINK, undefined, `${summary}; none of them is the secret the outputs hold`, found.passwords.length === 0 ? NONE_ALLOWED : ROTATE);
    if (ends(best) <= now) return failed(LINK, best.keyId, `the secret in use, ${named("password", best)}, expired on ${day(best.endDateTime)}`, ROTATE);
    if (ends(best) <= soon) problems.push(warning(LINK, best.keyId, `the secret in use ends on ${day(best.endDateTime)}, within ${warnDays} days`, ROTATE));
  } else if (inUse.kind === "certificate") {
    const current = found.certificates.filter((c) => ends(c) > now);
    if (current.length === 0) {
      return failed(LINK, undefined, `${summary}; no current certificate for the certificate the outputs use`, found.certificates.length === 0 ? NONE_ALLOWED : RENEW_CERTIFICATE);
    }
  } else if (!found.federated.some((f) => Array.isArray(f.audiences) && f.audiences.includes(audience))) {
    return failed(LINK, undefined, `${summary}; no federated credential with audience ${audience} for the managed identity`, "run `pulumi up` (credential managedIdentity) to create it");
  }

  for (const [kind, list] of [["password", found.passwords], ["certificate", found.certificates]] as const) {
    for (const c of list) {
      if (problems.some((p) => p.id === c.keyId)) continue;
      const fix = kind === "password" ? ROTATE : RENEW_CERTIFICATE;
      if (ends(c) <= now) problems.push(warning(LINK, c.keyId, `${named(kind, c)} expired on ${day(c.endDateTime)} and is still listed`, `${fix}; an unused one can be removed`));
      else if (ends(c) <= soon) problems.push(warning(LINK, c.keyId, `${named(kind, c)} ends on ${day(c.endDateTime)}, within ${warnDays} days`, fix));
    }
  }
  if (problems.length > 0) return problems[0]!;
  return ok(LINK, undefined, `${summary}; the ${inUse.kind === "managedIdentity" ? "managed identity's federated credential" : inUse.kind} in use is current`);
}
