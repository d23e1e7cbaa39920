import type { AccountInfo, ConfidentialClientApplication } from "@azure/msal-node";
import { bundledFetchAgent, restoreFetchDispatcher, setFetchDispatcher, type FetchDispatcher } from "./fetch-agent";
import type { BlueprintSecret } from "./runner-client";
import type { AgentPair } from "./tenant";
import { AUTHORITY, emulatorConnector, type EmulatorTarget } from "./transport";
import type { TokenClient } from "./workload";

/** Resolved by Node from this package's node_modules; a pinned dev dependency. */
export const MSAL_MODULE = "@azure/msal-node";

const EXCHANGE_SCOPE = "api://AzureADTokenExchange/.default";

/** What hop 3 left for the silent call: MSAL's account, and the scopes its cache entry holds. */
interface UserEntry {
  account: AccountInfo;
  scopes: string[];
}

/**
 * The second peer: MSAL for Node 7's own agent user APIs, as its documentation
 * shows them. The blueprint's application mints T1 with
 * `acquireTokenByClientCredential({ fmiPath })`; one application per agent
 * identity, whose client assertion is that T1, mints T2 with
 * `acquireTokenByClientCredential` and the user token with
 * `acquireTokenByUserFederatedIdentityCredential`, and serves it again with
 * `acquireTokenSilent`. MSAL keeps every token in its applications' caches.
 * Its `fetch` goes through the process-wide dispatcher to the emulator, under
 * login.microsoftonline.com's name, whose metadata MSAL carries built in, so it
 * fetches no discovery document (as the other peer).
 *
 * acquireTokenSilent asks for the scopes hop 3's answer listed (its granted
 * permissions): asked for `{resource}/.default` MSAL's cache finds no entry
 * and it would spend the refresh token, which the emulator does not redeem.
 */
/**
 * The applications MSAL mints an agent identity's tokens with: the
 * blueprint's, which mints T1 (`acquireTokenByClientCredential({ fmiPath })`),
 * and one per agent identity whose client assertion is that T1. MSAL keeps
 * every token in these applications' caches; `clear()` drops them.
 */
export class MsalAgentApps {
  private blueprint: ConfidentialClientApplication | undefined;
  private identities = new Map<string, ConfidentialClientApplication>();

  constructor(
    private readonly Cca: typeof ConfidentialClientApplication,
    private readonly secret: BlueprintSecret,
  ) {}

  /** MSAL's ConfidentialClientApplication, loaded from the pinned dev dependency. */
  static async load(secret: BlueprintSecret): Promise<MsalAgentApps> {
    const { ConfidentialClientApplication: Cca } = (await import(MSAL_MODULE)) as typeof import("@azure/msal-node");
    return new MsalAgentApps(Cca, secret);
  }

  private get authority(): string {
    return `${AUTHORITY}/${this.secret.tenantId}`;
  }

  private async t1(identity: string): Promise<string> {
    this.blueprint ??= new this.Cca({ auth: { clientId: this.secret.blueprintAppId, clientSecret: this.secret.secret, authority: this.authority } });
    const r = await this.blueprint.acquireTokenByClientCredential({ scopes: [EXCHANGE_SCOPE], fmiPath: identity });
    if (!r) throw new Error("msal: hop 1 returned no token");
    return r.accessToken;
  }

  /** The agent identity's application: its client assertion is T1, minted (or taken from MSAL's cache) for each request. */
  identity(identity: string): ConfidentialClientApplication {
    let app = this.identities.get(identity);
    if (!app) {
      app = new this.Cca({ auth: { clientId: identity, authority: this.authority, clientAssertion: () => this.t1(identity) } });
      this.identities.set(identity, app);
    }
    return app;
  }

  /** New applications: MSAL's caches live in them. */
  clear(): void {
    this.blueprint = undefined;
    this.identities.clear();
  }
}

export class MsalPeerClient implements TokenClient {
  readonly name = "msal";
  private users = new Map<string, UserEntry>();

  private constructor(
    private readonly apps: MsalAgentApps,
    readonly dispatcher: FetchDispatcher,
  ) {}

  static async create(target: EmulatorTarget, blueprint: BlueprintSecret): Promise<MsalPeerClient> {
    const dispatcher = bundledFetchAgent({ connect: emulatorConnector(target) });
    setFetchDispatcher(dispatcher);
    return new MsalPeerClient(await MsalAgentApps.load(blueprint), dispatcher);
  }

  async token(pair: AgentPair, resource: string): Promise<string> {
    const key = `${pair.identity} ${pair.user} ${resource}`;
    const app = this.apps.identity(pair.identity);
    const cached = this.users.get(key);
    if (cached) return (await app.acquireTokenSilent({ account: cached.account, scopes: cached.scopes })).accessToken;
    const t2 = await app.acquireTokenByClientCredential({ scopes: [EXCHANGE_SCOPE] });
    if (!t2) throw new Error("msal peer: hop 2 returned no token");
    const r = await app.acquireTokenByUserFederatedIdentityCredential({ scopes: [`${resource}/.default`], assertion: t2.accessToken, userObjectId: pair.user });
    if (!r?.account) throw new Error("msal peer: hop 3 returned no account");
    this.users.set(key, { account: r.account, scopes: r.scopes });
    return r.accessToken;
  }

  /** New applications: MSAL's caches live in them. */
  clear(): void {
    this.apps.clear();
    this.users.clear();
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    restoreFetchDispatcher(this.dispatcher);
  }
}
