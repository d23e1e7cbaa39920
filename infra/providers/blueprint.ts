import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import type { HintFor } from "./failure";
import { odataString, BLUEPRINTS, blueprintPath } from "./graph-helpers";
import { requireOwn } from "./adoption";
import { graphProvider } from "./graph-provider";
import { LIMITS, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { registeredArgs } from "./resource-args";
import { readSponsoredObject, sponsorBinds, updateSponsoredObject } from "./sponsors";

/** Inputs of an agent identity blueprint (application subtype microsoft.graph.agentIdentityBlueprint). */
export interface BlueprintInputs extends GraphResourceInputs {
  displayName: string;
  /** User object ids; at least one (Graph refuses a blueprint without a sponsor). */
  sponsors: string[];
  /**
   * A tag written on the blueprint at creation and looked up before every
   * create, so a retried or re-run create adopts the blueprint instead of
   * making a second one. Display names are not unique; this tag is. Only a
   * blueprint the provisioner created is adopted by it: the tag is
   * predictable, and anyone who may create a blueprint may write it.
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
  createdByAppId?: string | null;
}

const SELECT = "$select=id,appId,displayName,tags";
const SHAPE: Shape = { id: "string", appId: "string", displayName: "string?", tags: "string[]?" };
const FOUND_SELECT = `${SELECT},createdByAppId`;
const FOUND_SHAPE: Shape = { ...SHAPE, createdByAppId: "string?" };

const hints: HintFor = (err) =>
  err.status === 400 ? `check that every sponsor is an existing user object id, and that the display name is at most ${LIMITS.displayName} characters` : undefined;

/** The blueprint carrying `tag` that the provisioner created; one another application created is refused (adoption.ts). */
export async function findByTag(graph: GraphClient, tag: string, provisionerAppId: string): Promise<GraphBlueprint | undefined> {
  const found = await graph.list<GraphBlueprint>(`${BLUEPRINTS}?$filter=tags/any(t:t eq ${odataString(tag)})&${FOUND_SELECT}`, { agentId: true, shape: FOUND_SHAPE });
  for (const blueprint of found) {
    await requireOwn(graph, { what: "agent identity blueprint", object: blueprint, objectPath: blueprintPath(blueprint.id), foundBy: `by this stack's adoption tag ${tag}` }, provisionerAppId);
  }
  if (found.length > 1) {
    throw new Error(`${found.length} blueprints carry the adoption tag ${tag} (${found.map((b) => b.id).join(", ")}); delete the extras in Entra`);
  }
  return found[0];
}

export const blueprintProvider = graphProvider<BlueprintInputs, BlueprintOutputs, GraphBlueprint>({
  resource: "agent identity blueprint",
  paths: { collection: BLUEPRINTS, object: (id) => blueprintPath(id) },
  check: (c) => ({ displayName: c.displayName("displayName"), sponsors: c.guidSet("sponsors", LIMITS.sponsors), adoptionTag: c.text("adoptionTag", 256) }),
  diff: { replace: ["adoptionTag"], update: ["displayName", "sponsors"] },
  hints,
  lookup: (graph, inputs, provisionerAppId) => findByTag(graph, inputs.adoptionTag, provisionerAppId),
  body: (inputs) => ({ displayName: inputs.displayName, tags: [inputs.adoptionTag], "sponsors@odata.bind": sponsorBinds(inputs.graphUrl, inputs.sponsors) }),
  adopt: (session, path, object, inputs) => updateSponsoredObject(session, path, object.displayName, inputs, session.consistencyWindowMs),
  outputs: (inputs, object) => ({ ...inputs, objectId: object.id, appId: object.appId }),

  async read(session, path, state) {
    const found = await readSponsoredObject<GraphBlueprint>(session, path, SELECT, SHAPE);
    return found && { ...state, displayName: found.live.displayName, sponsors: found.sponsors, objectId: found.live.id, appId: found.live.appId };
  },

  async update(session, path, olds, news) {
    await updateSponsoredObject(session, path, olds.displayName, news);
    return { ...news, objectId: olds.objectId, appId: olds.appId };
  },
});

/** An agent identity blueprint managed through Graph by blueprintProvider. */
export class Blueprint extends pulumi.dynamic.Resource {
  declare readonly displayName: pulumi.Output<string>;
  declare readonly sponsors: pulumi.Output<string[]>;
  declare readonly objectId: pulumi.Output<string>;
  declare readonly appId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<BlueprintInputs>, opts?: pulumi.CustomResourceOptions) {
    super(blueprintProvider, name, { ...registeredArgs(args), objectId: undefined, appId: undefined }, opts, "agent-user-kit", "Blueprint");
  }
}
