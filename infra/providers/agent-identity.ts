import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import type { HintFor } from "./failure";
import { odataString, AGENT_IDENTITIES, agentIdentityPath, blueprintPrincipalPath } from "./graph-helpers";
import { requireOwn } from "./adoption";
import { graphProvider } from "./graph-provider";
import { LIMITS, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { registeredArgs } from "./resource-args";
import { readSponsoredObject, sponsorBinds, syncSponsors, updateSponsoredObject } from "./sponsors";

/** Inputs of an agent identity (service principal subtype microsoft.graph.agentIdentity). */
export interface AgentIdentityInputs extends GraphResourceInputs {
  /** Display name; with blueprintAppId, what a retried create adopts an existing identity by. */
  displayName: string;
  /** appId of the blueprint the identity is made from. */
  blueprintAppId: string;
  /** Object id of the blueprint principal: the create waits until it is readable, since Graph refuses an identity without it. */
  blueprintPrincipalId: string;
  /** User object ids; at least one. */
  sponsors: string[];
}

export interface AgentIdentityOutputs extends AgentIdentityInputs {
  /** Object id: `fmi_path` of hop 1, `client_id` of hops 2 and 3, `clientId` of the grant. */
  identityId: string;
}

interface GraphAgentIdentity {
  id: string;
  displayName: string;
  agentIdentityBlueprintId: string;
  createdByAppId?: string | null;
}

const SELECT = "$select=id,displayName,agentIdentityBlueprintId";
const SHAPE: Shape = { id: "string", displayName: "string?", agentIdentityBlueprintId: "string?" };
const FOUND_SHAPE: Shape = { ...SHAPE, createdByAppId: "string?" };

const hints: HintFor = (err) =>
  err.status === 400
    ? "check that the blueprint principal exists (it is not created automatically), that blueprintAppId is the blueprint's appId, and that every sponsor is a user object id"
    : undefined;

/** The agent identity of this name and blueprint, if the provisioner created it; another application's is refused (adoption.ts). */
async function findByName(graph: GraphClient, inputs: AgentIdentityInputs, provisionerAppId: string): Promise<GraphAgentIdentity | undefined> {
  const named = await graph.list<GraphAgentIdentity>(`${AGENT_IDENTITIES}?$filter=displayName eq ${odataString(inputs.displayName)}&${SELECT},createdByAppId`, {
    agentId: true,
    shape: FOUND_SHAPE,
  });
  const mine = named.filter((identity) => identity.agentIdentityBlueprintId?.toLowerCase() === inputs.blueprintAppId);
  for (const identity of mine) {
    const foundBy = `by its name and blueprint (${JSON.stringify(inputs.displayName)} of ${inputs.blueprintAppId})`;
    await requireOwn(graph, { what: "agent identity", object: identity, objectPath: agentIdentityPath(identity.id), foundBy }, provisionerAppId);
  }
  if (mine.length > 1) {
    throw new Error(
      `${mine.length} agent identities of blueprint ${inputs.blueprintAppId} are named ${JSON.stringify(inputs.displayName)} (${mine.map((i) => i.id).join(", ")}); delete the extras in Entra or rename this one`,
    );
  }
  return mine[0];
}

export const agentIdentityProvider = graphProvider<AgentIdentityInputs, AgentIdentityOutputs, GraphAgentIdentity>({
  resource: "agent identity",
  paths: { collection: AGENT_IDENTITIES, object: (id) => agentIdentityPath(id), parent: (inputs) => blueprintPrincipalPath(inputs.blueprintPrincipalId) },
  check: (c) => ({
    displayName: c.displayName("displayName"),
    blueprintAppId: c.guid("blueprintAppId"),
    blueprintPrincipalId: c.guid("blueprintPrincipalId"),
    sponsors: c.guidSet("sponsors", LIMITS.sponsors),
  }),
  // Replacing deletes first: a new identity with the same name and blueprint must never adopt the outgoing one.
  diff: { replace: ["blueprintAppId", "blueprintPrincipalId"], update: ["displayName", "sponsors"], deleteBeforeReplace: true },
  hints,
  lookup: findByName,
  body: (inputs) => ({
    displayName: inputs.displayName,
    agentIdentityBlueprintId: inputs.blueprintAppId,
    "sponsors@odata.bind": sponsorBinds(inputs.graphUrl, inputs.sponsors),
  }),
  // Its name and blueprint are what adopted it; its sponsors may have changed since.
  adopt: (session, path, _object, inputs) => syncSponsors(session, inputs.graphUrl, path, inputs.sponsors, session.consistencyWindowMs),
  outputs: (inputs, object) => ({ ...inputs, identityId: object.id }),

  async read(session, path, state) {
    const found = await readSponsoredObject<GraphAgentIdentity>(session, path, SELECT, SHAPE);
    if (found === undefined) return undefined;
    const { live, sponsors } = found;
    return { ...state, displayName: live.displayName, blueprintAppId: live.agentIdentityBlueprintId?.toLowerCase() ?? state.blueprintAppId, sponsors, identityId: live.id };
  },

  async update(session, path, olds, news) {
    await updateSponsoredObject(session, path, olds.displayName, news);
    return { ...news, identityId: olds.identityId };
  },
});

/** An agent identity made from a blueprint; its object id is the client id of hops 2 and 3. */
export class AgentIdentityResource extends pulumi.dynamic.Resource {
  declare readonly displayName: pulumi.Output<string>;
  declare readonly sponsors: pulumi.Output<string[]>;
  declare readonly identityId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<AgentIdentityInputs>, opts?: pulumi.CustomResourceOptions) {
    super(agentIdentityProvider, name, { ...registeredArgs(args), identityId: undefined }, opts, "agent-user-kit", "AgentIdentity");
  }
}
