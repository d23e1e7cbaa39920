import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantOutputs } from "../../../emulator/server";
import { GRAPH_APP_ID } from "../../../emulator/store";
import type { StackOutputs } from "../../../lib/stack-outputs";
import { agentIdentityProvider } from "../../../infra/providers/agent-identity";
import { agentUserProvider } from "../../../infra/providers/agent-user";
import { blueprintProvider } from "../../../infra/providers/blueprint";
import { blueprintPrincipalProvider } from "../../../infra/providers/blueprint-principal";
import { main } from "../../../probes/cli";
import { createBlueprint, createIdentity, createPrincipal, createUser, startTenant, type Tenant } from "./tenant";

const SCOPES = "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read";

/**
 * `pulumi up`, the smoke step and `pulumi destroy`, walked by hand against a
 * bare emulator tenant: the dynamic providers create the Graph objects in
 * the program's order, the test does what azuread does for the secret and
 * the grant, and the hop chain must then mint the agent user's token from
 * the resulting outputs. This proves that what infra creates is what the
 * probes need, and that destroying it leaves nothing behind.
 */
describe("local walk: provision, mint, destroy", () => {
  let t: Tenant;
  let dir: string;
  beforeAll(async () => {
    t = await startTenant();
    dir = mkdtempSync(join(tmpdir(), "agent-user-walk-"));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it("the providers' objects, a secret and a grant give outputs from which the hop chain mints the agent user's token", async () => {
    const { store } = t.emulator;
    const sizes = () => ({ applications: store.applications().length, servicePrincipals: store.servicePrincipals().length, users: store.users().length, grants: store.grants().length });
    const before = sizes();

    // pulumi up: the dynamic resources, in dependency order.
    const blueprint = await createBlueprint(t);
    const principal = await createPrincipal(t, blueprint);
    const identity = await createIdentity(t, blueprint, principal);
    const user = await createUser(t, identity);
    // azuread.ApplicationPassword on the blueprint.
    const password = (
      await t.graph.call<{ keyId: string; secretText: string }>("POST", `/v1.0/applications/${blueprint.objectId}/addPassword`, {
        body: { passwordCredential: { displayName: "agent-user-kit-secret" } },
      })
    ).body;
    // azuread.getServicePrincipal for Microsoft Graph, then the ServicePrincipalDelegatedPermissionGrant.
    const [resource] = await t.graph.list<{ id: string; appId: string }>(`/v1.0/servicePrincipals?$filter=appId eq '${GRAPH_APP_ID}'&$select=id,appId`);
    const grant = (
      await t.graph.call<{ id: string; scope: string }>("POST", "/v1.0/oauth2PermissionGrants", {
        body: { clientId: identity.identityId, consentType: "Principal", principalId: user.userId, resourceId: resource!.id, scope: SCOPES },
      })
    ).body;

    // The stack outputs as infra/components/agent-user-kit.ts assembles them.
    const created = {
      blueprintAppId: blueprint.appId,
      blueprintObjectId: blueprint.objectId,
      blueprintPrincipalId: principal.principalId,
      blueprintClientSecret: password.secretText,
      agentIdentityId: identity.identityId,
      agentUserId: user.userId,
      agentUserPrincipalName: user.userPrincipalName,
      grantId: grant.id,
      grantScopes: grant.scope,
    };
    const outputs: StackOutputs = {
      tenantId: store.tenantId,
      authorityUrl: t.common.authorityUrl,
      graphUrl: t.common.graphUrl,
      // Graph's tokens are asked for the configured Graph URL, as the program does.
      resourceUrl: t.common.graphUrl,
      ...created,
    };
    // The emulator, asked which objects make up this tenant's agent, names the same ones.
    expect(tenantOutputs(store, t.emulator.httpUrl, false)).toMatchObject(created);

    // The smoke step: agent-user token --outputs outputs.json.
    const file = join(dir, "outputs.json");
    writeFileSync(file, JSON.stringify(outputs), { mode: 0o600 });
    let stdout = "";
    let stderr = "";
    const code = await main(["token", "--outputs", file, "--json"], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: {}, cwd: dir });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const { claims } = JSON.parse(stdout) as { claims: Record<string, string> };
    expect(claims).toMatchObject({
      idtyp: "user",
      oid: user.userId,
      upn: user.userPrincipalName,
      appid: identity.identityId,
      tid: store.tenantId,
      aud: "https://graph.microsoft.com",
    });
    expect(claims.scp!.split(" ")).toEqual(expect.arrayContaining(SCOPES.split(" ")));

    // pulumi destroy: the grant and the secret (azuread), then the dynamic resources in reverse order.
    await t.graph.call("DELETE", `/v1.0/oauth2PermissionGrants/${grant.id}`);
    await t.graph.call("POST", `/v1.0/applications/${blueprint.objectId}/removePassword`, { body: { keyId: password.keyId } });
    await agentUserProvider.delete!(user.userId, user);
    await agentIdentityProvider.delete!(identity.identityId, identity);
    await blueprintPrincipalProvider.delete!(principal.principalId, principal);
    await blueprintProvider.delete!(blueprint.objectId, blueprint);

    expect(store.application(blueprint.objectId)).toBeUndefined();
    expect([principal.principalId, identity.identityId].filter((id) => store.servicePrincipal(id))).toEqual([]);
    expect(store.user(user.userId)).toBeUndefined();
    expect(store.grant(grant.id)).toBeUndefined();
    expect(sizes()).toEqual(before);
  });
});
