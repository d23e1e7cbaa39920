import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import { configureProvisioner } from "../provisioner-credential";
import { requireState, step, type HintFor } from "./failure";
import { awaitReplica, createOrAdopt, deleteIfExists, graphSession, odataString, postOnce } from "./graph-ops";
import { checkInputs, diffKeys, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { AGENT_IDENTITIES, agentIdentityPath, blueprintPrincipalPath } from "./paths";
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
}

const RESOURCE = "agent identity";
const SELECT = "$select=id,displayName,agentIdentityBlueprintId";

const hints: HintFor = (err) =>
  err.status === 400
    ? "check that the blueprint principal exists (it is not created automatically), that blueprintAppId is the blueprint's appId, and that every sponsor is a user object id"
    : undefined;

function outputs(inputs: AgentIdentityInputs, live: GraphAgentIdentity, sponsors: string[]): AgentIdentityOutputs {
  return { ...inputs, displayName: live.displayName, blueprintAppId: live.agentIdentityBlueprintId?.toLowerCase() ?? inputs.blueprintAppId, sponsors, identityId: live.id };
}

async function findByName(graph: GraphClient, inputs: AgentIdentityInputs): Promise<GraphAgentIdentity | undefined> {
  const named = await graph.list<GraphAgentIdentity>(`${AGENT_IDENTITIES}?$filter=displayName eq ${odataString(inputs.displayName)}&${SELECT}`, {
    agentId: true,
  });
  const mine = named.filter((identity) => identity.agentIdentityBlueprintId?.toLowerCase() === inputs.blueprintAppId);
  if (mine.length > 1) {
    throw new Error(
      `${mine.length} agent identities of blueprint ${inputs.blueprintAppId} are named ${JSON.stringify(inputs.displayName)} (${mine.map((i) => i.id).join(", ")}); delete the extras in Entra or rename this one`,
    );
  }
  return mine[0];
}

export const agentIdentityProvider: pulumi.dynamic.ResourceProvider<AgentIdentityInputs, AgentIdentityOutputs> = {
  // An arrow, so the serializer captures the module (as require(...) once installed), not the function's text.
  configure: (request) => configureProvisioner(request),

  async check(_olds, news) {
    return checkInputs(news, (c) => ({
      displayName: c.text("displayName", 256),
      blueprintAppId: c.guid("blueprintAppId"),
      blueprintPrincipalId: c.guid("blueprintPrincipalId"),
      sponsors: c.guidSet("sponsors", 100),
    }));
  },

  // Replacing deletes first: a new identity with the same name and blueprint must never adopt the outgoing one.
  async diff(_id, olds, news) {
    return diffKeys<AgentIdentityInputs>(olds, news, {
      replace: ["blueprintAppId", "blueprintPrincipalId"],
      update: ["displayName", "sponsors"],
      deleteBeforeReplace: true,
    });
  },

  async create(inputs) {
    return step(
      RESOURCE,
      "create",
      async () => {
        const session = graphSession(inputs);
        await awaitReplica(session, blueprintPrincipalPath(inputs.blueprintPrincipalId));
        const { object, adopted } = await createOrAdopt(session, {
          lookup: (graph) => findByName(graph, inputs),
          create: (graph) =>
            postOnce<GraphAgentIdentity>(graph, AGENT_IDENTITIES, {
              displayName: inputs.displayName,
              agentIdentityBlueprintId: inputs.blueprintAppId,
              "sponsors@odata.bind": sponsorBinds(inputs.graphUrl, inputs.sponsors),
            }),
        });
        // An adopted identity was made by an earlier run (its sponsors may have changed since), or by this run's
        // POST whose answer was lost (so it may still be replicating).
        if (adopted) await syncSponsors(session, inputs.graphUrl, agentIdentityPath(object.id), inputs.sponsors, session.consistencyWindowMs);
        return { id: object.id, outs: { ...inputs, identityId: object.id } };
      },
      hints,
    );
  },

  async read(id, props) {
    return step(RESOURCE, "read", async () => {
      const state = requireState(RESOURCE, props);
      const found = await readSponsoredObject<GraphAgentIdentity>(graphSession(state), agentIdentityPath(id), SELECT);
      return found === undefined ? {} : { id, props: outputs(state, found.live, found.sponsors) };
    });
  },

  async update(id, olds, news) {
    return step(
      RESOURCE,
      "update",
      async () => {
        await updateSponsoredObject(graphSession(news), agentIdentityPath(id), olds.displayName, news);
        return { outs: { ...news, identityId: olds.identityId } };
      },
      hints,
    );
  },

  async delete(id, props) {
    return step(RESOURCE, "delete", () => deleteIfExists(graphSession(props), agentIdentityPath(id)));
  },
};

/** An agent identity made from a blueprint; its object id is the client id of hops 2 and 3. */
export class AgentIdentity extends pulumi.dynamic.Resource {
  declare readonly displayName: pulumi.Output<string>;
  declare readonly sponsors: pulumi.Output<string[]>;
  declare readonly identityId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<AgentIdentityInputs>, opts?: pulumi.CustomResourceOptions) {
    super(agentIdentityProvider, name, { ...args, identityId: undefined }, opts, "agent-user-kit", "AgentIdentity");
  }
}
