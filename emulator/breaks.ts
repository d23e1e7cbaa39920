import { UsageError } from "../lib/errors";
import type { BrokenLink } from "./faults";
import { agentEntries } from "./seed";
import type { TenantStore } from "./store";

/**
 * `--faults break=LINK`: breaks one link of the seeded chain after the stack
 * outputs are taken, as a tenant drifts after `pulumi up`. Each applies to the
 * first blueprint and its first agent, the ones the top-level outputs describe.
 */

const DAY_MS = 86_400_000;

function firstChain(store: TenantStore) {
  const blueprint = store.applications("agentIdentityBlueprint")[0];
  if (!blueprint) throw new UsageError("break=: the tenant has no agent identity blueprint to break");
  for (const identity of store.agentIdentitiesOf(blueprint.appId)) {
    const user = store.agentUserOf(identity.id);
    if (user) return { blueprint, identity, user };
  }
  throw new UsageError("break=: the tenant's blueprint has no agent identity with an agent user to break");
}

export function breakLinks(store: TenantStore, links: readonly BrokenLink[]): void {
  const { blueprint, identity, user } = firstChain(store);
  const now = store.now();
  for (const link of links) {
    switch (link) {
      case "blueprint-secret-expired":
        // Ended yesterday: hop 1 with it is refused with AADSTS7000222.
        store.updateApplication(blueprint.id, {
          passwordCredentials: blueprint.passwordCredentials.map((p) => ({
            ...p,
            startDateTime: new Date(now - 366 * DAY_MS).toISOString(),
            endDateTime: new Date(now - DAY_MS).toISOString(),
          })),
        });
        break;
      case "grant-other-user": {
        // The grant names a person instead of the agent user: hop 3 finds no consent (AADSTS65001).
        const other = store.users("user")[0];
        if (!other) throw new UsageError("break=grant-other-user: the tenant has no other user to move the grant to");
        store.moveGrants(identity.id, user.id, other.id);
        break;
      }
      case "user-other-parent": {
        // Another identity of the same blueprint, without an agent user, becomes the user's parent.
        const other = agentEntries({
          identityId: store.newId(),
          userId: store.newId(),
          displayName: `${identity.displayName} (other)`,
          userPrincipalName: `other-${user.userPrincipalName}`,
          blueprintAppId: blueprint.appId,
          sponsors: identity.sponsors,
        }).identity;
        store.createServicePrincipal({ ...other, createdAt: 0 });
        store.updateUser(user.id, { identityParentId: other.id });
        break;
      }
      case "identity-disabled":
        store.updateServicePrincipal(identity.id, { accountEnabled: false });
        break;
      case "sponsor-deleted":
        for (const id of [...identity.sponsors]) store.deleteUser(id);
        break;
    }
  }
}
