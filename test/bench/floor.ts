import { Agent, request } from "undici";
import { JWT_BEARER } from "../../lib/client-assertion";
import { tokenEndpoint } from "../../lib/token-client";
import type { BlueprintSecret } from "./runner-client";
import { timed, type Timing } from "./stats";
import type { AgentPair } from "./tenant";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";

const EXCHANGE_SCOPE = "api://AzureADTokenExchange/.default";
const HEADERS = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };

/**
 * The floor: the same three (or one) token requests as bare undici POSTs
 * with bodies built once beforehand, no parsing, no caching, no checks: what
 * the emulator and the transport cost on their own.
 */
export class Floor {
  readonly dispatcher: Agent;
  private readonly url: string;
  private bodies?: { hop1: string; hop2: string; hop3: string; hop3Second: string };

  constructor(target: EmulatorTarget, private readonly blueprint: BlueprintSecret) {
    this.dispatcher = new Agent({ connect: emulatorConnector(target) });
    this.url = tokenEndpoint(AUTHORITY, blueprint.tenantId);
  }

  /** Mints T1 and T2 once so the hop-2 and hop-3 bodies can be built ahead (both last 65 minutes). */
  async prepare(pair: AgentPair, first: string, second: string): Promise<void> {
    const form = (p: Record<string, string>) => new URLSearchParams(p).toString();
    const hop1 = form({ grant_type: "client_credentials", client_id: this.blueprint.blueprintAppId, scope: EXCHANGE_SCOPE, fmi_path: pair.identity, client_secret: this.blueprint.secret });
    const t1 = await this.accessToken(hop1);
    const hop2 = form({ grant_type: "client_credentials", client_id: pair.identity, scope: EXCHANGE_SCOPE, client_assertion_type: JWT_BEARER, client_assertion: t1 });
    const t2 = await this.accessToken(hop2);
    const hop3 = (resource: string) =>
      form({ grant_type: "user_fic", client_id: pair.identity, scope: `${resource}/.default`, client_assertion_type: JWT_BEARER, client_assertion: t1, user_federated_identity_credential: t2, user_id: pair.user });
    this.bodies = { hop1, hop2, hop3: hop3(first), hop3Second: hop3(second) };
    await this.accessToken(this.bodies.hop3);
    await this.accessToken(this.bodies.hop3Second);
  }

  /** Three POSTs in sequence, as a cold chain sends them. */
  cold(): Promise<Timing> {
    const b = this.prepared();
    return timed(async () => {
      await this.post(b.hop1);
      await this.post(b.hop2);
      await this.post(b.hop3);
    });
  }

  /**
   * One POST, hop 3 for the second resource, timed right after an untimed
   * three-request chain for the first: the same sequence the clients' warm
   * figure runs (a token for the first resource, then the timed one).
   */
  async warm(): Promise<Timing> {
    const b = this.prepared();
    await this.post(b.hop1);
    await this.post(b.hop2);
    await this.post(b.hop3);
    return timed(() => this.post(b.hop3Second));
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private prepared() {
    if (!this.bodies) throw new Error("floor: prepare() first");
    return this.bodies;
  }

  private async post(body: string): Promise<string> {
    const res = await request(this.url, { method: "POST", headers: HEADERS, body, dispatcher: this.dispatcher });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`floor: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    return text;
  }

  private async accessToken(body: string): Promise<string> {
    return (JSON.parse(await this.post(body)) as { access_token: string }).access_token;
  }
}
