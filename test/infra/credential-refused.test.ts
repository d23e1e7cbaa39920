/**
 * What the error hook on the blueprint's secret or certificate adds when the
 * create fails: the fix for a tenant that refuses them, only when azuread's
 * add step itself was answered with a 400. The texts are azuread 6.9.1's own,
 * as `pulumi up` printed them against the emulator; the real engine running
 * the hook is test/e2e/engine's.
 */
import { credentialRefusalMessage } from "../../infra/components/credential-refused";

const APP = 'Application (Application: "c2355970-6392-4053-b937-1fea79e2fcee")';
const REFUSAL = "unexpected status 400 (400 Bad Request) with error: Request_BadRequest: This tenant's policy does not allow password or certificate credentials";
const PROVIDER_ERROR = (step: string) => `sdk-v2/provider2.go:572: sdk.helper_schema: ${step} ${APP}: ${REFUSAL}: provider=azuread@6.9.1`;
const PASSWORD_REFUSED = PROVIDER_ERROR("Adding password for");
const CERTIFICATE_REFUSED = PROVIDER_ERROR("Adding certificate for");

describe("credentialRefusalMessage", () => {
  it.each([
    ["secret", PASSWORD_REFUSED, "a client secret (addPassword)"],
    ["certificate", CERTIFICATE_REFUSED, "a certificate (keyCredentials)"],
  ] as const)("names the %s, the 400 and `credential: managedIdentity` when its add step was refused with a 400", (mode, error, what) => {
    expect(credentialRefusalMessage("agents-blueprint", mode, "create", [error])).toBe(
      `AgentIdentityBlueprint "agents-blueprint": Microsoft Graph refused ${what} on the blueprint with a 400. ` +
        "Only some tenants accept secrets and certificates on agent identity blueprints: use `credential: managedIdentity` (agent-user-kit:credential managedIdentity), a managed identity's federated credential",
    );
  });

  it("reads Graph's code when the status is not in the text", () => {
    expect(credentialRefusalMessage("b", "secret", "create", [`Adding password for ${APP}: Request_BadRequest: not allowed`])).toContain("`credential: managedIdentity`");
  });

  it.each([
    [
      "a 400 on the read before the add (a tenant or emulator that does not serve it)",
      "secret",
      `sdk-v2/provider2.go:572: sdk.helper_schema: Retrieving ${APP}: unexpected status 400 (400 Bad Request) with error: BadRequest: Resource not found for the segment`,
    ],
    ["the other mode's add step", "secret", CERTIFICATE_REFUSED],
    ["a 403 on the add step", "secret", `Adding password for ${APP}: unexpected status 403 (403 Forbidden) with error: Authorization_RequestDenied`],
    ["a throttle on the add step", "certificate", `Adding certificate for ${APP}: unexpected status 429 (429 Too Many Requests)`],
    ["no error text", "secret", undefined],
  ] as const)("adds nothing for %s", (_case, mode, error) => {
    expect(credentialRefusalMessage("b", mode, "create", error === undefined ? [] : [error])).toBeUndefined();
  });

  it("adds nothing when the failed operation is not the create", () => {
    expect(credentialRefusalMessage("b", "secret", "delete", [PASSWORD_REFUSED])).toBeUndefined();
  });

  it("reads the newest error only", () => {
    expect(credentialRefusalMessage("b", "secret", "create", [`Adding password for ${APP}: unexpected status 403`, PASSWORD_REFUSED])).toBeUndefined();
  });
});
