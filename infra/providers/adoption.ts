import type { GraphClient } from "../../lib/graph-client";
import { madeBy, madeByAnother, type Creation } from "./graph-helpers";

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
 * values anyone may copy (a tag, a name, an appId, a UPN), and a tag is
 * predictable (`agent-user-kit:<project>/<stack>/<component>`): another
 * application of the tenant holding only a create permission could plant a
 * blueprint carrying it before the stack's first `up`, which the create
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
