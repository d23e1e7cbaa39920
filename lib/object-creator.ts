/*
 * Which application made a directory object, and who owns it: what decides
 * whether the provisioner may take an object it finds as its own (the
 * providers' adoption, preflight's "held by this stack"). Graph records the
 * appId of the creating token as `createdByAppId` ("Set internally by
 * Microsoft Entra ID. Read-only.") on blueprints, blueprint principals and
 * agent identities. Owners alone do not tell: Microsoft's tools and how-to
 * add people as owners with `owners@odata.bind`, and a stack may too. An
 * agent user records no creator (the agentUser page documents none): its
 * parent agent identity's stands for it.
 */

import { AgentUserError } from "./errors";
import type { GraphClient } from "./graph-client";
import type { Shape } from "./graph-shape";
import { printable, quoteValue } from "./printable";

/** What a lookup selects of an object to judge it: its id, its name and its creator. */
export interface Creation {
  id: string;
  displayName?: string | null;
  createdByAppId?: string | null;
}

/** The `$select` fields of Creation. */
export const CREATION_SELECT = "id,displayName,createdByAppId";

/** Whether the application `appId` made the object; an object whose creator Graph does not name is nobody's. */
export function madeBy(object: Creation, appId: string): boolean {
  return typeof object.createdByAppId === "string" && object.createdByAppId.toLowerCase() === appId.toLowerCase();
}

interface Owner {
  "@odata.type"?: string;
  id: string;
  displayName?: string | null;
  userPrincipalName?: string | null;
  appId?: string | null;
}
const OWNER: Shape = { "@odata.type": "string?", id: "string", displayName: "string?", userPrincipalName: "string?", appId: "string?" };

function ownerInWords(owner: Owner): string {
  const name = owner.displayName ? `${quoteValue(owner.displayName)} ` : "";
  if (owner.userPrincipalName) return `user ${name}<${printable(owner.userPrincipalName)}> (${printable(owner.id)})`;
  if (owner.appId) return `application ${name}(appId ${printable(owner.appId)}, principal ${printable(owner.id)})`;
  return `${name}${printable(owner.id)}`;
}

/**
 * The owners of the object at `objectPath` (its typed URL), in words, read
 * only to name them in a refusal: a read that fails says so in their place,
 * and the refusal stands.
 */
export async function ownersInWords(graph: GraphClient, objectPath: string): Promise<string> {
  try {
    // agentidentityblueprint-list-owners, agentidentityblueprintprincipal-list-owners, agentidentity-list-owners
    const owners = await graph.list<Owner>(`${objectPath}/owners`, { agentId: true, shape: OWNER });
    return owners.length === 0 ? "none" : owners.map(ownerInWords).join(", ");
  } catch (err) {
    if (!(err instanceof AgentUserError)) throw err;
    return `not known (reading them failed: ${err.code}${err.status === undefined ? "" : `, HTTP ${err.status}`})`;
  }
}

/** "agent identity blueprint "Name" (id), created by application X, not by the provisioner Y; its owners: …" */
export async function madeByAnother(graph: GraphClient, what: string, object: Creation, objectPath: string, provisionerAppId: string): Promise<string> {
  const name = object.displayName ? `${quoteValue(object.displayName)} ` : "";
  const creator = object.createdByAppId ? `application ${printable(object.createdByAppId)}` : "an application Graph does not name (no createdByAppId)";
  return `${what} ${name}(${printable(object.id)}) was created by ${creator}, not by the provisioner ${provisionerAppId}; its owners: ${await ownersInWords(graph, objectPath)}`;
}
