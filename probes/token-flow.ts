import { resolve } from "node:path";
import { isGraphResource, isGuid, MICROSOFT_GRAPH_APP_ID, resourceKey, userAssertionLengthProblem } from "../lib/entra-rules";
import { UsageError } from "../lib/errors";
import { quoteValue } from "../lib/printable";
import type { AppRoleOutputs } from "../lib/stack-outputs";
import type { AgentUserAccessToken, AgentUserTokenProvider } from "../lib/token-provider";
import { readUserFile, USER_FILE_LIMITS } from "../lib/user-files";

/*
 * Which of the agent's three tokens `agent-user token` mints: the agent
 * user's (the default), the agent identity's own app token (`--as app`), or
 * a token for a person whose token the agent was given (`--on-behalf-of
 * FILE`), each through the library's method for it.
 */

export type CliFlow = "user" | "app" | "onBehalfOf";

/** What each flow's token is called in progress lines. */
export const FLOW_TOKENS: Record<CliFlow, string> = { user: "agent user tokens", app: "agent app tokens", onBehalfOf: "on-behalf-of tokens" };

export interface FlowFlags {
  as?: string;
  "on-behalf-of"?: string;
  "agent-user"?: string;
}

/** The flow the flags ask for; a combination that names two is a usage error. */
export function flowOf(flags: FlowFlags): CliFlow {
  const as = flags.as ?? "user";
  if (as !== "user" && as !== "app") throw new UsageError(`--as takes user (the agent user's token, the default) or app (the agent identity's own app token), got ${quoteValue(as)}`);
  if (flags["on-behalf-of"] !== undefined) {
    if (flags.as !== undefined) throw new UsageError("--on-behalf-of mints a token for the person whose token it names; leave out --as", "give --as app or --on-behalf-of FILE, not both");
    return "onBehalfOf";
  }
  if (as === "app" && flags["agent-user"] !== undefined) throw new UsageError("--as app mints the agent identity's own token, which has no agent user; leave out --agent-user");
  return as;
}

/**
 * The person's access token the agent was given, read from the file
 * `--on-behalf-of` names: a credential file (at most 1 MiB, named by its
 * flag and never by its path, trimmed) that holds one token no longer than
 * any Entra issues, checked here so that the error names the flag.
 */
export function readUserAssertion(file: string, cwd: string): string {
  const text = readUserFile("the file --on-behalf-of names", resolve(cwd, file), {
    hint: "--on-behalf-of takes the path of a file that holds a person's access token for the blueprint, not the token itself",
    maxBytes: USER_FILE_LIMITS.credential,
  }).trim();
  const alone = "write the person's access token alone into the file";
  if (!/^[\x21-\x7e]+$/.test(text)) throw new UsageError("the file --on-behalf-of names does not hold one token: it is empty, or holds spaces or line breaks", alone);
  const tooLong = userAssertionLengthProblem(text.length);
  if (tooLong) throw new UsageError(`the file --on-behalf-of names holds ${tooLong}`, alone);
  return text;
}

/**
 * The app roles an app token for `resource` must hold, as the outputs
 * declare them for the agent: the roles of the entry whose resource API is
 * the one asked for (Graph by its appId, its URL or the Graph URL in use).
 */
export function declaredRoles(appRoles: readonly AppRoleOutputs[] | undefined, resource: string, graphUrl: string): string[] | undefined {
  const entry = (appRoles ?? []).find((e) =>
    e.resource.toLowerCase() === MICROSOFT_GRAPH_APP_ID ? isGraphResource(resource, graphUrl) : isGuid(e.resource) && resourceKey(resource) === e.resource.toLowerCase(),
  );
  return entry && entry.roles.length > 0 ? [...entry.roles] : undefined;
}

/** One agent's token of `flow`, through the provider's method for it. */
export function mintFlow(
  provider: AgentUserTokenProvider,
  flow: CliFlow,
  agent: { agentIdentityId: string; agentUser?: string; roles?: string[]; userAssertion?: string },
): Promise<AgentUserAccessToken> {
  const { agentIdentityId } = agent;
  if (flow === "app") return provider.getAppToken(agent.roles ? { agentIdentityId, roles: agent.roles } : { agentIdentityId });
  if (flow === "onBehalfOf") return provider.getOnBehalfOfToken({ agentIdentityId, userAssertion: agent.userAssertion! });
  return provider.getToken({ agentIdentityId, agentUser: agent.agentUser });
}
