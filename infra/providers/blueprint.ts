import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import { configureProvisioner } from "../provisioner-credential";
import { requireState, step, type HintFor } from "./failure";
import { createOrAdopt, deleteIfExists, graphSession, odataString, postOnce } from "./graph-ops";
import { checkInputs, diffKeys, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { BLUEPRINTS, blueprintPath } from "./paths";
import { readSponsoredObject, sponsorBinds, updateSponsoredObject } from "./sponsors";

/** Inputs of an agent identity blueprint (application subtype microsoft.graph.agentIdentityBlueprint). */
export interface BlueprintInputs extends GraphResourceInputs {
  displayName: string;
  /** User object ids; at least one (Graph refuses a blueprint without a sponsor). */
  sponsors: string[];
  /**
   * A tag written on the blueprint at creation and looked up before every
   * create, so a retried or re-run create adopts the blueprint instead of
   * making a second one. Display names are not unique; this tag is.
   */
  adoptionTag: string;
}

export interface BlueprintOutputs extends BlueprintInputs {
  /** Object id of the application (also the resource id). */
  objectId: string;
  /** The blueprint's appId: `client_id` of hop 1. */
  appId: string;
}

interface GraphBlueprint {
  id: string;
  appId: string;
  displayName: string;
  tags?: string[];
}

const RESOURCE = "agent identity blueprint";
const SELECT = "$select=id,appId,displayName,tags";

const hints: HintFor = (err) =>
  err.status === 400 ? "check that every sponsor is an existing user object id, and that the display name is at most 256 characters" : undefined;

function outputs(inputs: BlueprintInputs, live: GraphBlueprint, sponsors: string[]): BlueprintOutputs {
  return { ...inputs, displayName: live.displayName, sponsors, objectId: live.id, appId: live.appId };
}

async function findByTag(graph: GraphClient, tag: string): Promise<GraphBlueprint | undefined> {
  const found = await graph.list<GraphBlueprint>(`${BLUEPRINTS}?$filter=tags/any(t:t eq ${odataString(tag)})&${SELECT}`, { agentId: true });
  if (found.length > 1) {
    throw new Error(`${found.length} blueprints carry the adoption tag ${tag} (${found.map((b) => b.id).join(", ")}); delete the extras in Entra`);
  }
  return found[0];
}

export const blueprintProvider: pulumi.dynamic.ResourceProvider<BlueprintInputs, BlueprintOutputs> = {
  // An arrow, so the serializer captures the module (as require(...) once installed), not the function's text.
  configure: (request) => configureProvisioner(request),

  async check(_olds, news) {
    return checkInputs(news, (c) => ({
      displayName: c.text("displayName", 256),
      sponsors: c.guidSet("sponsors", 100),
      adoptionTag: c.text("adoptionTag", 256),
    }));
  },

  async diff(_id, olds, news) {
    return diffKeys<BlueprintInputs>(olds, news, { replace: ["adoptionTag"], update: ["displayName", "sponsors"] });
  },

  async create(inputs) {
    return step(
      RESOURCE,
      "create",
      async () => {
        const session = graphSession(inputs);
        const { object, adopted } = await createOrAdopt(session, {
          lookup: (graph) => findByTag(graph, inputs.adoptionTag),
          create: (graph) =>
            postOnce<GraphBlueprint>(graph, BLUEPRINTS, {
              displayName: inputs.displayName,
              tags: [inputs.adoptionTag],
              "sponsors@odata.bind": sponsorBinds(inputs.graphUrl, inputs.sponsors),
            }),
        });
        // An adopted blueprint was made by an earlier run and may have drifted since; bring it to the inputs.
        // It may also be this run's own, whose answer was lost moments ago: reads of it may still meet replication lag.
        if (adopted) await updateSponsoredObject(session, blueprintPath(object.id), object.displayName, inputs, session.consistencyWindowMs);
        return { id: object.id, outs: { ...inputs, objectId: object.id, appId: object.appId } };
      },
      hints,
    );
  },

  async read(id, props) {
    return step(RESOURCE, "read", async () => {
      const state = requireState(RESOURCE, props);
      const found = await readSponsoredObject<GraphBlueprint>(graphSession(state), blueprintPath(id), SELECT);
      return found === undefined ? {} : { id, props: outputs(state, found.live, found.sponsors) };
    });
  },

  async update(id, olds, news) {
    return step(
      RESOURCE,
      "update",
      async () => {
        await updateSponsoredObject(graphSession(news), blueprintPath(id), olds.displayName, news);
        return { outs: { ...news, objectId: olds.objectId, appId: olds.appId } };
      },
      hints,
    );
  },

  async delete(id, props) {
    return step(RESOURCE, "delete", () => deleteIfExists(graphSession(props), blueprintPath(id)));
  },
};

/** An agent identity blueprint managed through Graph by blueprintProvider. */
export class Blueprint extends pulumi.dynamic.Resource {
  declare readonly displayName: pulumi.Output<string>;
  declare readonly sponsors: pulumi.Output<string[]>;
  declare readonly objectId: pulumi.Output<string>;
  declare readonly appId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<BlueprintInputs>, opts?: pulumi.CustomResourceOptions) {
    super(blueprintProvider, name, { ...args, objectId: undefined, appId: undefined }, opts, "agent-user-kit", "Blueprint");
  }
}
