import { Agent } from "undici";
import { HopChain } from "../../lib/hop-chain";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";
import type { TokenClient } from "./workload";
import type { AgentPair } from "./tenant";

export interface BlueprintSecret {
  tenantId: string;
  blueprintAppId: string;
  secret: string;
}

/** This project's runner (lib/hop-chain.ts), configured as `agent-user token` configures it. */
export class RunnerClient implements TokenClient {
  readonly name = "runner";
  readonly dispatcher: Agent;
  private readonly chain: HopChain;

  constructor(target: EmulatorTarget, blueprint: BlueprintSecret) {
    this.dispatcher = new Agent({ connect: emulatorConnector(target) });
    this.chain = new HopChain({
      authorityUrl: AUTHORITY,
      tenantId: blueprint.tenantId,
      blueprintAppId: blueprint.blueprintAppId,
      credential: { kind: "secret", secret: blueprint.secret },
      http: { dispatcher: this.dispatcher },
    });
  }

  /** As the token provider asks the chain: its cache, else a mint. No async wrapper of its own (the peer's adapter has none either). */
  token(pair: AgentPair, resource: string): Promise<string> {
    const request = { agentIdentityId: pair.identity, agentUser: pair.user, resourceUrl: resource };
    const cached = this.chain.cachedAgentUserToken(request);
    return cached ? Promise.resolve(cached.accessToken) : this.chain.mintAgentUserToken(request).then((r) => r.accessToken);
  }

  clear(): void {
    this.chain.clear();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
