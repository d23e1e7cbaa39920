/**
 * `agent-user-kit/testing`: Pulumi mocks for unit-testing a program that uses
 * AgentUserKit, with no engine, tenant or emulator. They answer the kit's
 * dynamic resources, its azuread resources and its two lookups with fixed
 * ids, and pass every other resource and call to the program's own mocks.
 */
import "./peer-check";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID } from "../lib/entra-rules";

/** The ids the mocks hand out, so a test can assert where each one went. */
export const MOCK_IDS = {
  tenantId: "00000000-0000-0000-0000-0000000000aa",
  blueprintObjectId: "00000000-0000-0000-0000-0000000000b1",
  blueprintAppId: "00000000-0000-0000-0000-0000000000b2",
  blueprintPrincipalId: "00000000-0000-0000-0000-0000000000b3",
  graphServicePrincipalId: "00000000-0000-0000-0000-0000000000c1",
  clientSecret: "mock-client-secret",
  /** An agent's identity id is this with its resource name: `agentIdentityId:{name}`. */
  agentIdentityId: "agentIdentityId",
  /** An agent user's id is this with its resource name: `agentUserId:{name}`. */
  agentUserId: "agentUserId",
  /** The id of the Graph app role a mocked lookup publishes is this with its value: `appRoleId:User.Read.All`. */
  appRoleId: "appRoleId",
  /** The scope id of the blueprint's exposed API. */
  blueprintScopeId: "00000000-0000-0000-0000-0000000000d1",
} as const;

/** The Graph app roles the mocked lookup of Microsoft Graph's principal publishes. */
const GRAPH_ROLES = ["User.Read.All", "Application.Read.All", "Directory.Read.All", "Mail.Send", "Chat.Create", "Group.Read.All"];

/** One resource the program registered, as the mocks saw it. */
export interface MockedResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

export interface AgentUserKitMockOptions {
  project?: string;
  stack?: string;
  /** Run as `pulumi preview` does (unknown outputs stay unknown); false by default. */
  preview?: boolean;
  /** The program's own mocks, for every resource and call that is not the kit's. */
  mocks?: pulumi.runtime.Mocks;
}

const DYNAMIC = "pulumi-nodejs:dynamic/agent-user-kit:";

/**
 * Installs the mocks (pulumi.runtime.setMocks) and returns the list the
 * registered resources are appended to. Call it before the program creates
 * its resources.
 */
export async function setAgentUserKitMocks(options: AgentUserKitMockOptions = {}): Promise<MockedResource[]> {
  const resources: MockedResource[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        resources.push({ type: args.type, name: args.name, inputs: args.inputs });
        const state = { ...args.inputs };
        switch (args.type) {
          case `${DYNAMIC}Blueprint`:
            return { id: MOCK_IDS.blueprintObjectId, state: { ...state, objectId: MOCK_IDS.blueprintObjectId, appId: MOCK_IDS.blueprintAppId } };
          case `${DYNAMIC}BlueprintPrincipal`:
            return { id: MOCK_IDS.blueprintPrincipalId, state: { ...state, principalId: MOCK_IDS.blueprintPrincipalId } };
          case `${DYNAMIC}AgentIdentity`:
            return { id: `${MOCK_IDS.agentIdentityId}:${args.name}`, state: { ...state, identityId: `${MOCK_IDS.agentIdentityId}:${args.name}` } };
          case `${DYNAMIC}AgentUser`:
            return { id: `${MOCK_IDS.agentUserId}:${args.name}`, state: { ...state, userId: `${MOCK_IDS.agentUserId}:${args.name}` } };
          case `${DYNAMIC}BlueprintApi`: {
            const uri = `api://${String(state.blueprintAppId)}`;
            return { id: `${String(state.blueprintAppId)}/${MOCK_IDS.blueprintScopeId}`, state: { ...state, identifierUri: uri, scopeId: MOCK_IDS.blueprintScopeId } };
          }
          case "azuread:index/applicationPassword:ApplicationPassword":
            return { id: `${args.name}-id`, state: { ...state, value: MOCK_IDS.clientSecret } };
          case "azuread:index/servicePrincipalDelegatedPermissionGrant:ServicePrincipalDelegatedPermissionGrant":
          case "azuread:index/applicationFederatedIdentityCredential:ApplicationFederatedIdentityCredential":
          case "azuread:index/applicationCertificate:ApplicationCertificate":
          case "azuread:index/appRoleAssignment:AppRoleAssignment":
            return { id: `${args.name}-id`, state };
          default:
            return options.mocks ? options.mocks.newResource(args) : { id: `${args.name}-id`, state };
        }
      },
      call: (args) => {
        if (args.token === "azuread:index/getClientConfig:getClientConfig") return { tenantId: MOCK_IDS.tenantId, clientId: "provisioner", objectId: "provisioner", id: MOCK_IDS.tenantId };
        if (args.token === "azuread:index/getServicePrincipal:getServicePrincipal" && args.inputs.clientId === MICROSOFT_GRAPH_APP_ID) {
          return {
            objectId: MOCK_IDS.graphServicePrincipalId,
            clientId: MICROSOFT_GRAPH_APP_ID,
            displayName: "Microsoft Graph",
            servicePrincipalNames: [MICROSOFT_GRAPH_APP_ID, "https://graph.microsoft.com"],
            appRoleIds: Object.fromEntries(GRAPH_ROLES.map((role) => [role, `${MOCK_IDS.appRoleId}:${role}`])),
          };
        }
        if (options.mocks) return options.mocks.call(args);
        throw new Error(`agent-user-kit/testing: no mock for the call ${args.token}; pass your own in options.mocks`);
      },
    },
    options.project ?? "project",
    options.stack ?? "stack",
    options.preview ?? false,
  );
  return resources;
}
