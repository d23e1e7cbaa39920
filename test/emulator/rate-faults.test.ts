import { parseFaultSpec } from "../../emulator/faults";
import { startEmulator, type Emulator } from "../../emulator/server";
import { SigningKey } from "../../emulator/signing-key";
import { decodeJwt } from "../../lib/jwt";
import { requestToken, tokenEndpoint } from "../../lib/token-client";

const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");

/** The tenant's clock held still: buckets refill on it, so a slow machine refills none between the requests. */
const hold = (emulator: Emulator) => {
  const at = Date.now();
  emulator.store.now = () => at;
};

describe("--faults idp-rate / graph-rate over HTTP", () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  it("parses the rates and refuses zero", () => {
    expect(parseFaultSpec("idp-rate=200,graph-rate=50").faults).toMatchObject({ idpRate: 200, graphRate: 50 });
    expect(() => parseFaultSpec("graph-rate=0")).toThrow(/graph-rate=0/);
  });

  it("answers the token request over the tenant's burst with 429, Retry-After and AADSTS90055", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("idp-rate=2").faults });
    hold(emulator);
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

  it("refuses an unknown tenant with AADSTS90002 before charging anything: never a 429, and the real tenant's burst untouched", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("idp-rate=1").faults });
    hold(emulator);
    const post = (tenant: string) => fetch(`${emulator.httpUrl}/${tenant}/oauth2/v2.0/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
    for (const tenant of ["made-up.onmicrosoft.com", "made-up.onmicrosoft.com", ...Array.from({ length: 8 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`)]) {
      const answer = await post(tenant);
      expect([tenant, answer.status, ((await answer.json()) as { error_codes: number[] }).error_codes]).toEqual([tenant, 400, [90002]]);
    }
    const real = await post(emulator.outputs().tenantId);
    expect([real.status, ((await real.json()) as { error_codes: number[] }).error_codes]).toEqual([400, [900144]]);
    // One bucket for the tenant, whichever name the URL gives it.
    expect((await post(emulator.outputs().tenantId)).status).toBe(429);
    expect((await post("contoso.onmicrosoft.com")).status).toBe(429);
  });

  it("limits Graph per calling application, with Graph's TooManyRequests envelope", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("graph-rate=1").faults });
    hold(emulator);
    // Tokens the emulator signed, whose only use here is to name the calling application.
    const get = (azp: string) => fetch(`${emulator.httpUrl}/v1.0/oauth2PermissionGrants`, { headers: { authorization: `Bearer ${emulator.key.sign({ azp })}` } });
    expect((await get("app-a")).status).not.toBe(429);
    const limited = await get("app-a");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe("TooManyRequests");
    // Another application has its own bucket.
    expect((await get("app-b")).status).not.toBe(429);
  });

  it("charges Graph to the application of a token it signed: a flood of forged tokens naming a client does not spend that client's quota", async () => {
    emulator = await startEmulator({ faults: parseFaultSpec("graph-rate=1").faults });
    const p = emulator.provisioner()!;
    const { response } = await requestToken("provisioner", tokenEndpoint(emulator.httpUrl, p.tenantId), {
      grant_type: "client_credentials",
      client_id: p.clientId,
      client_secret: p.clientSecret,
      scope: "https://graph.microsoft.com/.default",
    });
    const real = decodeJwt(response.access_token)!;
    expect(real.claims.appid ?? real.claims.azp).toBe(p.clientId);
    // The client's own claims, unsigned and signed by another key under the emulator's kid.
    const forged = [
      `${part({ alg: "none", typ: "JWT" })}.${part(real.claims)}.`,
      `${part(real.header)}.${part(real.claims)}.c2ln`,
      new SigningKey().sign(real.claims).replace(/^[^.]+/, part(real.header)),
    ];
    const get = (token: string) => fetch(`${emulator.httpUrl}/v1.0/servicePrincipals?$filter=appId eq '${p.clientId}'`, { headers: { authorization: `Bearer ${token}` } });
    const flood = await Promise.all(Array.from({ length: 30 }, (_, i) => get(forged[i % forged.length]!)));
    expect(flood.map((r) => r.status).filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(flood.some((r) => r.status === 429)).toBe(true);
    const answer = await get(response.access_token);
    expect(answer.status).toBe(200);
  });
});
