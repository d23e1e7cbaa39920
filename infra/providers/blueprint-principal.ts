import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import { configureProvisioner } from "../provisioner-credential";
import { requireState, step, type HintFor } from "./failure";
import { awaitReplica, createOrAdopt, deleteIfExists, getIfExists, graphSession, odataString, postOnce } from "./graph-ops";
import { BLUEPRINT_PRINCIPALS, blueprintPath, blueprintPrincipalPath } from "./paths";
import { checkInputs, diffKeys, type GraphResourceInputs, type ResourceArgs } from "./inputs";

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
}

const RESOURCE = "agent identity blueprint principal";

const hints: HintFor = (err) =>
  err.status === 400 ? "check that appId is the appId (not the object id) of an agent identity blueprint in this tenant" : undefined;

async function findByAppId(graph: GraphClient, appId: string): Promise<GraphPrincipal | undefined> {
  const found = await graph.list<GraphPrincipal>(`${BLUEPRINT_PRINCIPALS}?$filter=appId eq ${odataString(appId)}&$select=id,appId`, { agentId: true });
  return found[0];
}

export const blueprintPrincipalProvider: pulumi.dynamic.ResourceProvider<BlueprintPrincipalInputs, BlueprintPrincipalOutputs> = {
  // An arrow, so the serializer captures the module (as require(...) once installed), not the function's text.
  configure: (request) => configureProvisioner(request),

  async check(_olds, news) {
    return checkInputs(news, (c) => ({ appId: c.guid("appId"), blueprintObjectId: c.guid("blueprintObjectId") }));
  },

  async diff(_id, olds, news) {
    return diffKeys<BlueprintPrincipalInputs>(olds, news, { replace: ["appId", "blueprintObjectId"], update: [] });
  },

  async create(inputs) {
    return step(
      RESOURCE,
      "create",
      async () => {
        const session = graphSession(inputs);
        await awaitReplica(session, blueprintPath(inputs.blueprintObjectId));
        const { object } = await createOrAdopt(session, {
          lookup: (graph) => findByAppId(graph, inputs.appId),
          create: (graph) => postOnce<GraphPrincipal>(graph, BLUEPRINT_PRINCIPALS, { appId: inputs.appId }),
        });
        return { id: object.id, outs: { ...inputs, principalId: object.id } };
      },
      hints,
    );
  },

  async read(id, props) {
    return step(RESOURCE, "read", async () => {
      const state = requireState(RESOURCE, props);
      const live = await getIfExists<GraphPrincipal>(graphSession(state), `${blueprintPrincipalPath(id)}?$select=id,appId`);
      if (live === undefined) return {};
      return { id, props: { ...state, appId: live.appId?.toLowerCase() ?? state.appId, principalId: live.id } };
    });
  },

  // Only the shared bookkeeping inputs can change in place; nothing to send to Graph.
  async update(_id, olds, news) {
    return { outs: { ...news, principalId: olds.principalId } };
  },

  async delete(id, props) {
    return step(RESOURCE, "delete", () => deleteIfExists(graphSession(props), blueprintPrincipalPath(id)));
  },
};

/** The blueprint's service principal in the tenant; agent identities cannot be created without it. */
export class BlueprintPrincipal extends pulumi.dynamic.Resource {
  declare readonly appId: pulumi.Output<string>;
  declare readonly principalId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<BlueprintPrincipalInputs>, opts?: pulumi.CustomResourceOptions) {
    super(blueprintPrincipalProvider, name, { ...args, principalId: undefined }, opts, "agent-user-kit", "BlueprintPrincipal");
  }
}
