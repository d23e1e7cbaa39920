import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultTenant, loadTenantFile } from "../../emulator/seed";
import { UsageError } from "../../lib/errors";

describe("loadTenantFile (agent-user emulator --tenant FILE)", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "agent-user-seed-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const load = (tenant: unknown) => {
    const file = join(dir, "tenant.json");
    writeFileSync(file, JSON.stringify(tenant));
    return () => loadTenantFile(file);
  };

  it("names the first bad entry and field instead of crashing later", () => {
    const base = defaultTenant();
    expect(load({ ...base, applications: [null] })).toThrow(new UsageError(`tenant file ${join(dir, "tenant.json")}: applications[0] must be an object`));
    const users = base.users.map((u, i) => (i === 1 ? { ...u, userPrincipalName: 42 } : u));
    expect(load({ ...base, users })).toThrow(/users\[1\]\.userPrincipalName must be a string/);
    const sps = base.servicePrincipals.map((sp, i) => (i === 0 ? { ...sp, graphAppRoles: "all" } : sp));
    expect(load({ ...base, servicePrincipals: sps })).toThrow(/servicePrincipals\[0\]\.graphAppRoles must be an array/);
  });

  it("takes an object's createdByAppId as a string, or none; the built-in tenant's chain names the provisioner", () => {
    const base = defaultTenant();
    const app = { id: "a1", appId: "b1", kind: "application", displayName: "made by another app", createdByAppId: "c1" };
    expect(load({ ...base, applications: [app] })().applications[0]!.createdByAppId).toBe("c1");
    expect(load({ ...base, applications: [{ ...app, createdByAppId: 7 }] })).toThrow(/applications\[0\]\.createdByAppId must be a string when given/);
    const made = [...base.applications, ...base.servicePrincipals].filter((o) => o.kind !== "application" && o.kind !== "servicePrincipal");
    expect(made.map((o) => [o.kind, o.createdByAppId])).toEqual(made.map((o) => [o.kind, base.applications[0]!.appId]));
  });

  it("fills absent lists, so a hand-written application needs only its ids, kind and name", () => {
    const base = defaultTenant();
    const app = { id: "a1", appId: "b1", kind: "application", displayName: "hand-written" };
    const seed = load({ ...base, applications: [app] })();
    expect(seed.applications[0]).toEqual({ ...app, sponsors: [], owners: [], passwordCredentials: [], keyCredentials: [], federatedIdentityCredentials: [] });
  });

  it("takes groups, which a file may leave out: a group needs its id and name; groupTypes and isAssignableToRole default to none and false", () => {
    const { groups, ...base } = defaultTenant();
    expect(groups).toHaveLength(1);
    expect(load(base)().groups).toEqual([]);
    expect(load({ ...base, groups: [{ id: "g1", displayName: "Sponsors" }] })().groups).toEqual([{ id: "g1", displayName: "Sponsors", groupTypes: [], isAssignableToRole: false }]);
    expect(load({ ...base, groups: {} })).toThrow(/"groups" must be an array/);
    expect(load({ ...base, groups: [{ id: "g1" }] })).toThrow(/groups\[0\]\.displayName must be a string/);
    expect(load({ ...base, groups: [{ id: "g1", displayName: "x", isAssignableToRole: "yes" }] })).toThrow(/groups\[0\]\.isAssignableToRole must be true or false/);
  });
});
