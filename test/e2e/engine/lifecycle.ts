/**
 * One stack's life under the real engine, as a platform engineer lives it:
 * preview and up; `agent-user token --all` on the stack's outputs; no change
 * found by a second preview or a refresh; drift made in the emulator (an
 * agent identity renamed, an agent user deleted, a grant's scopes cut), which
 * refresh finds and up puts back; no secret in clear in the state; destroy,
 * after which none of the stack's objects is left.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Emulator } from "../../../emulator/server";
import { PASSPHRASE, type PulumiProject, type StackOutputsJson } from "./pulumi-cli";

export interface LifecycleSubject {
  project: PulumiProject;
  emulator: Emulator;
  /** The agents' names, as the stack outputs' `agents` map keys them; lifecycleTests' drift takes three. */
  agents: readonly string[];
  /** The scopes every agent's grant holds. */
  scopes: string;
}

/** azuread's id of a grant is `/oauth2PermissionGrants/{id}`; Graph's is the last segment. */
export const graphGrantId = (azureadId: string) => azureadId.split("/").pop()!;

/** A grant's scopes as a set: azuread writes them in its own order. */
const scopeSet = (scope: string | undefined) => (scope ?? "").split(" ").filter(Boolean).sort();

/** The token command's fleet table ends with this line when every agent minted. */
export const allMinted = (n: number) => `${n} ${n === 1 ? "agent" : "agents"}: ${n} ok, 0 failed`;

/** The Graph objects of the stack's outputs that the emulator still holds. */
function objectsLeft(emulator: Emulator, out: StackOutputsJson): string[] {
  const { store } = emulator;
  const left: string[] = [];
  if (store.applicationByAppId(out.blueprintAppId)) left.push(`blueprint ${out.blueprintAppId}`);
  if (store.servicePrincipalByAppId(out.blueprintAppId)) left.push(`blueprint principal of ${out.blueprintAppId}`);
  for (const [name, agent] of Object.entries(out.agents)) {
    if (store.agentIdentity(agent.agentIdentityId)) left.push(`${name} identity`);
    if (store.user(agent.agentUserId)) left.push(`${name} user`);
    if (store.grant(graphGrantId(agent.grantId))) left.push(`${name} grant`);
    for (const grant of store.grants().filter((g) => g.clientId === agent.agentIdentityId)) left.push(`${name} grant ${grant.id}`);
  }
  return left;
}

export function lifecycleTests(title: string, subject: () => LifecycleSubject): void {
  describe(title, () => {
    let made: StackOutputsJson;

    it("preview plans every object, and up makes them: the blueprint with its secret, and per agent an identity, a user and a grant", async () => {
      const { project, agents } = subject();
      const preview = JSON.parse((await project.ok(["preview", "--json"])).stdout) as { steps: Array<{ op: string; urn: string }> };
      const creates: Record<string, number> = {};
      for (const step of preview.steps.filter((s) => s.op === "create")) {
        const type = step.urn.split("::")[2]!.split("$").pop()!;
        creates[type] = (creates[type] ?? 0) + 1;
      }
      const n = agents.length;
      expect(creates).toMatchObject({
        "pulumi-nodejs:dynamic/agent-user-kit:Blueprint": 1,
        "pulumi-nodejs:dynamic/agent-user-kit:BlueprintPrincipal": 1,
        "azuread:index/applicationPassword:ApplicationPassword": 1,
        "pulumi-nodejs:dynamic/agent-user-kit:AgentIdentity": n,
        "pulumi-nodejs:dynamic/agent-user-kit:AgentUser": n,
        "azuread:index/servicePrincipalDelegatedPermissionGrant:ServicePrincipalDelegatedPermissionGrant": n,
      });

      made = await upMakesEveryObject(subject());
    });

    it(TOKEN_ALL, () => tokenForEveryAgent(subject()));

    it("a second preview and a refresh find no change", async () => {
      const { project } = subject();
      await project.ok(["preview", "--expect-no-changes"]);
      await project.ok(["refresh", "--yes", "--expect-no-changes"]);
    });

    it("refresh finds an agent identity renamed, an agent user deleted and a grant's scopes cut out of band, and up puts each back", async () => {
      const { project, emulator, agents, scopes } = subject();
      const [renamed, deleted, cut] = agents.map((name) => made.agents[name]!);
      const { store } = emulator;
      const name = store.agentIdentity(renamed!.agentIdentityId)!.displayName;
      store.updateServicePrincipal(renamed!.agentIdentityId, { displayName: "renamed out of band" });
      store.deleteUser(deleted!.agentUserId);
      store.changeGrantScope(graphGrantId(cut!.grantId), "User.Read");

      expect((await project.run(["refresh", "--yes", "--expect-no-changes"])).code).not.toBe(0);
      await project.ok(["refresh", "--yes"]);
      await project.ok(["up", "--yes", "--skip-preview"]);

      const after = (await project.outputs()).values.agents;
      expect(store.agentIdentity(renamed!.agentIdentityId)?.displayName).toBe(name);
      const recreated = after[agents[1]!]!;
      expect(recreated.agentUserId).not.toBe(deleted!.agentUserId);
      expect(store.user(recreated.agentUserId)?.identityParentId).toBe(deleted!.agentIdentityId);
      expect(store.grant(graphGrantId(recreated.grantId))?.principalId).toBe(recreated.agentUserId);
      expect(scopeSet(store.grant(graphGrantId(after[agents[2]!]!.grantId))?.scope)).toEqual(scopeSet(scopes));
      await project.ok(["preview", "--expect-no-changes"]);
      made = (await project.outputs()).values;
    });

    it(NO_SECRET, () => stateHoldsNoSecret(subject(), made));

    it(DESTROY, () => destroyLeavesNothing(subject(), made));
  });
}

/** A program that uses the kit as a component package, whatever its language. */
export interface PackageSubject extends LifecycleSubject {
  /** The stack's output names, as the program exports them. */
  outputs: readonly string[];
  /** What else up must have done, seen from the outputs and the emulator. */
  made?: (outputs: StackOutputsJson) => void;
}

/**
 * A component package consumer's stack through the life `agent-user token`
 * depends on: up makes every object, the stack outputs (under the names a
 * TypeScript stack uses) mint every agent's token, the state holds no secret
 * in clear, destroy leaves nothing.
 */
export function packageLifecycleTests(title: string, subject: () => PackageSubject): void {
  describe(title, () => {
    let made: StackOutputsJson;

    it("up makes the blueprint with its secret and, per agent, an identity, a user and a grant; the stack outputs name them as a TypeScript stack's do", async () => {
      made = await upMakesEveryObject(subject());
      expect(Object.keys(made).sort()).toEqual([...subject().outputs].sort());
      subject().made?.(made);
    });

    it(TOKEN_ALL, () => tokenForEveryAgent(subject()));

    // The client secret crossed from the plugin to the engine as an output of the component: still a secret.
    it(NO_SECRET, () => stateHoldsNoSecret(subject(), made));

    it(DESTROY, () => destroyLeavesNothing(subject(), made));
  });
}

const NO_SECRET = "the state, its backups and its history hold no secret in clear: not the blueprint's, the provisioner's or the passphrase";
const TOKEN_ALL = "agent-user token --all mints every agent's token from `pulumi stack output --json --show-secrets`";
const DESTROY = "destroy leaves none of the stack's objects, credentials and grants included";

/** `pulumi up`, then the objects the stack outputs name, each in the emulator and tied to the others; the outputs. */
async function upMakesEveryObject({ project, emulator, agents, scopes }: LifecycleSubject): Promise<StackOutputsJson> {
  await project.ok(["up", "--yes", "--skip-preview"]);
  const made = (await project.outputs()).values;
  expect(Object.keys(made.agents).sort()).toEqual([...agents].sort());
  const { store } = emulator;
  expect(store.applicationByAppId(made.blueprintAppId)?.passwordCredentials).toHaveLength(1);
  for (const agent of Object.values(made.agents)) {
    expect(store.user(agent.agentUserId)?.identityParentId).toBe(agent.agentIdentityId);
    const grant = store.grant(graphGrantId(agent.grantId));
    expect([grant?.clientId, grant?.principalId, scopeSet(grant?.scope)]).toEqual([agent.agentIdentityId, agent.agentUserId, scopeSet(scopes)]);
  }
  return made;
}

async function tokenForEveryAgent({ project, agents }: LifecycleSubject): Promise<void> {
  const { file } = await project.outputs();
  const run = await project.agentUser(["token", "--outputs", file, "--all"]);
  expect({ code: run.code, last: run.stdout.trim().split("\n").pop(), stderr: run.stderr }).toEqual({ code: 0, last: allMinted(agents.length), stderr: "" });
}

function stateHoldsNoSecret({ project, emulator }: LifecycleSubject, made: StackOutputsJson): void {
  const files = (readdirSync(project.stateDir, { recursive: true }) as string[]).filter((f) => statSync(join(project.stateDir, f)).isFile());
  const state = files.map((f) => readFileSync(join(project.stateDir, f), "utf8")).join("\n");
  expect(state).toContain(made.blueprintAppId);
  expect(typeof made.blueprintClientSecret).toBe("string");
  for (const secret of [String(made.blueprintClientSecret), emulator.provisioner()!.clientSecret, PASSPHRASE]) expect(state).not.toContain(secret);
}

async function destroyLeavesNothing({ project, emulator }: LifecycleSubject, made: StackOutputsJson): Promise<void> {
  await project.ok(["destroy", "--yes", "--skip-preview"]);
  expect(objectsLeft(emulator, made)).toEqual([]);
}
