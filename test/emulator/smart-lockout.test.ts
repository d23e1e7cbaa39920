/**
 * Smart lockout on the test-only password grant, as entra-docs
 * identity/authentication/howto-password-smart-lockout.md describes Entra's
 * defaults for Azure Public: locked after 10 failed sign-ins, for 60 seconds
 * at first and longer after, locked again by the first failure after a
 * lockout, the same bad password not counted twice (the last three are
 * tracked), and AADSTS50053 whatever the password while locked. Every wait
 * is on the tenant's clock, held by the test: nothing waits on the wall clock.
 */
import { DEFAULT_IDS, defaultTenant } from "../../emulator/seed";
import { startEmulator, type Emulator, type TestUser } from "../../emulator/server";
import { lockoutDurationMs } from "../../emulator/smart-lockout";

let emulator: Emulator;
let person: TestUser;
let at: number;

beforeEach(async () => {
  emulator = await startEmulator({ testUser: true });
  person = emulator.testUser()!;
  at = Date.now();
  emulator.store.now = () => at;
});
afterEach(() => emulator.close());

/** Moves the tenant's clock on. */
const wait = (ms: number) => void (at += ms);

/** The answer's status and AADSTS codes for a password sign-in of the seeded person. */
async function signIn(password: string): Promise<[number, unknown]> {
  const res = await fetch(`${emulator.httpUrl}/${person.tenantId}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", client_id: person.clientId, username: person.username, password, scope: person.scope }),
  });
  const body = (await res.json()) as { error_codes?: number[] };
  return [res.status, body.error_codes];
}

const WRONG: [number, unknown] = [400, [50126]];
const LOCKED: [number, unknown] = [400, [50053]];
const OK: [number, unknown] = [200, undefined];

/** `n` failed sign-ins, each with a bad password not used before. */
async function fail(n: number, tag = "guess"): Promise<void> {
  for (let i = 0; i < n; i++) expect(await signIn(`${tag}-${i}`)).toEqual(WRONG);
}

it("locks the account after 10 failed sign-ins: even the right password is AADSTS50053 until 60 s have passed on the tenant's clock", async () => {
  await fail(10);
  expect(await signIn(person.password)).toEqual(LOCKED);
  expect(await signIn("another-guess")).toEqual(LOCKED);
  wait(59_999);
  expect(await signIn(person.password)).toEqual(LOCKED);
  wait(1);
  expect(await signIn(person.password)).toEqual(OK);
});

it("does not lock at 9 failures, and a right password then starts the count again", async () => {
  await fail(9, "first");
  expect(await signIn(person.password)).toEqual(OK);
  await fail(9, "second");
  expect(await signIn(person.password)).toEqual(OK);
});

it("does not count the same bad password twice: the last three bad ones are tracked", async () => {
  for (let i = 0; i < 30; i++) expect(await signIn(["one", "two", "three"][i % 3]!)).toEqual(WRONG);
  expect(await signIn(person.password)).toEqual(OK);
});

it("counts a bad password again once three others came after it", async () => {
  // one, two, three, four: "one" has left the last three, so it counts anew, as each of these does.
  const order = ["one", "two", "three", "four", "one", "two", "three", "four", "one", "two"];
  for (const password of order) expect(await signIn(password)).toEqual(WRONG);
  expect(await signIn(person.password)).toEqual(LOCKED);
});

it("takes no guesses while locked: sign-ins then are neither checked nor counted", async () => {
  await fail(10);
  await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(`while-locked-${i}`)));
  wait(60_000);
  expect(await signIn(person.password)).toEqual(OK);
});

it("locks again at the first failure after a lockout, for longer than the first time", async () => {
  await fail(10);
  wait(60_000);
  expect(await signIn("after-the-lockout")).toEqual(WRONG);
  expect(await signIn(person.password)).toEqual(LOCKED);
  wait(60_000);
  expect(await signIn(person.password)).toEqual(LOCKED);
  wait(60_000);
  expect(await signIn(person.password)).toEqual(OK);
  // A sign-in that succeeds ends the lockouts' run: the next failure is one of 10 again.
  await fail(9, "later");
  expect(await signIn(person.password)).toEqual(OK);
});

it("locks each account on its own count", async () => {
  await emulator.close();
  const tenant = defaultTenant();
  tenant.users.find((u) => u.id === DEFAULT_IDS.sponsorId)!.password = "adas-test-password";
  tenant.users.push({ id: "0a1b2c3d-4e5f-4a6b-8c7d-00000000b0b0", kind: "user", displayName: "Bob", userPrincipalName: `bob@${DEFAULT_IDS.domain}`, mailNickname: "bob", accountEnabled: true, password: "bobs-test-password" });
  emulator = await startEmulator({ tenant, testUser: true });
  emulator.store.now = () => at;
  person = emulator.testUser()!;
  expect(person.password).toBe("adas-test-password");
  await fail(10);
  expect(await signIn(person.password)).toEqual(LOCKED);
  person = { ...person, username: `bob@${DEFAULT_IDS.domain}`, password: "bobs-test-password" };
  expect(await signIn(person.password)).toEqual(OK);
});

it("doubles each lockout of a run from 60 s, to at most 1,024 minutes", () => {
  expect([1, 2, 3, 11, 12, 10_000].map(lockoutDurationMs)).toEqual([60_000, 120_000, 240_000, 61_440_000, 61_440_000, 61_440_000]);
});
