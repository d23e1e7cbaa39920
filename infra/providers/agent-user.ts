import * as pulumi from "@pulumi/pulumi";
import type { GraphClient } from "../../lib/graph-client";
import type { Shape } from "../../lib/graph-shape";
import type { HintFor } from "./failure";
import { requireOwn } from "./adoption";
import { CREATION_SELECT, getIfExists, odataString, AGENT_USERS, agentIdentityPath, agentUserPath, type Creation } from "./graph-helpers";
import type { GraphSession } from "./graph-ops";
import { graphProvider } from "./graph-provider";
import { LIMITS, type GraphResourceInputs, type ResourceArgs } from "./inputs";
import { registeredArgs } from "./resource-args";

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

const SELECT = "$select=id,displayName,mailNickname,userPrincipalName,identityParentId";
const CREATION: Shape = { id: "string", displayName: "string?", createdByAppId: "string?" };
const SHAPE: Shape = { id: "string", displayName: "string?", mailNickname: "string?", userPrincipalName: "string?", identityParentId: "string?" };
const UPDATABLE = ["displayName", "mailNickname", "userPrincipalName"] as const;

const hints: HintFor = (err) =>
  err.status === 400
    ? "an agent identity holds at most one agent user, the UPN must be unused and on a verified domain of the tenant, and identityParentId must be an agent identity's object id"
    : undefined;

/**
 * The agent user holding the UPN, adopted when it belongs to this agent
 * identity and that identity is the provisioner's. An agent user records no
 * creator (the agentUser page documents no createdByAppId): its parent
 * agent identity, whose createdByAppId Graph does record, stands for it, the
 * strictest link Graph offers. A user under another identity, or under one
 * another application created, is refused.
 */
export async function findByUpn(graph: GraphClient, inputs: AgentUserInputs, provisionerAppId: string): Promise<GraphAgentUser | undefined> {
  const [found] = await graph.list<GraphAgentUser>(`${AGENT_USERS}?$filter=userPrincipalName eq ${odataString(inputs.userPrincipalName)}&${SELECT}`, {
    agentId: true,
    shape: SHAPE,
  });
  if (!found) return undefined;
  if (found.identityParentId?.toLowerCase() !== inputs.identityParentId) {
    throw new Error(
      `the UPN ${inputs.userPrincipalName} already belongs to agent user ${found.id} of agent identity ${found.identityParentId}; choose another agentUserName or delete that user`,
    );
  }
  const parentPath = agentIdentityPath(inputs.identityParentId);
  // Not found reads as no creator: refused, never adopted on a guess.
  const parent = (await getIfExists<Creation>(graph, `${parentPath}?$select=${CREATION_SELECT}`, { shape: CREATION })) ?? { id: inputs.identityParentId };
  const foundBy = `as the parent of agent user ${found.id}, which holds the UPN ${inputs.userPrincipalName}`;
  await requireOwn(graph, { what: "agent identity", object: parent, objectPath: parentPath, foundBy }, provisionerAppId);
  return found;
}

export const agentUserProvider = graphProvider<AgentUserInputs, AgentUserOutputs, GraphAgentUser>({
  resource: "agent user",
  paths: { collection: AGENT_USERS, object: (id) => agentUserPath(id), parent: (inputs) => agentIdentityPath(inputs.identityParentId) },
  check: (c) => ({
    displayName: c.displayName("displayName"),
    mailNickname: c.text("mailNickname", LIMITS.mailNickname),
    userPrincipalName: c.upn("userPrincipalName"),
    identityParentId: c.guid("identityParentId"),
  }),
  // Replacing deletes first: the new user reuses the UPN, which two users cannot hold at once.
  diff: { replace: ["identityParentId"], update: [...UPDATABLE], deleteBeforeReplace: true },
  hints,
  lookup: findByUpn,
  body: (inputs) => ({ accountEnabled: true, ...pick(inputs, UPDATABLE), identityParentId: inputs.identityParentId }),
  adopt: (session, path, object, inputs) => patch(session, path, object, inputs),
  outputs: (inputs, object) => ({ ...inputs, userId: object.id }),

  async read(session, path, state) {
    const live = await getIfExists<GraphAgentUser>(session.graph, `${path}?${SELECT}`, { shape: SHAPE });
    return (
      live && {
        ...state,
        displayName: live.displayName,
        mailNickname: live.mailNickname,
        userPrincipalName: live.userPrincipalName,
        identityParentId: live.identityParentId?.toLowerCase() ?? state.identityParentId,
        userId: live.id,
      }
    );
  },

  async update(session, path, olds, news) {
    await patch(session, path, olds, news);
    return { ...news, userId: olds.userId };
  },
});

type Updatable = (typeof UPDATABLE)[number];

function pick(inputs: AgentUserInputs, keys: readonly Updatable[]): Partial<Record<Updatable, string>> {
  return Object.fromEntries(keys.map((key) => [key, inputs[key]]));
}

/** PATCHes the keys whose value in `current` differs from the inputs; nothing when none does. */
async function patch(session: GraphSession, path: string, current: Partial<Record<Updatable, unknown>>, inputs: AgentUserInputs): Promise<void> {
  const keys = UPDATABLE.filter((key) => current[key] !== inputs[key]);
  if (keys.length === 0) return;
  await session.graph.call("PATCH", path, { agentId: true, body: { "@odata.type": "#microsoft.graph.agentUser", ...pick(inputs, keys) } });
}

/** The agent user of an agent identity: the user the delegated token of hop 3 is for. */
export class AgentUserResource extends pulumi.dynamic.Resource {
  declare readonly userPrincipalName: pulumi.Output<string>;
  declare readonly userId: pulumi.Output<string>;

  constructor(name: string, args: ResourceArgs<AgentUserInputs>, opts?: pulumi.CustomResourceOptions) {
    super(agentUserProvider, name, { ...registeredArgs(args), userId: undefined }, opts, "agent-user-kit", "AgentUser");
  }
}
