import type { MsalTokenProvider } from "@microsoft/agents-hosting";
import { bundledFetchAgent, restoreFetchDispatcher, setFetchDispatcher, type FetchDispatcher } from "./fetch-agent";
import type { BlueprintSecret } from "./runner-client";
import type { AgentPair } from "./tenant";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";
import type { TokenClient } from "./workload";

/** Resolved by Node from this package's node_modules; a pinned dev dependency. */
export const PEER_MODULE = "@microsoft/agents-hosting";

/**
 * The peer: `@microsoft/agents-hosting`'s MsalTokenProvider.getAgenticUserToken,
 * with a client-secret blueprint, as an Agents SDK host configures it. Its
 * traffic (hop 1 and hop 3 through `fetch`, hop 2 through MSAL, whose network
 * client is also `fetch`) goes to https://login.microsoftonline.com; the
 * process-wide fetch dispatcher connects that name to the emulator.
 */
export class PeerClient implements TokenClient {
  readonly name = "peer";
  private constructor(
    private readonly Provider: typeof MsalTokenProvider,
    private readonly provider: MsalTokenProvider,
    private readonly tenantId: string,
    readonly dispatcher: FetchDispatcher,
  ) {}

  static async create(target: EmulatorTarget, blueprint: BlueprintSecret): Promise<PeerClient> {
    const dispatcher = bundledFetchAgent({ connect: emulatorConnector(target) });
    setFetchDispatcher(dispatcher);
    const { MsalTokenProvider: Provider } = await import(PEER_MODULE);
    const provider = new Provider({
      clientId: blueprint.blueprintAppId,
      clientSecret: blueprint.secret,
      tenantId: blueprint.tenantId,
      authority: AUTHORITY,
    });
    return new PeerClient(Provider, provider, blueprint.tenantId, dispatcher);
  }

  token(pair: AgentPair, resource: string): Promise<string> {
    return this.provider.getAgenticUserToken(this.tenantId, pair.identity, pair.user, [`${resource}/.default`]);
  }

  /** The peer's own reset: its process-wide token caches and its confidential-client map. */
  clear(): void {
    this.Provider.clearSharedCaches();
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    restoreFetchDispatcher(this.dispatcher);
  }
}
