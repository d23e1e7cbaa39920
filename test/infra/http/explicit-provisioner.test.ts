/**
 * The settings of an explicit azuread provider, as the components hand them
 * to the kit's Graph resources (the `provisioner` input), authenticate those
 * resources against the emulator over HTTP, ahead of the ARM_* variables, as
 * an explicit provider's settings do in the azuread provider.
 */
import { blueprintProvider } from "../../../infra/providers/blueprint";
import { forgetProvisioner } from "../../provisioner-state";
import { blueprintInputs, DEFAULT_IDS, startTenant, type Tenant } from "./tenant";

describe("a Graph resource given an explicit azuread provider's settings", () => {
  let t: Tenant;
  let secret: string;
  beforeAll(async () => {
    t = await startTenant();
    secret = process.env.ARM_CLIENT_SECRET!;
  });
  afterAll(() => t.close());
  beforeEach(() => forgetProvisioner());

  const explicit = (clientSecret: string) => ({ tenantId: t.emulator.store.tenantId, clientId: DEFAULT_IDS.provisionerAppId, clientSecret });

  it("authenticates with them when the ARM_* secret is wrong", async () => {
    process.env.ARM_CLIENT_SECRET = "not-the-secret";
    try {
      const created = await blueprintProvider.create!(await blueprintInputs(t, { provisioner: explicit(secret) }));
      expect(t.emulator.store.application(created.id)?.displayName).toBe("Research agent blueprint");
    } finally {
      process.env.ARM_CLIENT_SECRET = secret;
    }
  });

  it("uses them over a right ARM_* secret: a wrong one fails, named as the provider's, and never shown", async () => {
    const failure = await blueprintProvider.create!(await blueprintInputs(t, { provisioner: explicit("wrong-explicit-secret") })).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain("AADSTS7000215");
    expect(message).toContain("the azuread provider's clientSecret");
    expect(message).not.toContain("wrong-explicit-secret");
  });

  it("refuses a setting the kit does not read, naming it without its value", async () => {
    const news = { ...(await blueprintInputs(t)), provisioner: { clientSecrett: "x-value" } } as never;
    const { failures } = await blueprintProvider.check!(news, news);
    expect(failures).toEqual([
      { property: "provisioner", reason: expect.stringContaining('holds "clientSecrett", which is not one of the azuread provider\'s settings the kit reads') },
    ]);
    expect(JSON.stringify(failures)).not.toContain("x-value");
  });
});
