/**
 * Bad input changes nothing and never crashes the emulator: malformed URLs,
 * oversized bodies and half-valid PATCHes get a final 4xx in the surface's
 * own error shape, and the store stays as it was.
 */
import { GRAPH_APP_ID } from "../../emulator/store";
import { blueprintWithPrincipal, codeOf, identityWithUser, startDirectory, type Directory } from "./directory-client";

const BLUEPRINTS = "/v1.0/applications/microsoft.graph.agentIdentityBlueprint";

describe("emulator: bad input is refused without a 500 and without a change", () => {
  let d: Directory;
  beforeAll(async () => {
    d = await startDirectory();
  });
  afterAll(() => d.close());

  const raw = (method: string, path: string, init: { body?: string | Buffer; headers?: Record<string, string> } = {}) =>
    fetch(`${d.emulator.httpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${d.token}`, "odata-version": "4.0", "content-type": "application/json", ...init.headers },
      body: init.body,
    });

  it("answers a malformed percent-escape in a path with 404 or 400, not 500", async () => {
    const graph = await raw("GET", "/v1.0/applications/%ZZ/microsoft.graph.agentIdentityBlueprint");
    expect(graph.status).toBe(404);
    expect(((await graph.json()) as { error: { code: string } }).error.code).toBe("Request_ResourceNotFound");
    const token = await raw("POST", "/%E0%A4%A/oauth2/v2.0/token", { body: "grant_type=client_credentials", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error_codes: number[] }).error_codes).toEqual([90002]);
  });

  it("answers a malformed percent-escape in an @odata.bind URL with 400, not 500", async () => {
    const answer = await d.call("POST", BLUEPRINTS, { body: { displayName: "Bad bind", "sponsors@odata.bind": [`${d.emulator.httpUrl}/v1.0/users/%ZZ`] } });
    expect([answer.status, codeOf(answer)]).toEqual([400, "Request_BadRequest"]);
  });

  it("answers a body over 1 MiB with a final 413, not a connection reset that clients retry", async () => {
    const before = d.emulator.store.applications().length;
    const answer = await raw("POST", BLUEPRINTS, { body: Buffer.alloc(2 * 1024 * 1024, 0x20) });
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("RequestEntityTooLarge");
    expect(d.emulator.store.applications().length).toBe(before);
  });

  it("a blueprint PATCH with one bad field changes no field", async () => {
    const { id } = await blueprintWithPrincipal(d, "Patched blueprint");
    const answer = await d.call("PATCH", `/v1.0/applications/${id}/microsoft.graph.agentIdentityBlueprint`, { body: { displayName: "Renamed", tags: "not a list" } });
    expect(answer.status).toBe(400);
    expect(d.emulator.store.application(id)!.displayName).toBe("Patched blueprint");
  });

  it("an agent user PATCH with one bad field changes no field", async () => {
    const { appId } = await blueprintWithPrincipal(d, "User blueprint");
    const { userId } = await identityWithUser(d, appId, "Patched identity");
    const before = { ...d.emulator.store.user(userId)! };
    const answer = await d.call("PATCH", `/v1.0/users/microsoft.graph.agentUser/${userId}`, { body: { displayName: "Renamed", accountEnabled: "yes" } });
    expect(answer.status).toBe(400);
    expect(d.emulator.store.user(userId)).toEqual(before);
  });

  it("addPassword refuses a passwordCredential that is not an object, and adds no secret", async () => {
    const { id } = await blueprintWithPrincipal(d, "Password blueprint");
    const answer = await d.call("POST", `/v1.0/applications/${id}/addPassword`, { body: { passwordCredential: "secret" } });
    expect([answer.status, codeOf(answer)]).toEqual([400, "Request_BadRequest"]);
    expect(d.emulator.store.application(id)!.passwordCredentials).toHaveLength(0);
  });

  it("a grant whose scope is not a string is refused, not stored with an empty scope", async () => {
    const { appId } = await blueprintWithPrincipal(d, "Grant blueprint");
    const { identityId, userId } = await identityWithUser(d, appId, "Grant identity");
    const graph = d.emulator.store.servicePrincipalByAppId(GRAPH_APP_ID)!;
    const before = d.emulator.store.grants().length;
    const answer = await d.call("POST", "/v1.0/oauth2PermissionGrants", {
      body: { clientId: identityId, consentType: "Principal", principalId: userId, resourceId: graph.id, scope: ["User.Read"] },
    });
    expect([answer.status, codeOf(answer)]).toEqual([400, "Request_BadRequest"]);
    expect(d.emulator.store.grants().length).toBe(before);
  });

  it("the token endpoint reads a form body whatever the case of its media type", async () => {
    const answer = await raw("POST", `/${d.emulator.store.tenantId}/oauth2/v2.0/token`, {
      body: "grant_type=client_credentials&client_id=not-a-client&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default",
      headers: { "content-type": "Application/X-WWW-Form-URLencoded; charset=UTF-8" },
    });
    // Read as a form, the request gets as far as the client lookup (not "grant_type missing").
    expect(((await answer.json()) as { error_codes: number[] }).error_codes).toEqual([700016]);
  });
});
