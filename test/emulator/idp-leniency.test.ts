import { parseFaultSpec } from "../../emulator/faults";
import { startEmulator, type Emulator } from "../../emulator/server";
import { agentUserToken, seededChain } from "../harness";

describe("what the emulator accepts and refuses like Entra", () => {
  let emulator: Emulator;
  beforeAll(async () => (emulator = await startEmulator()));
  afterAll(() => emulator.close());

  it("compares GUIDs without regard to case: upper-case client ids and user ids mint the same token", async () => {
    const out = emulator.outputs();
    const chain = seededChain(out, { authorityUrl: emulator.httpUrl, tenantId: out.tenantId.toUpperCase(), blueprintAppId: out.blueprintAppId!.toUpperCase() });
    const token = await agentUserToken(chain, { agentIdentityId: out.agentIdentityId!.toUpperCase(), agentUser: out.agentUserId!.toUpperCase(), resourceUrl: out.resourceUrl });
    expect(token.claims.oid).toBe(out.agentUserId);
    expect(token.claims.idtyp).toBe("user");
  });

  it("refuses a fault with a second '=' instead of reading the first part", () => {
    expect(() => parseFaultSpec("latency=5=6")).toThrow(/latency=5=6 is not a duration/);
  });
});
