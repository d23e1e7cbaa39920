/*
 * The typed Agent ID URLs the providers call (Graph v1.0; every call sends
 * OData-Version: 4.0). Object URLs put the type cast after the key, as
 * Microsoft's API reference writes them; agent users put it before the key.
 */

import { UsageError } from "../../lib/errors";
import { pathSegment } from "../../lib/path-segment";

/** An object id from state or inputs, as one path segment; ".", ".." or a "/" is bad input, never a path. */
const id = (value: string) => pathSegment(value, (reason) => new UsageError(`the object id ${reason}`, "check the resource's state (pulumi refresh) or its inputs", "Graph object id"));

export const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
export const blueprintPath = (objectId: string) => `/v1.0/applications/${id(objectId)}/microsoft.graph.agentIdentityBlueprint`;

export const BLUEPRINT_PRINCIPALS = "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal";
export const blueprintPrincipalPath = (objectId: string) =>
  `/v1.0/servicePrincipals/${id(objectId)}/microsoft.graph.agentIdentityBlueprintPrincipal`;

export const AGENT_IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";
export const agentIdentityPath = (objectId: string) => `/v1.0/servicePrincipals/${id(objectId)}/microsoft.graph.agentIdentity`;

export const AGENT_USERS = "/v1.0/users/microsoft.graph.agentUser";
export const agentUserPath = (objectId: string) => `/v1.0/users/microsoft.graph.agentUser/${id(objectId)}`;
