import { Agent } from "undici";
import { AgentUserTokenProvider } from "../../lib/token-provider";
import type { BlueprintSecret } from "./runner-client";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";
import type { TokenClient } from "./workload";
import type { AgentPair } from "./tenant";

/** The runtime entry's AgentUserTokenProvider (on top of the runner's HopChain), as an agent embeds it. */
export class ProviderClient implements TokenClient {
  readonly name = "provider";
  readonly dispatcher: Agent;
  private readonly provider: AgentUserTokenProvider;

  constructor(target: EmulatorTarget, blueprint: BlueprintSecret) {
    this.dispatcher = new Agent({ connect: emulatorConnector(target) });
    this.provider = new AgentUserTokenProvider({
      authorityUrl: AUTHORITY,
      tenantId: blueprint.tenantId,
      blueprintAppId: blueprint.blueprintAppId,
      credential: { kind: "secret", secret: blueprint.secret },
      dispatcher: this.dispatcher,
    });
  }

  token(pair: AgentPair, resource: string): Promise<string> {
    return this.provider.getToken({ agentIdentityId: pair.identity, agentUser: pair.user, resource }).then((r) => r.token);
  }

  clear(): void {
    this.provider.clear();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
