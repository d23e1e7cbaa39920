/*
 * The typed Agent ID URLs the providers call (Graph v1.0; every call sends
 * OData-Version: 4.0). Object URLs put the type cast after the key, as
 * Microsoft's API reference writes them; agent users put it before the key.
 */

const id = (value: string) => encodeURIComponent(value);

export const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
export const blueprintPath = (objectId: string) => `/v1.0/applications/${id(objectId)}/microsoft.graph.agentIdentityBlueprint`;

export const BLUEPRINT_PRINCIPALS = "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal";
export const blueprintPrincipalPath = (objectId: string) =>
  `/v1.0/servicePrincipals/${id(objectId)}/microsoft.graph.agentIdentityBlueprintPrincipal`;

export const AGENT_IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";
export const agentIdentityPath = (objectId: string) => `/v1.0/servicePrincipals/${id(objectId)}/microsoft.graph.agentIdentity`;

export const AGENT_USERS = "/v1.0/users/microsoft.graph.agentUser";
export const agentUserPath = (objectId: string) => `/v1.0/users/microsoft.graph.agentUser/${id(objectId)}`;
