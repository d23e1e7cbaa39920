/**
 * The fleet benchmark's workloads (test/bench/fleet.ts), small, so the
 * figures `npm run bench` reports come from code that is checked: provisioning
 * under graph-rate and minting under idp-rate end with no failure, no
 * duplicate object and exactly the requests the hop chain's sharing promises.
 */
import { fleetProvider, fleetTokens, provisionFleet, refreshStorm, startFleetEmulator, type FleetEmulator } from "../bench/fleet";

it("provisions 6 agents at concurrency 3 under graph-rate=10: no failure, no duplicate, no faster than the limit allows", async () => {
  const figures = await provisionFleet(6, 3, 10);
  expect(figures).toMatchObject({ agents: 6, failures: 0, duplicates: 0 });
  // Per agent: the parent and lookup reads and the POST for the identity and for the user, and the grant.
  expect(figures.graphRequests).toBeGreaterThanOrEqual(6 * 7);
  // The bucket's burst (10) passes at once; the rest at 10 a second.
  expect(figures.ms).toBeGreaterThanOrEqual(((figures.graphRequests - 10) / 10) * 1000 - 200);
}, 60_000);

describe("12 agent users under 4 identities at idp-rate=10", () => {
  let fleet: FleetEmulator;
  beforeAll(async () => void (fleet = await startFleetEmulator(4, 3, 10)));
  afterAll(() => fleet.emulator.close());

  it("cold tokens cost 2 requests per identity and 1 per agent user, none failed; then a refresh storm fails no call", async () => {
    const offset = { ms: 0 };
    const run = fleetProvider(fleet, offset);
    try {
      const tokens = await fleetTokens(fleet, run.client, 6, 10);
      expect(tokens).toMatchObject({ tokenRequests: 2 * 4 + 12, failures: 0 });
      const storm = await refreshStorm(fleet, run, offset, 6, 20_000);
      expect(storm).toMatchObject({ failures: 0, refreshed: 12 });
      // Calls are served from the cache while the refreshes go through the limit.
      expect(storm.maxWaitMs).toBeLessThan(1_000);
    } finally {
      await run.close();
    }
  }, 60_000);
});
