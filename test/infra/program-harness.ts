import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";

/** Ids the mocks hand out, so tests can follow each one from the resource that made it to where it is used. */
export const IDS = {
  tenantId: "72f988bf-86f1-41af-91ab-2d7cd011db47",
  blueprintObjectId: "b1000000-0000-0000-0000-000000000001",
  blueprintAppId: "b2000000-0000-0000-0000-000000000002",
  blueprintPrincipalId: "b3000000-0000-0000-0000-000000000003",
  agentIdentityId: "a1000000-0000-0000-0000-000000000001",
  agentUserId: "a2000000-0000-0000-0000-000000000002",
  graphServicePrincipalId: "9a000000-0000-0000-0000-00000000000a",
  newIdentityPrincipalId: "c1000000-0000-0000-0000-000000000001",
  newIdentityClientId: "c2000000-0000-0000-0000-000000000002",
  existingIdentityClientId: "c3000000-0000-0000-0000-000000000003",
  generatedSecret: "generated-client-secret-value",
};

export const DYNAMIC = {
  blueprint: "pulumi-nodejs:dynamic/agent-user-kit:Blueprint",
  principal: "pulumi-nodejs:dynamic/agent-user-kit:BlueprintPrincipal",
  identity: "pulumi-nodejs:dynamic/agent-user-kit:AgentIdentity",
  user: "pulumi-nodejs:dynamic/agent-user-kit:AgentUser",
};

/** The dynamic resources only a stack with an opt-in feature has. */
export const OPT_IN_DYNAMIC = {
  blueprintApi: "pulumi-nodejs:dynamic/agent-user-kit:BlueprintApi",
};

export const AZURE = {
  password: "azuread:index/applicationPassword:ApplicationPassword",
  federated: "azuread:index/applicationFederatedIdentityCredential:ApplicationFederatedIdentityCredential",
  certificate: "azuread:index/applicationCertificate:ApplicationCertificate",
  grant: "azuread:index/servicePrincipalDelegatedPermissionGrant:ServicePrincipalDelegatedPermissionGrant",
  appRoleAssignment: "azuread:index/appRoleAssignment:AppRoleAssignment",
  userAssignedIdentity: "azure-native:managedidentity:UserAssignedIdentity",
};

/** What infra/stack.ts exports. */
export type Program = Record<string, pulumi.Output<unknown>>;

/**
 * Runs infra/stack.ts afresh and returns its exports: a program registers its
 * resources as it loads, so each stack configuration needs a new load. Only
 * the kit's modules load again. The Pulumi packages stay this file's copies:
 * with a copy of @pulumi/pulumi and @pulumi/azuread per run (each with its own
 * inspector session for the closure serializer), a test file of eight runs
 * grew its jest worker to 590 MB of heap, and the worker could not exit in the
 * time jest gives it ("A worker process has failed to exit gracefully").
 */
export function runStackProgram(): Program {
  let program: Program = {};
  jest.isolateModules(() => {
    jest.doMock("@pulumi/pulumi", () => pulumi);
    jest.doMock("@pulumi/azuread", () => azuread);
    program = jest.requireActual("../../infra/stack");
  });
  return program;
}

/** One resource registration as the engine would receive it. */
export interface Registration {
  type: string;
  name: string;
  urn: string;
  parent: string;
  dependencies: string[];
  inputs: Record<string, unknown>;
  /** Where the resource is aliased from: each old URN (as the mocks would have named it), and its parent's URN when the alias names one. */
  aliases: Alias[];
}

export interface Alias {
  urn: string;
  parent?: string;
}

export interface Lookup {
  token: string;
  inputs: Record<string, unknown>;
}

interface AliasSpec {
  getName(): string;
  getType(): string;
  getParenturn(): string;
  getNoparent(): boolean;
}
interface RegisterRequest {
  getType(): string;
  getName(): string;
  getParent(): string;
  getDependenciesList(): string[];
  getAliasesList(): Array<{ getUrn(): string; getSpec(): AliasSpec | undefined }>;
}
type RegisterCallback = (err: unknown, response?: { getUrn(): string }) => void;
interface MockMonitor {
  registerResource(req: RegisterRequest, callback: RegisterCallback): Promise<void>;
}

/** What each mocked provider answers: ids for the Graph objects, the generated secret, the identity's ids. */
function mockState(type: string, name: string, inputs: Record<string, unknown>): { id: string; state: Record<string, unknown> } {
  switch (type) {
    case DYNAMIC.blueprint:
      return { id: IDS.blueprintObjectId, state: { ...inputs, objectId: IDS.blueprintObjectId, appId: IDS.blueprintAppId } };
    case DYNAMIC.principal:
      return { id: IDS.blueprintPrincipalId, state: { ...inputs, principalId: IDS.blueprintPrincipalId } };
    case DYNAMIC.identity:
      return { id: IDS.agentIdentityId, state: { ...inputs, identityId: IDS.agentIdentityId } };
    case DYNAMIC.user:
      return { id: IDS.agentUserId, state: { ...inputs, userId: IDS.agentUserId } };
    case AZURE.password:
      return { id: "password-key-id", state: { ...inputs, value: IDS.generatedSecret } };
    case AZURE.userAssignedIdentity:
      return { id: "/subscriptions/x/identity", state: { ...inputs, principalId: IDS.newIdentityPrincipalId, clientId: IDS.newIdentityClientId } };
    case AZURE.grant:
      return { id: "grant-id", state: inputs };
    case OPT_IN_DYNAMIC.blueprintApi:
      return { id: `${String(inputs.blueprintAppId)}/scope-id`, state: { ...inputs, identifierUri: `api://${String(inputs.blueprintAppId)}`, scopeId: "scope-id" } };
    default:
      return { id: `${name}-id`, state: inputs };
  }
}

function mockLookup(token: string, inputs: Record<string, unknown>): Record<string, unknown> {
  if (token === "azuread:index/getClientConfig:getClientConfig") return { tenantId: IDS.tenantId, clientId: "p", objectId: "p", id: "p" };
  if (token === "azuread:index/getServicePrincipal:getServicePrincipal" && inputs.clientId === MICROSOFT_GRAPH_APP_ID) {
    return {
      objectId: IDS.graphServicePrincipalId,
      clientId: MICROSOFT_GRAPH_APP_ID,
      displayName: "Microsoft Graph",
      servicePrincipalNames: [MICROSOFT_GRAPH_APP_ID, "https://graph.microsoft.com"],
      appRoleIds: { "User.Read.All": "df021288-bdef-4463-88db-98f22de89214", "Mail.Send": "b633e1c5-b582-4048-a93e-9f11b44c7e96" },
    };
  }
  if (token === "azuread:index/getServicePrincipal:getServicePrincipal" && typeof inputs.objectId === "string") {
    return { objectId: inputs.objectId, clientId: IDS.existingIdentityClientId, servicePrincipalNames: [] };
  }
  throw new Error(`unexpected lookup ${token} ${JSON.stringify(inputs)}`);
}

/**
 * A URN as the mock monitor makes it: its type carries only the parent's own
 * type, not the engine's whole chain, which is how test/fixtures records them.
 */
function mockUrn(parent: string, type: string, name: string): string {
  const qualified = parent ? `${parent.split("::")[2]!.split("$").pop()}$${type}` : type;
  return `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${qualified}::${name}`;
}

/** Where a registration is aliased from: an alias spec names what differs from the resource (name, type, parent). */
function aliasesOf(req: RegisterRequest): Alias[] {
  return req.getAliasesList().map((alias) => {
    const spec = alias.getSpec();
    if (!spec) return { urn: alias.getUrn() };
    const parent = spec.getNoparent() ? "" : spec.getParenturn() || req.getParent();
    return { urn: mockUrn(parent, spec.getType() || req.getType(), spec.getName() || req.getName()), parent };
  });
}

/**
 * Installs Pulumi's mocks and records, for every registration, what the
 * engine would be told: type, name, parent, the URNs it depends on and
 * where it is aliased from.
 */
export async function installMocks(): Promise<{ registrations: Registration[]; lookups: Lookup[] }> {
  const registrations: Registration[] = [];
  const lookups: Lookup[] = [];
  const inputsByName = new Map<string, Record<string, unknown>>();
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        inputsByName.set(`${args.type}::${args.name}`, args.inputs);
        return mockState(args.type, args.name, args.inputs);
      },
      call: (args) => {
        lookups.push({ token: args.token, inputs: args.inputs });
        return mockLookup(args.token, args.inputs);
      },
    },
    "agent-user-kit",
    "test",
    false,
  );
  const monitor = pulumi.runtime.getMonitor() as unknown as MockMonitor;
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) =>
    register(req, (err, response) => {
      if (response) {
        registrations.push({
          type: req.getType(),
          name: req.getName(),
          urn: response.getUrn(),
          parent: req.getParent(),
          dependencies: req.getDependenciesList(),
          inputs: inputsByName.get(`${req.getType()}::${req.getName()}`) ?? {},
          aliases: aliasesOf(req),
        });
      }
      callback(err, response);
    });
  return { registrations, lookups };
}

/** The value inside an Output, once every resource it depends on is registered. */
export function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((value) => resolve(value)));
}

export function only(registrations: Registration[], type: string): Registration {
  const found = registrations.filter((r) => r.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0]!;
}

/**
 * The ConfigError's message of a stack configuration the program refuses,
 * checked to come before any resource is registered.
 */
export async function configFailure(config: Record<string, string>): Promise<string> {
  const { registrations } = await installMocks();
  pulumi.runtime.setAllConfig(config);
  let error: unknown;
  try {
    runStackProgram();
  } catch (err) {
    error = err;
  }
  expect(registrations).toEqual([]);
  expect(error).toMatchObject({ name: "ConfigError" });
  return (error as Error).message;
}
