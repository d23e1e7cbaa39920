import type { GraphClient } from "../../lib/graph-client";
import { madeBy, madeByAnother, type Creation } from "./graph-helpers";
import { UNKNOWN } from "./inputs";

/** An object a create's lookup found, and how, for a refusal that names it. */
export interface Found {
  /** What it is, e.g. "agent identity blueprint". */
  what: string;
  object: Creation;
  /** Its typed URL, whose owners the refusal names. */
  objectPath: string;
  /** How the lookup found it, e.g. "by this stack's adoption tag …". */
  foundBy: string;
}

/**
 * Adopts only what this provisioner created. A lookup finds objects by
 * values anyone may copy (a tag, a name, an appId, a UPN): another
 * application of the tenant holding only a create permission could plant a
 * blueprint carrying one before the stack's first `up`, which the create
 * would then rename, sponsor, give a credential and build agent identities
 * under. So an object another application created is refused, naming it, its
 * creator and its owners, before anything is sent to it. A plain Error:
 * final, never retried, and its message survives the closure serializer.
 */
export async function requireOwn(graph: GraphClient, found: Found, provisionerAppId: string): Promise<void> {
  if (madeBy(found.object, provisionerAppId)) return;
  const detail = await madeByAnother(graph, found.what, found.object, found.objectPath, provisionerAppId);
  const creator = found.object.createdByAppId;
  const sameStack = creator ? `if your stack made it as another provisioner application, run \`pulumi up\` as that application (ARM_CLIENT_ID=${creator}); otherwise ` : "";
  throw new Error(
    `${detail}. The create found it ${found.foundBy}, but adopts only what its own provisioner created, so it adopted and changed nothing. ` +
      `Fix: ${sameStack}another application made it: find out who from its owners and creator, delete it in Entra, and run \`pulumi up\` again`,
  );
}

/*
 * A blueprint's adoption tag. The stack's base tag,
 * `agent-user-kit:<project>/<stack>/<component>`, anyone may work out; a
 * blueprint planted with it before the stack's first `up` was refused there,
 * and so blocked that `up` for good. So a new blueprint's tag ends in a
 * random nonce, drawn by the resource's first check and kept from then on in
 * the stack's state (check's `olds`), which only the stack holds: no one can
 * write it before the blueprint exists, and no user step is needed. A tag
 * the state already holds for the same base stays as it is, the base alone
 * included: an existing stack's blueprint keeps its tag, and is neither
 * replaced nor looked up again.
 */

/** The nonce: 32 hex digits, after the base and a slash. */
const NONCE = /\/[0-9a-f]{32}$/;
const NONCE_CHARS = 33;

/** The longest base tag: with the nonce, the tag is at most the 256 characters check() allows. */
export const ADOPTION_BASE_MAX = 256 - NONCE_CHARS;

/** The base of a tag: the tag without its nonce (a tag made before nonces is its own base). */
export function adoptionBase(tag: string): string {
  return tag.replace(NONCE, "");
}

/**
 * The tag check() gives a blueprint: the one `held` in the state when it has
 * the same base, else the base with a new nonce. An unknown or refused base
 * is passed on as it is.
 */
export function adoptionTag(base: unknown, held: unknown): unknown {
  if (typeof base !== "string" || base === UNKNOWN) return base;
  if (typeof held === "string" && adoptionBase(held) === base) return held;
  return `${base}/${globalThis.crypto.randomUUID().replace(/-/g, "")}`;
}
