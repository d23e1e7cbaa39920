import { Agent } from "undici";
import { AGENT_USER_FLOW } from "../../lib/token-flows";
import { TokenSource } from "../../lib/token-source";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";
import type { TokenClient } from "./workload";
import type { AgentPair } from "./tenant";

export interface BlueprintSecret {
  tenantId: string;
  blueprintAppId: string;
  secret: string;
}

/** A token source configured as `agent-user token` configures it, with its own undici Agent routed to the emulator. */
export function benchTokenSource(target: EmulatorTarget, blueprint: BlueprintSecret): { dispatcher: Agent; source: TokenSource } {
  const dispatcher = new Agent({ connect: emulatorConnector(target) });
  const source = new TokenSource({
    authorityUrl: AUTHORITY,
    tenantId: blueprint.tenantId,
    blueprintAppId: blueprint.blueprintAppId,
    credential: { kind: "secret", secret: blueprint.secret },
    http: { dispatcher },
  });
  return { dispatcher, source };
}

/** This project's runner (lib/token-source.ts: the cache in front of the hop chain), configured as `agent-user token` configures it. */
export class RunnerClient implements TokenClient {
  readonly name = "runner";
  readonly dispatcher: Agent;
  private readonly chain: TokenSource;

  constructor(target: EmulatorTarget, blueprint: BlueprintSecret) {
    ({ dispatcher: this.dispatcher, source: this.chain } = benchTokenSource(target, blueprint));
  }

  /** As the token provider asks the chain: its cache, else a mint. No async wrapper of its own (the peer's adapter has none either). */
  token(pair: AgentPair, resource: string): Promise<string> {
    const request = { agentIdentityId: pair.identity, agentUser: pair.user, resourceUrl: resource };
    const cached = this.chain.cached(AGENT_USER_FLOW, request);
    return cached ? Promise.resolve(cached.accessToken) : this.chain.mint(AGENT_USER_FLOW, request).then((r) => r.accessToken);
  }

  clear(): void {
    this.chain.clear();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
