import * as azuread from "@pulumi/azuread";
import * as pulumi from "@pulumi/pulumi";
import { didYouMean } from "../../lib/did-you-mean";
import { UsageError } from "../../lib/errors";
import { MICROSOFT_GRAPH_APP_ID } from "../../lib/entra-rules";
import type { AppRoleOutputs } from "../../lib/stack-outputs";

export const APP_ROLES_TYPE = "agent-user-kit:index:AppRoles";

export interface AgentAppRolesArgs {
  /** Object id of the agent identity: the principal each role is assigned to. */
  agentIdentityId: pulumi.Input<string>;
  /** The roles per resource API (by appId). The list decides the resources, so it is plain. */
  appRoles: readonly AppRoleOutputs[];
}

/**
 * The application permissions (app roles) an agent identity holds, which the
 * app-only flow's token carries in `roles`: one azuread AppRoleAssignment per
 * role, made on the resource's side (appRoleAssignedTo, the call Graph's
 * agent identity page recommends), and removed with the agent. The resource's
 * service principal is looked up, never managed: destroy leaves it alone.
 */
export class AgentAppRoles extends pulumi.ComponentResource {
  /** The assignments by `{resource appId}/{role}`. */
  readonly assignments: Readonly<Record<string, azuread.AppRoleAssignment>>;
  /** The roles held, per resource, once every assignment exists: the `appRoles` output. */
  readonly appRoles: pulumi.Output<AppRoleOutputs[]>;

  constructor(name: string, args: AgentAppRolesArgs, opts?: pulumi.ComponentResourceOptions) {
    super(APP_ROLES_TYPE, name, {}, opts);
    const assignments: Record<string, azuread.AppRoleAssignment> = {};
    for (const { resource, roles } of args.appRoles) {
      const principal = azuread.getServicePrincipalOutput({ clientId: resource }, { parent: this });
      const label = resource === MICROSOFT_GRAPH_APP_ID ? "graph" : resource;
      for (const role of roles) {
        assignments[`${resource}/${role}`] = new azuread.AppRoleAssignment(
          `${name}-${label}-${role}`,
          { principalObjectId: args.agentIdentityId, resourceObjectId: principal.objectId, appRoleId: principal.apply((sp) => appRoleId(sp, role, resource)) },
          { parent: this, deleteBeforeReplace: true },
        );
      }
    }
    this.assignments = assignments;
    const all = Object.values(assignments).map((a) => a.id);
    this.appRoles = pulumi.all(all).apply(() => args.appRoles.map((entry) => ({ resource: entry.resource, roles: [...entry.roles] })));
    this.registerOutputs({ appRoles: this.appRoles });
  }
}

/** The id of the role of this value the resource publishes, or a problem naming the ones it does publish. */
export function appRoleId(sp: azuread.GetServicePrincipalResult, role: string, resource: string): string {
  const id = sp.appRoleIds[role];
  if (id !== undefined) return id;
  const published = Object.keys(sp.appRoleIds);
  const guess = didYouMean(role, published);
  throw new UsageError(
    `the resource ${resource} (${sp.displayName}) publishes no app role ${JSON.stringify(role)}${guess ? ` (did you mean ${guess}?)` : ""}`,
    published.length > 0 ? `its app roles: ${published.sort().join(", ")}` : "it publishes no app roles: an agent can hold none on it",
    "app roles",
  );
}
