import { parseFaultSpec } from "../../emulator/faults";
import { startEmulator, type Emulator } from "../../emulator/server";

/** An unsigned token whose only use here is to name the calling application. */
function tokenFor(azp: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part({ azp })}.c2ln`;
}

describe("--faults idp-rate / graph-rate over HTTP", () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  it("parses the rates and refuses zero", () => {
    expect(parseFaultSpec("idp-rate=200,graph-rate=50").faults).toMatchObject({ idpRate: 200, graphRate: 50 });
    expect(() => parseFaultSpec("graph-rate=0")).toThrow(/graph-rate=0/);
  });

  it("answers the token request over the tenant's burst with 429, Retry-After and AADSTS90055", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("idp-rate=2").faults });
    const url = `${emulator.httpUrl}/${emulator.outputs().tenantId}/oauth2/v2.0/token`;
    const post = () => fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
    const answers = [await post(), await post(), await post()];
    expect(answers.slice(0, 2).map((r) => r.status)).not.toContain(429);
    const limited = answers[2];
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    const body = (await limited.json()) as { error: string; error_codes: number[] };
    expect(body.error_codes).toEqual([90055]);
  });

  it("limits Graph per calling application, with Graph's TooManyRequests envelope", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("graph-rate=1").faults });
    const get = (azp: string) => fetch(`${emulator.httpUrl}/v1.0/oauth2PermissionGrants`, { headers: { authorization: `Bearer ${tokenFor(azp)}` } });
    expect((await get("app-a")).status).not.toBe(429);
    const limited = await get("app-a");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("TooManyRequests");
    // Another application has its own bucket.
    expect((await get("app-b")).status).not.toBe(429);
  });
});
