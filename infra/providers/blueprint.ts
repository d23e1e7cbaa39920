import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import type { HintFor } from "./failure";
import { madeBy, odataString, BLUEPRINTS, blueprintPath } from "./graph-helpers";
import { ADOPTION_BASE_MAX, adoptionBase, adoptionTag, requireOwn } from "./adoption";
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
   * create, so a retried create adopts the blueprint instead of making a
   * second one. Display names are not unique; this tag is. Given as the
   * stack's base tag: check() adds a random nonce that the state then keeps
   * (adoption.ts), so no one can plant a blueprint carrying it first. Only a
   * blueprint the provisioner created is adopted by it.
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

function listByTag(graph: GraphClient, tag: string): Promise<GraphBlueprint[]> {
  return graph.list<GraphBlueprint>(`${BLUEPRINTS}?$filter=tags/any(t:t eq ${odataString(tag)})&${FOUND_SELECT}`, { agentId: true, shape: FOUND_SHAPE });
}

function onlyOne(found: readonly GraphBlueprint[], tag: string): GraphBlueprint | undefined {
  if (found.length > 1) throw new Error(`${found.length} blueprints carry the adoption tag ${tag} (${found.map((b) => b.id).join(", ")}); delete the extras in Entra`);
  return found[0];
}

/**
 * The blueprint carrying `tag` that the provisioner created; one another
 * application created is refused (adoption.ts): only the stack knows its
 * tag's nonce. Failing that, one the provisioner created with the tag's base
 * alone, before tags had a nonce: a create of an earlier version whose run
 * ended before Pulumi recorded it. Another application's blueprint with the
 * base tag is left alone: anyone could have written it, and it no longer
 * stands in the stack's way.
 */
export async function findByTag(graph: GraphClient, tag: string, provisionerAppId: string): Promise<GraphBlueprint | undefined> {
  const found = await listByTag(graph, tag);
  for (const blueprint of found) {
    await requireOwn(graph, { what: "agent identity blueprint", object: blueprint, objectPath: blueprintPath(blueprint.id), foundBy: `by this stack's adoption tag ${tag}` }, provisionerAppId);
  }
  const own = onlyOne(found, tag);
  const base = adoptionBase(tag);
  if (own || base === tag) return own;
  return onlyOne((await listByTag(graph, base)).filter((blueprint) => madeBy(blueprint, provisionerAppId)), base);
}

export const blueprintProvider = graphProvider<BlueprintInputs, BlueprintOutputs, GraphBlueprint>({
  resource: "agent identity blueprint",
  paths: { collection: BLUEPRINTS, object: (id) => blueprintPath(id) },
  check: (c, olds) => ({
    displayName: c.displayName("displayName"),
    sponsors: c.guidSet("sponsors", LIMITS.sponsors),
    // The state's tag is kept as it is; a new one is the base and a nonce (adoption.ts).
    adoptionTag: adoptionTag(c.text("adoptionTag", olds.adoptionTag === undefined ? ADOPTION_BASE_MAX : 256), olds.adoptionTag),
  }),
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
