import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import type { HintFor } from "./failure";
import { requireOwn } from "./adoption";
import { CREATION_SELECT, getIfExists, odataString, BLUEPRINT_PRINCIPALS, blueprintPath, blueprintPrincipalPath } from "./graph-helpers";
import { graphProvider } from "./graph-provider";
import type { GraphResourceInputs, ResourceArgs } from "./inputs";
import { registeredArgs } from "./resource-args";

/** Inputs of a blueprint principal (service principal subtype microsoft.graph.agentIdentityBlueprintPrincipal). */
export interface BlueprintPrincipalInputs extends GraphResourceInputs {
  /** The blueprint's appId. A tenant holds one principal per appId, which is what a retried create adopts by. */
  appId: string;
  /** The blueprint's object id: the create first waits until the blueprint is readable. */
  blueprintObjectId: string;
}

export interface BlueprintPrincipalOutputs extends BlueprintPrincipalInputs {
  /** Object id of the principal: the `oid` of hop-1 tokens. */
  principalId: string;
}

interface GraphPrincipal {
  id: string;
  appId: string;
  createdByAppId?: string | null;
}

const SHAPE: Shape = { id: "string", appId: "string?" };
const FOUND_SHAPE: Shape = { ...SHAPE, displayName: "string?", createdByAppId: "string?" };

const hints: HintFor = (err) =>
  err.status === 400 ? "check that appId is the appId (not the object id) of an agent identity blueprint in this tenant" : undefined;

/** The blueprint's principal, which a tenant holds one of per appId, if the provisioner created it; another application's is refused (adoption.ts). */
async function findByAppId(graph: GraphClient, appId: string, provisionerAppId: string): Promise<GraphPrincipal | undefined> {
  const [found] = await graph.list<GraphPrincipal>(`${BLUEPRINT_PRINCIPALS}?$filter=appId eq ${odataString(appId)}&$select=appId,${CREATION_SELECT}`, {
    agentId: true,
    shape: FOUND_SHAPE,
  });
  if (found) {
    await requireOwn(graph, { what: "blueprint principal", object: found, objectPath: blueprintPrincipalPath(found.id), foundBy: `as the principal of blueprint ${appId}` }, provisionerAppId);
  }
  return found;
}

export const blueprintPrincipalProvider = graphProvider<BlueprintPrincipalInputs, BlueprintPrincipalOutputs, GraphPrincipal>({
  resource: "agent identity blueprint principal",
  paths: { collection: BLUEPRINT_PRINCIPALS, object: (id) => blueprintPrincipalPath(id), parent: (inputs) => blueprintPath(inputs.blueprintObjectId) },
  check: (c) => ({ appId: c.guid("appId"), blueprintObjectId: c.guid("blueprintObjectId") }),
  diff: { replace: ["appId", "blueprintObjectId"], update: [] },
  hints,
  lookup: (graph, inputs, provisionerAppId) => findByAppId(graph, inputs.appId, provisionerAppId),
  body: (inputs) => ({ appId: inputs.appId }),
  outputs: (inputs, object) => ({ ...inputs, principalId: object.id }),

  async read(session, path, state) {
    const live = await getIfExists<GraphPrincipal>(session.graph, `${path}?$select=id,appId`, { shape: SHAPE });
    return live && { ...state, appId: live.appId?.toLowerCase() ?? state.appId, principalId: live.id };
  },

  // Only the shared bookkeeping inputs can change in place; nothing to send to Graph.
  async update(_session, _path, olds, news) {
    return { ...news, principalId: olds.principalId };
  },
});

/** The blueprint's service principal in the tenant; agent identities cannot be created without it. */
export class BlueprintPrincipal extends pulumi.dynamic.Resource {
  declare readonly appId: pulumi.Output<string>;
  declare readonly principalId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<BlueprintPrincipalInputs>, opts?: pulumi.CustomResourceOptions) {
    super(blueprintPrincipalProvider, name, { ...registeredArgs(args), principalId: undefined }, opts, "agent-user-kit", "BlueprintPrincipal");
  }
}
