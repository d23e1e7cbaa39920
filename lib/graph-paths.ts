/*
 * The typed Agent ID URLs the providers, doctor and preflight call (Graph v1.0; every call sends
 * OData-Version: 4.0). Object URLs put the type cast after the key, as
 * Microsoft's API reference writes them; agent users put it before the key.
 * The order of the calls is in docs/protocol.md, "Provisioning through Graph".
 */

import { UsageError } from "./errors";
import { pathSegment } from "./path-segment";

/** An object id from state or inputs, as one path segment; ".", ".." or a "/" is bad input, never a path. */
const id = (value: string) => pathSegment(value, (reason) => new UsageError(`the object id ${reason}`, "check the resource's state (pulumi refresh) or its inputs", "Graph object id"));

/** POST (learn.microsoft.com/graph/api/agentidentityblueprint-post), GET with $filter (learn.microsoft.com/graph/api/agentidentityblueprint-list). */
export const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";
/** GET, PATCH, DELETE (soft: restorable 30 days) (learn.microsoft.com/graph/api/agentidentityblueprint-get, -update, -delete). */
export const blueprintPath = (objectId: string) => `/v1.0/applications/${id(objectId)}/microsoft.graph.agentIdentityBlueprint`;

/** POST (learn.microsoft.com/graph/api/agentidentityblueprintprincipal-post), GET with $filter=appId (learn.microsoft.com/graph/api/agentidentityblueprintprincipal-list). */
export const BLUEPRINT_PRINCIPALS = "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal";
/** GET, DELETE (soft: restorable 30 days) (learn.microsoft.com/graph/api/agentidentityblueprintprincipal-get, -delete). */
export const blueprintPrincipalPath = (objectId: string) =>
  `/v1.0/servicePrincipals/${id(objectId)}/microsoft.graph.agentIdentityBlueprintPrincipal`;

/** POST (learn.microsoft.com/graph/api/agentidentity-post), GET with $filter (learn.microsoft.com/graph/api/agentidentity-list). */
export const AGENT_IDENTITIES = "/v1.0/servicePrincipals/microsoft.graph.agentIdentity";
/** GET, PATCH, DELETE (soft: restorable 30 days) (learn.microsoft.com/graph/api/agentidentity-get, -update, -delete); /sponsors (learn.microsoft.com/graph/api/agentidentity-list-sponsors, -post-sponsors, -delete-sponsors). */
export const agentIdentityPath = (objectId: string) => `/v1.0/servicePrincipals/${id(objectId)}/microsoft.graph.agentIdentity`;

/** POST (learn.microsoft.com/graph/api/agentuser-post), GET with $filter=userPrincipalName (learn.microsoft.com/graph/api/agentuser-list). */
export const AGENT_USERS = "/v1.0/users/microsoft.graph.agentUser";
/** GET, PATCH, DELETE (learn.microsoft.com/graph/api/agentuser-get, -update, -delete); the cast comes before the key, as agentuser-get writes it. */
export const agentUserPath = (objectId: string) => `/v1.0/users/microsoft.graph.agentUser/${id(objectId)}`;

/**
 * GET, PATCH of an application by its appId, the alternate key (learn.microsoft.com/graph/api/application-get,
 * -update: `/applications(appId='{appId}')`): a blueprint's exposed API, as create-blueprint sets it.
 */
export const applicationByAppIdPath = (appId: string) => `/v1.0/applications(appId='${id(appId).replace(/'/g, "''")}')`;
