/**
 * The Pulumi packages are optional peer dependencies: a token-only consumer
 * never installs them. The Pulumi entry checks for them before loading
 * anything that needs them, so a missing one is named with the command that
 * installs it instead of surfacing as a bare MODULE_NOT_FOUND from deep inside.
 */
export const PULUMI_PEERS = ["@pulumi/pulumi", "@pulumi/azuread"] as const;

/** The peers `resolve` cannot find; `resolve` throws MODULE_NOT_FOUND for a missing one, as require.resolve does. */
export function missingPeers(resolve: (id: string) => string = require.resolve): string[] {
  return PULUMI_PEERS.filter((id) => {
    try {
      resolve(id);
      return false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw err;
      return true;
    }
  });
}

/** Throws one error naming every missing peer and the npm command that adds them. */
export function requirePeers(resolve?: (id: string) => string): void {
  const missing = missingPeers(resolve);
  if (missing.length === 0) return;
  const error = new Error(
    `agent-user-kit/pulumi needs ${missing.join(" and ")}, which ${missing.length === 1 ? "is" : "are"} not installed. ` +
      `Fix: npm install ${missing.join(" ")} (they are optional peer dependencies, needed only by Pulumi programs)`,
  );
  error.name = "MissingPeerDependencyError";
  throw error;
}
