import { HopChain } from "./hop-chain";
import type { ProbeSettings } from "./settings";

/** The hop chain for resolved probe settings. */
export function hopChainFor(settings: ProbeSettings): HopChain {
  return new HopChain({
    authorityUrl: settings.authorityUrl,
    tenantId: settings.tenantId,
    blueprintAppId: settings.blueprintAppId,
    credential: settings.credential,
    http: { timeoutMs: settings.timeoutMs },
    replicationWindowMs: settings.replicationWindowMs,
  });
}
