/**
 * The emulated Graph's path and body grammar: each spelling Microsoft's tools
 * and pages send reaches the same object, each spelling Graph refuses is
 * refused, and the version the URL names is the one the answer's
 * @odata.context names.
 */
import { readGraphPath } from "../../emulator/pipeline/graph-path";
import { blueprintWithPrincipal, codeOf, DEFAULT_IDS, identityWithUser, messageOf, sponsorBind, startDirectory, type Directory } from "./directory-client";

describe("the path grammar", () => {
  it.each([
    ["/v1.0/applications/", "/applications"],
    ["/beta/ServicePrincipals/Microsoft.Graph.AgentIdentity", "/servicePrincipals/microsoft.graph.agentIdentity"],
    ["/v1.0/serviceprincipals/graph.agentIdentityBlueprintPrincipal", "/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal"],
    ["/v1.0/users/microsoft.graph.agentUser/AbC", "/users/AbC/microsoft.graph.agentUser"],
    ["/beta/applications/microsoft.graph.agentIdentityBlueprint/id1/FederatedIdentityCredentials", "/applications/id1/microsoft.graph.agentIdentityBlueprint/federatedIdentityCredentials"],
    ["/v1.0/applications/id1/ADDPASSWORD", "/applications/id1/addPassword"],
    ["/v1.0/users/u1/sponsors/s1/%24ref", "/users/u1/sponsors/s1/$ref"],
    ["/v1.0/$batch", "/$batch"],
    ["/v1.0/applications/microsoft.graph.somethingElse", "/applications/microsoft.graph.somethingElse"],
  ])("reads %s as %s", (path, canonical) => {
    expect(readGraphPath(path)?.path).toBe(canonical);
  });

  it("names the version, and leaves paths outside Graph alone", () => {
    expect(readGraphPath("/beta/users")?.version).toBe("beta");
    expect(readGraphPath("/v2.0/users")).toBeUndefined();
    expect(readGraphPath("/tenant/oauth2/v2.0/token")).toBeUndefined();
  });
});

describe("the emulated Graph's spellings, over HTTP", () => {
  let d: Directory;
  let blueprint: { id: string; appId: string };
  beforeAll(async () => {
    d = await startDirectory();
    blueprint = await blueprintWithPrincipal(d, "Spellings");
  });
  afterAll(() => d.close());

  it("serves one blueprint at every cast spelling and place, and names the URL's version in @odata.context", async () => {
    const paths = [
      `/v1.0/applications/${blueprint.id}/microsoft.graph.agentIdentityBlueprint`,
      `/v1.0/APPLICATIONS/${blueprint.id}/Microsoft.Graph.AgentIdentityBlueprint`,
      `/beta/applications/graph.agentIdentityBlueprint/${blueprint.id}`,
      `/beta/applications/microsoft.graph.agentIdentityBlueprint/${blueprint.id.toUpperCase()}/`,
    ];
    const answers = await Promise.all(paths.map((p) => d.call("GET", p)));
    expect(answers.map((a) => [a.status, a.body.id, a.body["@odata.context"]])).toEqual(
      paths.map((p) => [200, blueprint.id, `${d.emulator.httpUrl}/${p.split("/")[1]}/$metadata#applications/microsoft.graph.agentIdentityBlueprint/$entity`]),
    );
  });

  it("refuses a cast to another type, and one no page names, as a segment it does not serve", async () => {
    for (const path of [`/v1.0/applications/${blueprint.id}/microsoft.graph.agentUser`, "/v1.0/applications/microsoft.graph.agentBlueprint"]) {
      const answer = await d.call("GET", path);
      expect([path, answer.status, codeOf(answer)]).toEqual([path, 400, "BadRequest"]);
    }
  });

  it("reads an agent user with the cast on either side of its key", async () => {
    const { userId } = await identityWithUser(d, blueprint.appId, "either-side");
    const before = await d.call("GET", `/v1.0/users/microsoft.graph.agentUser/${userId}`);
    const after = await d.call("GET", `/beta/users/${userId}/graph.agentUser`);
    expect([before.status, after.status, before.body.id, after.body.id]).toEqual([200, 200, userId, userId]);
  });

  it("takes property names and @odata.type in any case and spelling, and refuses a name given twice", async () => {
    const base = { "sponsors@odata.bind": sponsorBind(d) };
    const spellings = ["#microsoft.graph.agentIdentityBlueprint", "microsoft.graph.agentIdentityBlueprint", "#Microsoft.Graph.AgentIdentityBlueprint", "graph.agentIdentityBlueprint"];
    for (const type of spellings) {
      const answer = await d.call("POST", "/v1.0/applications/microsoft.graph.agentIdentityBlueprint", { body: { ...base, "@ODATA.TYPE": type, DisplayName: `Typed ${type}` } });
      expect([type, answer.status, answer.body.displayName]).toEqual([type, 201, `Typed ${type}`]);
    }
    const other = await d.call("POST", "/v1.0/applications/microsoft.graph.agentIdentityBlueprint", { body: { ...base, "@odata.type": "#microsoft.graph.agentIdentity", displayName: "Other" } });
    expect(other.status).toBe(400);
    const twice = await d.call("POST", "/v1.0/applications/microsoft.graph.agentIdentityBlueprint", { body: { ...base, displayName: "One", DISPLAYNAME: "Two" } });
    expect([twice.status, messageOf(twice)]).toEqual([400, "[emulator rule] Property 'displayName' is given twice: Graph reads property names without regard to case."]);
  });

  it("refuses read-only and refused properties as Graph does, and an undeclared one on a type that is not open", async () => {
    const post = (body: Record<string, unknown>) => d.call("POST", "/v1.0/applications/microsoft.graph.agentIdentityBlueprint", { body: { displayName: "RO", "sponsors@odata.bind": sponsorBind(d), ...body } });
    expect(messageOf(await post({ appId: DEFAULT_IDS.blueprintAppId }))).toBe("Property 'appId' is read-only and cannot be set.");
    expect(messageOf(await post({ disabledByMicrosoftStatus: "NotDisabled" }))).toBe("Property 'disabledByMicrosoftStatus' is read-only and cannot be set.");
    expect(messageOf(await post({ passwordCredentials: [] }))).toBe("New password credentials must be generated using service actions.");
    expect(messageOf(await post({ signInAudience: "Everyone" }))).toBe("Invalid value specified for property 'signInAudience' of resource 'Application'.");
    expect(messageOf(await post({ description: "x".repeat(1025) }))).toBe("description is 1025 characters; at most 1024 are allowed.");
    expect(messageOf(await post({ identifierUris: "api://one" }))).toBe("Invalid value for property 'identifierUris': expected a list of strings.");
    const fic = await d.call("POST", `/v1.0/applications/${blueprint.id}/federatedIdentityCredentials`, {
      body: { Name: "x", Issuer: "https://issuer.example", Subject: "s", Audiences: ["api://AzureADTokenExchange"], color: "blue" },
    });
    expect([fic.status, messageOf(fic)]).toEqual([400, "Property 'color' does not exist as a declared property or extension property."]);
  });

  it("keeps an open type's undocumented property on an agent identity and serves it back", async () => {
    const created = await d.call("POST", "/v1.0/servicePrincipals/microsoft.graph.agentIdentity", {
      body: { displayName: "Open", agentIdentityBlueprintId: blueprint.appId, "sponsors@odata.bind": sponsorBind(d), contosoTeam: { name: "Sales" } },
    });
    const read = await d.call("GET", `/v1.0/servicePrincipals/${created.body.id as string}/microsoft.graph.agentIdentity?$select=id,contosoTeam`);
    expect([created.status, read.status, read.body.contosoTeam]).toEqual([201, 200, { name: "Sales" }]);
  });

  it("changes each blueprint property under the permission of its category", async () => {
    const path = `/v1.0/applications/${blueprint.id}/microsoft.graph.agentIdentityBlueprint`;
    const holding = (role: string) => d.signed({ idtyp: "app", roles: [role], appid: "11111111-1111-1111-1111-111111111111" });
    const branding = holding("AgentIdentityBlueprint.UpdateBranding.All");
    const auth = holding("AgentIdentityBlueprint.UpdateAuthProperties.All");
    expect((await d.call("PATCH", path, { token: branding, body: { description: "Branded" } })).status).toBe(204);
    const refused = await d.call("PATCH", path, { token: branding, body: { identifierUris: [`api://${blueprint.appId}`] } });
    expect([refused.status, messageOf(refused)]).toEqual([
      403,
      "Insufficient privileges to complete the operation: changing identifierUris of an agent identity blueprint needs AgentIdentityBlueprint.UpdateAuthProperties.All or AgentIdentityBlueprint.ReadWrite.All.",
    ]);
    expect((await d.call("PATCH", path, { token: auth, body: { identifierUris: [`api://${blueprint.appId}`] } })).status).toBe(204);
    expect((await d.call("PATCH", path, { token: auth, body: { displayName: "Renamed" } })).status).toBe(403);
    expect((await d.call("PATCH", path, { token: auth, body: { contosoField: 1 } })).status).toBe(403);
    const read = await d.call("GET", path);
    expect([read.body.description, read.body.identifierUris, read.body.displayName]).toEqual(["Branded", [`api://${blueprint.appId}`], "Spellings"]);
  });
});
