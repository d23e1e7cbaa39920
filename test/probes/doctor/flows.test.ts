/**
 * `agent-user doctor` on a stack that declares the opt-in flows (the
 * emulator's `features`): the app roles the agent's identity holds and its
 * app token, the blueprint's exposed API and the identity's delegated
 * consent to act for people, each a link of its own, and a broken one named.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { startEmulator, type Emulator } from "../../../emulator/server";
import { forgetProvisioner } from "../../provisioner-state";
import { runCli, scratchDir, type CliRun } from "../../harness";

const scratch = scratchDir();
afterAll(() => scratch.remove());

interface Links {
  code: number;
  links: Array<{ link: string; status: string; detail: string; fix?: string }>;
  run: CliRun;
}

/** doctor --json against an emulator whose outputs declare both features, after `prepare` changed its tenant. */
async function doctor(prepare: (e: Emulator) => void = () => undefined): Promise<Links> {
  const emulator = await startEmulator({ features: ["appRoles", "onBehalfOf"] });
  try {
    const outputs = join(scratch.dir, `outputs-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
    prepare(emulator);
    const p = emulator.provisioner()!;
    forgetProvisioner();
    const run = await runCli(["doctor", "--outputs", outputs, "--json"], { ARM_TENANT_ID: p.tenantId, ARM_CLIENT_ID: p.clientId, ARM_CLIENT_SECRET: p.clientSecret });
    expect(emulator.requests.filter((r) => r.surface === "graph" && r.method !== "GET")).toEqual([]);
    return { code: run.code, links: (JSON.parse(run.stdout) as Links).links, run };
  } finally {
    await emulator.close();
  }
}

const link = (l: Links, name: string) => l.links.find((x) => x.link === name)!;

it("walks each declared flow's links: app roles, exposed API, on-behalf-of consent, and the app token after the agent user's", async () => {
  const result = await doctor();
  expect(result.code).toBe(0);
  expect(result.links.map((l) => [l.link, l.status])).toEqual([
    ["blueprint", "ok"],
    ["blueprint credential", "ok"],
    ["blueprint principal", "ok"],
    ["agent identity", "ok"],
    ["agent user", "ok"],
    ["grant", "ok"],
    ["app roles", "ok"],
    ["exposed API", "ok"],
    ["on-behalf-of consent", "ok"],
    ["tokens", "ok"],
    ["app token", "ok"],
  ]);
  expect(link(result, "app roles").detail).toBe("User.Read.All on 00000003-0000-0000-c000-000000000000");
});

it("names a missing app role assignment, and lays the app token's missing role on it", async () => {
  const result = await doctor((e) => {
    for (const a of e.store.appRoleAssignments.of("principalId", DEFAULT_IDS.agentIdentityId)) e.store.appRoleAssignments.delete(a.id);
  });
  expect(result.code).toBe(8);
  expect(link(result, "app roles")).toMatchObject({
    status: "failed",
    detail: "the agent identity holds no app role assignment for User.Read.All on 00000003-0000-0000-c000-000000000000: its app tokens lack them",
    fix: expect.stringMatching(/pulumi up.*appRoles.*AppRoleAssignment\.ReadWrite\.All/),
  });
  expect(link(result, "app token")).toMatchObject({ status: "failed", detail: expect.stringMatching(/roles is missing, expected "to hold User\.Read\.All".*explained by the app roles link$/) });
  expect(result.links.filter((l) => l.status === "failed").map((l) => l.link)).toEqual(["app roles", "app token"]);
});

it("names a missing on-behalf-of consent", async () => {
  const result = await doctor((e) => void e.store.deleteGrant(DEFAULT_IDS.oboGrantId));
  expect(result.code).toBe(8);
  expect(link(result, "on-behalf-of consent")).toMatchObject({ status: "failed", detail: expect.stringMatching(/no delegated consent to act for people on the resource: the on-behalf-of hop fails with AADSTS65001/) });
  expect(result.links.filter((l) => l.status === "failed").map((l) => l.link)).toEqual(["on-behalf-of consent"]);
});

it("names a blueprint that no longer exposes the scope a person's token is for", async () => {
  const result = await doctor((e) => {
    const app = e.store.application(DEFAULT_IDS.blueprintObjectId)!;
    e.store.updateApplication(app.id, { api: { ...app.api!, oauth2PermissionScopes: app.api!.oauth2PermissionScopes.map((s) => ({ ...s, isEnabled: false })) } });
  });
  expect(link(result, "exposed API")).toMatchObject({ status: "failed", detail: "the blueprint exposes no enabled scope access_agent (it exposes none)" });
});
