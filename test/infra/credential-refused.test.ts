/**
 * What the error hook on the blueprint's secret or certificate adds when the
 * create fails: the fix for a tenant that refuses them, on a 400 only. The
 * real engine running the hook is test/e2e/engine's.
 */
import { credentialRefusalMessage } from "../../infra/components/credential-refused";

const REFUSED = 'Adding password for application with object ID "b1": unexpected status 400 (400 Bad Request) with error: Request_BadRequest: not allowed';

describe("credentialRefusalMessage", () => {
  it.each([
    ["secret", "a client secret (addPassword)"],
    ["certificate", "a certificate (keyCredentials)"],
  ] as const)("names the %s, the 400 and `credential: managedIdentity` when the create was refused with a 400", (mode, what) => {
    const message = credentialRefusalMessage("agents-blueprint", mode, "create", [REFUSED]);
    expect(message).toBe(
      `AgentIdentityBlueprint "agents-blueprint": Microsoft Graph refused ${what} on the blueprint with a 400. ` +
        "Only some tenants accept secrets and certificates on agent identity blueprints: use `credential: managedIdentity` (agent-user-kit:credential managedIdentity), a managed identity's federated credential",
    );
  });

  it("reads Graph's code when the status is not in the text", () => {
    expect(credentialRefusalMessage("b", "secret", "create", ["Request_BadRequest: not allowed"])).toContain("`credential: managedIdentity`");
  });

  it.each([
    ["a 403", "create", ['unexpected status 403 (403 Forbidden) with error: Authorization_RequestDenied']],
    ["a throttle", "create", ["unexpected status 429 (429 Too Many Requests)"]],
    ["a failed delete", "delete", [REFUSED]],
    ["no error text", "create", []],
  ])("adds nothing for %s", (_case, operation, errors) => {
    expect(credentialRefusalMessage("b", "secret", operation, errors)).toBeUndefined();
  });

  it("reads the newest error only", () => {
    expect(credentialRefusalMessage("b", "secret", "create", ["unexpected status 403", REFUSED])).toBeUndefined();
  });
});
