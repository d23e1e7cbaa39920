/**
 * The test-only password grant signs a person in only when the start asks
 * for one: `testUser` (what `--test-user-out` sets) or the onBehalfOf
 * feature, whose flow needs a person's token. Otherwise no seeded person has
 * a password, and a password sign-in gets Entra's answer for an account
 * without one (AADSTS50056, entra-docs identity-platform/reference-error-codes.md).
 */
import { DEFAULT_IDS, defaultTenant, fleetTenant } from "../../emulator/seed";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator/server";
import type { Feature } from "../../lib/graph-permissions";

const PERSON = `ada@${DEFAULT_IDS.domain}`;

/** A password sign-in of the seeded person through the seeded public client, for the blueprint's scope. */
async function signIn(emulator: Emulator, password: string): Promise<[number, unknown, unknown]> {
  const res = await fetch(`${emulator.httpUrl}/${DEFAULT_IDS.tenantId}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", client_id: DEFAULT_IDS.testClientAppId, username: PERSON, password, scope: `api://${DEFAULT_IDS.blueprintAppId}/access_agent` }),
  });
  const body = (await res.json()) as { error?: string; error_codes?: number[] };
  return [res.status, body.error, body.error_codes];
}

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

it("no built-in seed gives anyone a password: a start must ask for a person", () => {
  for (const seed of [defaultTenant(), fleetTenant(3)]) expect(seed.users.filter((u) => u.password !== undefined)).toEqual([]);
});

const NO_PERSON: Array<[string, EmulatorOptions]> = [
  ["no option", {}],
  ["the appRoles feature alone", { features: ["appRoles"] as Feature[] }],
  ["testUser false", { testUser: false }],
];

it.each(NO_PERSON)("%s: no test user, and a password sign-in of the sponsor is AADSTS50056 (the account has no password)", async (_name, options) => {
  emulator = await startEmulator(options);
  expect(emulator.testUser()).toBeUndefined();
  expect(emulator.store.user(DEFAULT_IDS.sponsorId)!.password).toBeUndefined();
  expect(await signIn(emulator, "emu-pw~anything")).toEqual([400, "invalid_grant", [50056]]);
  // An empty password is no way in either: the parameter is required, and the account still has none.
  expect((await signIn(emulator, ""))[0]).toBe(400);
});

const PERSON_ASKED: Array<[string, EmulatorOptions]> = [
  ["testUser (--test-user-out)", { testUser: true }],
  ["the onBehalfOf feature", { features: ["onBehalfOf"] as Feature[] }],
  ["testUser on a tenant the caller seeds", { testUser: true, tenant: defaultTenant() }],
];

it.each(PERSON_ASKED)("%s: the sponsor gets a fresh password, and signs in with it alone", async (_name, options) => {
  emulator = await startEmulator(options);
  const user = emulator.testUser()!;
  expect(user.username).toBe(PERSON);
  expect(user.password).toMatch(/^emu-pw~[A-Za-z0-9_-]{24}$/);
  expect((await signIn(emulator, user.password))[0]).toBe(200);
  expect(await signIn(emulator, `${user.password}x`)).toEqual([400, "invalid_grant", [50126]]);
});

it("a password the caller's own seed gives a person is kept, and no other person is given one", async () => {
  const tenant = defaultTenant();
  tenant.users.find((u) => u.id === DEFAULT_IDS.sponsorId)!.password = "their-own-test-password";
  emulator = await startEmulator({ tenant, testUser: true });
  expect(emulator.testUser()!.password).toBe("their-own-test-password");
  expect(emulator.store.users("user").filter((u) => u.password !== undefined).map((u) => u.id)).toEqual([DEFAULT_IDS.sponsorId]);
});
