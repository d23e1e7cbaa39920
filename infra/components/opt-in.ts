import * as pulumi from "@pulumi/pulumi";
import type { KitConfig } from "../config";
import type { AppRoleOutputs } from "../../lib/stack-outputs";
import type { ProvisioningSettings } from "../providers/inputs";
import { BlueprintApiResource } from "../providers/blueprint-api";
import type { AgentIdentityBlueprint } from "./blueprint";
import { AgentAppRoles } from "./app-roles";
import { OnBehalfOfConsent } from "./consent";

/*
 * The kit's opt-in resources, each made only for a stack that asks for it:
 * an agent's app roles (the app-only flow's `roles`), the blueprint's exposed
 * API and an agent's consent to act for people (the on-behalf-of flow).
 */

type Pick = <T>(read: (config: KitConfig) => T) => pulumi.Output<T>;

/** One agent's opt-in resources; each absent unless its configuration asks for it. */
export interface AgentOptIns {
  appRoles?: AgentAppRoles;
  onBehalfOf?: OnBehalfOfConsent;
}

/** The opt-in values of one agent's outputs; each key present only with its resource. */
export interface AgentOptInOutputs {
  /** Only for an agent with `appRoles`: the app roles its agent identity holds, per resource API. */
  appRoles?: pulumi.Output<AppRoleOutputs[]>;
  /** Only for an agent with `onBehalfOfScopes`: the id of its on-behalf-of consent (an AllPrincipals grant). */
  onBehalfOfGrantId?: pulumi.Output<string>;
  /** Only for an agent with `onBehalfOfScopes`: the consented scopes, space-separated. */
  onBehalfOfScopes?: pulumi.Output<string>;
}

/** The opt-in outputs of the kit's whole stack: the blueprint's exposed API. */
export interface KitOptInOutputs {
  /** Only with `onBehalfOfScope`: the blueprint's identifier URI, a person's token's audience for the agent. */
  blueprintIdentifierUri?: pulumi.Output<string>;
  /** Only with `onBehalfOfScope`: the scope the blueprint exposes (a person's token asks for `{blueprintIdentifierUri}/{it}`). */
  blueprintScope?: pulumi.Output<string>;
}

/** What the agent at `index` opts into, as its layout says; named `{prefix}-app-roles` and `{prefix}-obo-consent`. */
export function agentOptIns(
  kit: pulumi.ComponentResource,
  prefix: string,
  feature: { appRoles: readonly AppRoleOutputs[]; onBehalfOf: boolean },
  agentIdentityId: pulumi.Output<string>,
  read: { pick: Pick; index: number },
): AgentOptIns {
  const optIns: AgentOptIns = {};
  if (feature.appRoles.length > 0) optIns.appRoles = new AgentAppRoles(`${prefix}-app-roles`, { agentIdentityId, appRoles: feature.appRoles }, { parent: kit });
  if (feature.onBehalfOf) {
    optIns.onBehalfOf = new OnBehalfOfConsent(
      `${prefix}-obo-consent`,
      { resourceAppId: read.pick((c) => c.resourceAppId), agentIdentityId, scopes: read.pick((c) => c.agents[read.index]!.onBehalfOfScopes) },
      { parent: kit },
    );
  }
  return optIns;
}

export function agentOptInOutputs({ appRoles, onBehalfOf }: AgentOptIns): AgentOptInOutputs {
  return {
    ...(appRoles ? { appRoles: appRoles.appRoles } : {}),
    ...(onBehalfOf ? { onBehalfOfGrantId: onBehalfOf.grantId, onBehalfOfScopes: onBehalfOf.scopes } : {}),
  };
}

/**
 * The blueprint's exposed API, `{name}-blueprint-api`, when the kit is given
 * `onBehalfOfScope`: the identifier URI `api://{appId}` and that delegated
 * scope, pre-authorized for the clients of `onBehalfOfClients`.
 */
export function exposedApi(kit: pulumi.ComponentResource, name: string, blueprint: AgentIdentityBlueprint, settings: ProvisioningSettings, pick: Pick): BlueprintApiResource {
  return new BlueprintApiResource(
    `${name}-blueprint-api`,
    {
      ...settings,
      blueprintAppId: blueprint.appId,
      blueprintObjectId: blueprint.objectId,
      scope: pick((c) => c.onBehalfOf?.scope ?? ""),
      preAuthorizedClients: pick((c) => c.onBehalfOf?.clients ?? []),
    },
    { parent: kit },
  );
}

export function kitOptInOutputs(api: BlueprintApiResource | undefined): KitOptInOutputs {
  return api ? { blueprintIdentifierUri: api.identifierUri, blueprintScope: api.scope } : {};
}
