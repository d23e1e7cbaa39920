/**
 * The catalogue of the emulated Graph's errors: each entry pairs a code with
 * the status real Graph answers it with, and carries the headers clients act
 * on (WWW-Authenticate on a 401, Retry-After on a 429 or 503).
 */
import { GRAPH_ERRORS, type GraphErrorSpec } from "../../emulator/graph/errors";

/** The statuses Microsoft Graph answers each code with. */
const GRAPH_STATUSES: Record<string, number[]> = {
  BadRequest: [400],
  Request_BadRequest: [400, 405],
  Request_UnsupportedQuery: [400],
  // The Agent ID error codes page gives no statuses: 400 for a refused body, 403 for a caller that may not create.
  AgentIdentity_AgentBlueprintPrincipalDoesNotExist: [400],
  AgentIdentity_IncompatibleParentType: [400],
  AgentBlueprintPrincipal_RequireAgentBlueprint: [400],
  Error_AgentIdentitiesCreatingAgentIdentitiesNotAllowed: [403],
  Error_AgentBlueprintCannotCreateAssociatedIdentity: [403],
  Error_AgentIdentitySelfCreateRequired: [403],
  InvalidAuthenticationToken: [401],
  Authorization_RequestDenied: [403],
  accessDenied: [403],
  Request_ResourceNotFound: [404],
  itemNotFound: [404],
  Request_MultipleObjectsWithSameKeyValue: [409],
  RequestEntityTooLarge: [413],
  // An enabled scope or role removed or changed (microsoft-365-agents-toolkit#9420 quotes Graph's answer).
  CannotDeleteOrUpdateEnabledEntitlement: [400],
  TooManyRequests: [429],
  serviceNotAvailable: [503],
  // concepts/json-batching: a request whose dependency failed "fails with status code 424 (Failed Dependency)".
  FailedDependency: [424],
};

/** Arguments for the entries that take lists; every other entry reads its first argument as a 403's code or as text. */
const LISTS: Partial<Record<keyof typeof GRAPH_ERRORS, unknown[]>> = {
  scopesMissing: ["Authorization_RequestDenied", "list agent users", ["Directory.Read.All"]],
  rolesMissing: ["Authorization_RequestDenied", "list agent users", ["Directory.Read.All"]],
  notReached: ["delete an agent identity", ["AgentIdentity.CreateAsManager"], ["AgentIdentity.DeleteRestore.All"]],
  upnDomainUnverified: [["contoso.example"]],
  untypedCreateWithoutODataVersion: ["microsoft.graph.agentIdentityBlueprint", "/v1.0/applications"],
};

const entries = Object.entries(GRAPH_ERRORS).map(([name, make]) => {
  const args = LISTS[name as keyof typeof GRAPH_ERRORS] ?? ["Authorization_RequestDenied", 7];
  return { name, spec: (make as (...a: unknown[]) => GraphErrorSpec)(...args) };
});

describe("Graph's error catalogue", () => {
  it("answers each code with a status real Graph uses for it", () => {
    const wrong = entries.filter(({ spec }) => !GRAPH_STATUSES[spec.code]?.includes(spec.status)).map(({ name, spec }) => `${name}: ${spec.status} ${spec.code}`);
    expect(wrong).toEqual([]);
  });

  it("names the authority on every 401 and the wait on every 429 and 503", () => {
    for (const { name, spec } of entries) {
      const headers = Object.keys(spec.headers ?? {});
      const expected = spec.status === 401 ? ["www-authenticate"] : [429, 503].includes(spec.status) ? ["retry-after"] : [];
      expect({ name, headers }).toEqual({ name, headers: expected });
    }
    expect(GRAPH_ERRORS.throttled(3).headers).toEqual({ "retry-after": "3" });
  });
});
