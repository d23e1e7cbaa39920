import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import { configureProvisioner } from "../provisioner-credential";
import { requireState, step, type HintFor } from "./failure";
import { awaitReplica, createOrAdopt, deleteIfExists, getIfExists, graphSession, odataString, postOnce, type GraphSession } from "./graph-ops";
import { checkInputs, diffKeys, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { AGENT_USERS, agentIdentityPath, agentUserPath } from "./paths";

/** Inputs of an agent user (user subtype microsoft.graph.agentUser). */
export interface AgentUserInputs extends GraphResourceInputs {
  displayName: string;
  mailNickname: string;
  /** Unique in the tenant: what a retried create adopts an existing agent user by. */
  userPrincipalName: string;
  /** Object id of the agent identity the user belongs to (one agent user per identity). */
  identityParentId: string;
}

export interface AgentUserOutputs extends AgentUserInputs {
  /** Object id: `user_id` of hop 3, `principalId` of the grant. */
  userId: string;
}

interface GraphAgentUser {
  id: string;
  displayName: string;
  mailNickname: string;
  userPrincipalName: string;
  identityParentId: string;
}

const RESOURCE = "agent user";
const SELECT = "$select=id,displayName,mailNickname,userPrincipalName,identityParentId";
const UPDATABLE = ["displayName", "mailNickname", "userPrincipalName"] as const;

const hints: HintFor = (err) =>
  err.status === 400
    ? "an agent identity holds at most one agent user, the UPN must be unused and on a verified domain of the tenant, and identityParentId must be an agent identity's object id"
    : undefined;

function outputs(inputs: AgentUserInputs, live: GraphAgentUser): AgentUserOutputs {
  return {
    ...inputs,
    displayName: live.displayName,
    mailNickname: live.mailNickname,
    userPrincipalName: live.userPrincipalName,
    identityParentId: live.identityParentId?.toLowerCase() ?? inputs.identityParentId,
    userId: live.id,
  };
}

async function findByUpn(graph: GraphClient, inputs: AgentUserInputs): Promise<GraphAgentUser | undefined> {
  const [found] = await graph.list<GraphAgentUser>(`${AGENT_USERS}?$filter=userPrincipalName eq ${odataString(inputs.userPrincipalName)}&${SELECT}`, {
    agentId: true,
  });
  if (found && found.identityParentId?.toLowerCase() !== inputs.identityParentId) {
    throw new Error(
      `the UPN ${inputs.userPrincipalName} already belongs to agent user ${found.id} of agent identity ${found.identityParentId}; choose another agentUserName or delete that user`,
    );
  }
  return found;
}

export const agentUserProvider: pulumi.dynamic.ResourceProvider<AgentUserInputs, AgentUserOutputs> = {
  // An arrow, so the serializer captures the module (as require(...) once installed), not the function's text.
  configure: (request) => configureProvisioner(request),

  async check(_olds, news) {
    return checkInputs(news, (c) => ({
      displayName: c.text("displayName", 256),
      mailNickname: c.text("mailNickname", 64),
      userPrincipalName: c.upn("userPrincipalName"),
      identityParentId: c.guid("identityParentId"),
    }));
  },

  // Replacing deletes first: the new user reuses the UPN, which two users cannot hold at once.
  async diff(_id, olds, news) {
    return diffKeys<AgentUserInputs>(olds, news, { replace: ["identityParentId"], update: [...UPDATABLE], deleteBeforeReplace: true });
  },

  async create(inputs) {
    return step(
      RESOURCE,
      "create",
      async () => {
        const session = graphSession(inputs);
        await awaitReplica(session, agentIdentityPath(inputs.identityParentId));
        const { object, adopted } = await createOrAdopt(session, {
          lookup: (graph) => findByUpn(graph, inputs),
          create: (graph) =>
            postOnce<GraphAgentUser>(graph, AGENT_USERS, {
              accountEnabled: true,
              displayName: inputs.displayName,
              mailNickname: inputs.mailNickname,
              userPrincipalName: inputs.userPrincipalName,
              identityParentId: inputs.identityParentId,
            }),
        });
        // An adopted user was made by an earlier run and may have drifted since; bring it to the inputs.
        const drift = adopted ? UPDATABLE.filter((key) => object[key] !== inputs[key]) : [];
        if (drift.length > 0) await patch(session, object.id, inputs, drift);
        return { id: object.id, outs: { ...inputs, userId: object.id } };
      },
      hints,
    );
  },

  async read(id, props) {
    return step(RESOURCE, "read", async () => {
      const state = requireState(RESOURCE, props);
      const live = await getIfExists<GraphAgentUser>(graphSession(state), `${agentUserPath(id)}?${SELECT}`);
      return live === undefined ? {} : { id, props: outputs(state, live) };
    });
  },

  async update(id, olds, news) {
    return step(
      RESOURCE,
      "update",
      async () => {
        const changed = UPDATABLE.filter((key) => olds[key] !== news[key]);
        if (changed.length > 0) await patch(graphSession(news), id, news, changed);
        return { outs: { ...news, userId: olds.userId } };
      },
      hints,
    );
  },

  async delete(id, props) {
    return step(RESOURCE, "delete", () => deleteIfExists(graphSession(props), agentUserPath(id)));
  },
};

async function patch(session: GraphSession, id: string, inputs: AgentUserInputs, keys: ReadonlyArray<(typeof UPDATABLE)[number]>): Promise<void> {
  const body: Record<string, unknown> = { "@odata.type": "#microsoft.graph.agentUser" };
  for (const key of keys) body[key] = inputs[key];
  await session.graph.call("PATCH", agentUserPath(id), { agentId: true, body });
}

/** The agent user of an agent identity: the user the delegated token of hop 3 is for. */
export class AgentUser extends pulumi.dynamic.Resource {
  declare readonly userPrincipalName: pulumi.Output<string>;
  declare readonly userId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<AgentUserInputs>, opts?: pulumi.CustomResourceOptions) {
    super(agentUserProvider, name, { ...args, userId: undefined }, opts, "agent-user-kit", "AgentUser");
  }
}
