import { parseFaultSpec } from "../../emulator/faults";
import { blueprintWithPrincipal, codeOf, startDirectory, type Directory } from "./directory-client";

describe("emulated Graph: a blueprint's password and federated credentials", () => {
  let d: Directory;
  let blueprint: { id: string; appId: string };
  beforeAll(async () => {
    d = await startDirectory();
    blueprint = await blueprintWithPrincipal(d);
  });
  afterAll(() => d.close());

  it("addPassword answers the secret once; reads show only its hint; removePassword takes it away", async () => {
    const added = await d.call("POST", `/v1.0/applications/${blueprint.id}/addPassword`, {
      body: { passwordCredential: { displayName: "ci", endDateTime: "2030-01-01T00:00:00Z" } },
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ displayName: "ci", endDateTime: "2030-01-01T00:00:00.000Z", hint: String(added.body.secretText).slice(0, 3) });
    const read = await d.call("GET", `/v1.0/applications/${blueprint.id}/microsoft.graph.agentIdentityBlueprint?$select=passwordCredentials`);
    expect(read.body.passwordCredentials).toEqual([expect.objectContaining({ keyId: added.body.keyId, secretText: null })]);
    expect(JSON.stringify(read.body)).not.toContain(added.body.secretText as string);

    expect((await d.call("POST", `/v1.0/applications/${blueprint.id}/removePassword`, { body: { keyId: added.body.keyId } })).status).toBe(204);
    expect(d.emulator.store.application(blueprint.id)!.passwordCredentials).toEqual([]);
  });

  it("adds, lists, reads by name and deletes a federated identity credential; names are unique", async () => {
    const path = `/v1.0/applications/${blueprint.id}/federatedIdentityCredentials`;
    const fic = { name: "managed-identity", issuer: "https://login.microsoftonline.com/t/v2.0", subject: "mi-principal", audiences: ["api://AzureADTokenExchange"] };
    const created = await d.call("POST", path, { body: fic });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(fic);
    const duplicate = await d.call("POST", path, { body: fic });
    expect([duplicate.status, codeOf(duplicate)]).toEqual([409, "Request_MultipleObjectsWithSameKeyValue"]);
    expect((await d.call("GET", path)).body.value).toEqual([expect.objectContaining(fic)]);
    expect((await d.call("GET", `${path}/managed-identity`)).body).toMatchObject({ id: created.body.id });
    expect((await d.call("DELETE", `${path}/${created.body.id}`)).status).toBe(204);
    expect((await d.call("GET", path)).body.value).toEqual([]);
  });
});

describe("the lose fault", () => {
  it("parses with a method filter, documented in --faults", () => {
    expect(parseFaultSpec("lose=2,method=post,on=graph").faults).toEqual({ lose: 2, method: "POST", target: "graph" });
    expect(() => parseFaultSpec("method=FETCH")).toThrow(/method=FETCH must be one of GET, POST, PATCH, PUT, DELETE/);
  });
});
