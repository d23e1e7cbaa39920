/**
 * A polluted Object.prototype changes nothing: options, request fields, the
 * environment, flags and stack outputs are read as own properties only. Each
 * option name in turn is set on Object.prototype to the URL of a trap server
 * (another dependency could do that), and every way of building a provider
 * still mints from the emulator it was given, or asks the default authority,
 * while the trap receives nothing.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { AgentUserCredential, AgentUserTokenProvider, loadCertificate, NetworkError, STACK_OUTPUT_KEYS } from "../../../lib";
import { CREDENTIAL_VARIABLES, OPTION_SOURCES } from "../../../lib/option-sources";
import { FLEET_AGENT_KEYS } from "../../../lib/stack-outputs";
import { blueprintCertificate, useEmulator } from "../../harness";

const ctx = useEmulator();
/** A certificate the emulator's blueprint knows. */
let pem: { certificatePem: string; privateKeyPem: string };
beforeAll(() => void (pem = blueprintCertificate(ctx.emulator, ctx.scratch.dir)));

let trap: Server;
let trapUrl: string;
let trapRequests = 0;
beforeAll(async () => {
  trap = createServer((req, res) => {
    trapRequests++;
    req.resume();
    res.writeHead(500).end();
  });
  await new Promise<void>((ready) => trap.listen(0, "127.0.0.1", ready));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((done) => trap.close(done)));

/** Every name the library reads from an object a caller, the environment or a file hands it. */
const OPTION_NAMES = [
  ...new Set([
    // AgentUserTokenProvider's options, its credential, retry policy and hooks
    ...["tenantId", "blueprintAppId", "credential", "authorityUrl", "agentIdentityId", "agentUser", "resource", "timeoutMs", "consistencyWindowMs", "replicationWindowMs", "refreshWindowMs", "retry", "hooks", "dispatcher"],
    ...["kind", "secret", "certificate", "clientId", "tokenFile", "imdsEndpoint"],
    // loadCertificate's argument
    ...["certificatePem", "privateKeyPem", "passphrase"],
    ...["maxAttempts", "maxElapsedMs", "baseDelayMs", "maxDelayMs"],
    ...["sleep", "random", "now", "monotonicNow", "onRetry"],
    // getToken()'s request and options, fromStackOutputs' overrides, AgentUserCredential's options
    ...["fresh", "abortSignal", "agent"],
    // the variables and outputs keys the options are read from, and the rest of the outputs
    ...Object.keys(OPTION_SOURCES),
    ...Object.values(OPTION_SOURCES).map((input) => input.env),
    ...Object.values(CREDENTIAL_VARIABLES),
    ...STACK_OUTPUT_KEYS,
    ...FLEET_AGENT_KEYS,
    "agents",
  ]),
];

/** Runs `work` with Object.prototype[name] set to the trap's URL, as a careless dependency would set it, and always removes it. */
async function polluted<T>(name: string, work: () => Promise<T>): Promise<T> {
  const proto = Object.prototype as Record<string, unknown>;
  proto[name] = trapUrl;
  try {
    return await work();
  } finally {
    delete proto[name];
  }
}

it.each(OPTION_NAMES)("Object.prototype[%j] polluted: every provider still asks where it was told, and the trap gets nothing", async (name) => {
  const out = ctx.emulator.outputs();
  const connected: string[] = [];
  // The default authority is on the internet, out of reach here: the connection attempt is recorded and refused.
  const offline = new Agent({ connect: (options, callback) => (connected.push(`${options.protocol}//${options.hostname}`), callback(new Error("offline"), null)) });
  const asked = { agentIdentityId: out.agentIdentityId, agentUser: out.agentUserId };
  try {
    await polluted(name, async () => {
      const noAuthority = new AgentUserTokenProvider({
        tenantId: out.tenantId,
        blueprintAppId: out.blueprintAppId!,
        credential: { kind: "secret", secret: out.blueprintClientSecret! },
        agentIdentityId: out.agentIdentityId,
        agentUser: out.agentUserId,
        dispatcher: offline,
        retry: { maxAttempts: 1, maxElapsedMs: 0, baseDelayMs: 0, maxDelayMs: 0 },
      });
      await expect(noAuthority.getToken()).rejects.toBeInstanceOf(NetworkError);
      expect(connected).toEqual(["https://login.microsoftonline.com"]);

      const fromOutputs = await AgentUserTokenProvider.fromStackOutputs(out).getToken();
      expect(fromOutputs.claims).toMatchObject({ idtyp: "user", oid: out.agentUserId });

      const fleet = { ...out, agents: { a: { agentIdentityId: out.agentIdentityId, agentUserId: out.agentUserId, agentUserPrincipalName: out.agentUserPrincipalName } } };
      const fromFleet = await AgentUserTokenProvider.fromStackOutputs(fleet, { agent: "a" }).getToken({ fresh: true });
      expect(fromFleet.claims).toMatchObject({ idtyp: "user", oid: out.agentUserId });

      const env = {
        AGENT_USER_TENANT_ID: out.tenantId,
        AGENT_USER_AUTHORITY_URL: out.authorityUrl,
        AGENT_USER_BLUEPRINT_APP_ID: out.blueprintAppId,
        AGENT_USER_BLUEPRINT_SECRET: out.blueprintClientSecret,
        AGENT_USER_RESOURCE_URL: out.resourceUrl,
      };
      const fromEnvironment = AgentUserTokenProvider.fromEnvironment(env);
      expect((await fromEnvironment.getToken(asked)).claims).toMatchObject({ idtyp: "user", oid: out.agentUserId });

      const credential = new AgentUserCredential(fromEnvironment, asked);
      expect((await credential.getToken("https://graph.microsoft.com/.default", {})).token).toMatch(/^eyJ/);

      const certificate = loadCertificate({ certificatePem: pem.certificatePem, privateKeyPem: pem.privateKeyPem }, "blueprint");
      const withCertificate = AgentUserTokenProvider.fromStackOutputs({ ...out, blueprintClientSecret: undefined }, { credential: { kind: "certificate", certificate } });
      expect((await withCertificate.getToken()).claims).toMatchObject({ idtyp: "user", oid: out.agentUserId });
    });
  } finally {
    await offline.close();
  }
  expect(trapRequests).toBe(0);
});
