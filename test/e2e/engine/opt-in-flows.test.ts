/**
 * A stack that opts into the agent identity's other flows, under the real
 * engine with the azuread plugin: an agent holding Graph's User.Read.All
 * (azuread AppRoleAssignment on its identity) and the on-behalf-of consent,
 * and the blueprint exposing a scope to a pre-authorized front end. `up`,
 * `token --as app --all` and `--on-behalf-of` on the stack's outputs, no
 * change found after, an assignment deleted out of band put back, `destroy`
 * leaving no assignment, grant or scope.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { MICROSOFT_GRAPH_APP_ID } from "../../../lib/entra-rules";
import { allMinted } from "./lifecycle";
import { consumerProject, type PulumiProject, type StackOutputsJson } from "./pulumi-cli";
import { useEngineWorld } from "./world";

jest.setTimeout(900_000);

// The tenant of a stack with both features: its provisioner holds their permissions too.
const t = useEngineWorld({ features: ["appRoles", "onBehalfOf"] });
const OPS = { name: "ops", identityName: "ops identity", userName: "ops", appRoles: [{ resource: MICROSOFT_GRAPH_APP_ID, roles: ["User.Read.All"] }], onBehalfOfScopes: ["User.Read", "Files.Read.All"] };
let project: PulumiProject;
let made: StackOutputsJson & { blueprintIdentifierUri?: string; blueprintScope?: string };

beforeAll(async () => {
  project = consumerProject(t.world, "opt-in", t.tarball(), join(__dirname, "kit-program.js"));
  await project.init("dev", {
    "consumer:graphUrl": t.emulator.httpsUrl,
    "consumer:authorityUrl": t.emulator.httpsUrl,
    "consumer:sponsors": JSON.stringify([DEFAULT_IDS.sponsorId]),
    "consumer:userDomain": DEFAULT_IDS.domain,
    "consumer:blueprintName": "Opt-in blueprint",
    "consumer:agents": JSON.stringify([OPS, "plain"]),
    "consumer:onBehalfOfScope": "access_agent",
    "consumer:onBehalfOfClients": JSON.stringify([DEFAULT_IDS.testClientAppId]),
  });
});

/** The ops agent's identity's app role assignments in the emulator. */
const assignments = () => t.emulator.store.appRoleAssignments.of("principalId", made.agents.ops!.agentIdentityId);

it("up assigns the app role, exposes the blueprint's scope and consents, and the outputs say so", async () => {
  await project.ok(["up", "--yes", "--skip-preview"]);
  made = (await project.outputs()).values;
  expect(assignments()).toEqual([expect.objectContaining({ resourceId: DEFAULT_IDS.graphPrincipalId })]);
  expect(made.blueprintIdentifierUri).toBe(`api://${made.blueprintAppId}`);
  expect(made.blueprintScope).toBe("access_agent");
  const blueprint = t.emulator.store.applicationByAppId(made.blueprintAppId)!;
  expect(blueprint.api?.preAuthorizedApplications.map((p) => p.appId)).toEqual([DEFAULT_IDS.testClientAppId]);
  expect(made.agents.ops!.onBehalfOfScopes!.split(" ").sort()).toEqual(["Files.Read.All", "User.Read"]);
});

it("token --as app --all mints each agent's own app token, the app role checked where the stack declares it", async () => {
  const { file } = await project.outputs();
  const run = await project.agentUser(["token", "--outputs", file, "--all", "--as", "app"]);
  expect([run.code, run.stdout.trim().split("\n").pop(), run.stderr]).toEqual([0, allMinted(2), ""]);
});

it("the agent user's own token carries the on-behalf-of consent's scopes too: an AllPrincipals grant covers every user of the identity", async () => {
  const { file } = await project.outputs();
  const run = await project.agentUser(["token", "--outputs", file, "--agent", "ops", "--json"]);
  expect(run.code).toBe(0);
  const { claims } = JSON.parse(run.stdout) as { claims: { scp: string; idtyp: string } };
  expect([claims.idtyp, claims.scp.split(" ")]).toEqual(["user", expect.arrayContaining(["Files.Read.All", "Chat.Create"])]);
});

it("token --on-behalf-of exchanges a person's token for the blueprint for one on their behalf", async () => {
  const person = t.emulator.testUser()!;
  const answer = await fetch(`${t.emulator.httpUrl}/${DEFAULT_IDS.tenantId}/oauth2/v2.0/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "password", client_id: person.clientId, username: person.username, password: person.password, scope: `${made.blueprintIdentifierUri}/${made.blueprintScope}` }),
  });
  expect(answer.status).toBe(200);
  const assertion = join(t.work, "person.jwt");
  writeFileSync(assertion, String(((await answer.json()) as { access_token: string }).access_token), { mode: 0o600 });
  const { file } = await project.outputs();
  const run = await project.agentUser(["token", "--outputs", file, "--agent", "ops", "--on-behalf-of", assertion, "--json"]);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  expect(JSON.parse(run.stdout)).toMatchObject({ ok: true });
});

it("a second preview and a refresh find no change; an assignment deleted out of band is found by refresh and put back by up", async () => {
  await project.ok(["preview", "--expect-no-changes"]);
  await project.ok(["refresh", "--yes", "--expect-no-changes"]);
  t.emulator.store.appRoleAssignments.delete(assignments()[0]!.id);
  expect((await project.run(["refresh", "--yes", "--expect-no-changes"])).code).not.toBe(0);
  await project.ok(["refresh", "--yes"]);
  await project.ok(["up", "--yes", "--skip-preview"]);
  expect(assignments()).toHaveLength(1);
  await project.ok(["preview", "--expect-no-changes"]);
});

it("destroy leaves no assignment, grant or exposed scope of the stack", async () => {
  await project.ok(["destroy", "--yes", "--skip-preview"]);
  const identities = Object.values(made.agents).map((a) => a.agentIdentityId);
  const { store } = t.emulator;
  expect(identities.flatMap((id) => store.appRoleAssignments.of("principalId", id))).toEqual([]);
  expect(store.grants().filter((g) => identities.includes(g.clientId))).toEqual([]);
  expect(store.applicationByAppId(made.blueprintAppId)).toBeUndefined();
});
