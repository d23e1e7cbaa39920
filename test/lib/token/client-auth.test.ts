/**
 * The blueprint (hop 1) and the provisioner authenticate their token
 * requests through one client-auth value: given the same client, endpoint
 * and credential, both send the same form fields, and those fields are what
 * the value adds.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfSignedCertificate } from "../../../emulator/certificate";
import { loadCertificate } from "../../../lib/client-assertion";
import { clientSecretPost, federatedAssertion, privateKeyJwt, type ClientAuth } from "../../../lib/client-auth";
import type { BlueprintCredential } from "../../../lib/blueprint-credential";
import { TokenSource } from "../../../lib/token-source";
import { agentUserToken } from "../../harness";
import { decodeJwt } from "../../../lib/jwt";
import { tokenEndpoint } from "../../../lib/token-client";
import { provisionerToken } from "../../../infra/provisioner-credential";
import { forgetProvisioner } from "../../provisioner-state";
import { startFakeDirectory } from "../../infra/fake-directory";

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT = "0c000000-0000-0000-0000-00000000000c";
const dir = mkdtempSync(join(tmpdir(), "client-auth-"));
const cert = selfSignedCertificate({ commonName: "client-auth" });
const bundle = join(dir, "bundle.pem");
writeFileSync(bundle, `${cert.certificatePem}\n${cert.privateKeyPem}`);
const federatedFile = join(dir, "federated-token");
writeFileSync(federatedFile, "federated.workload.token\n");

let directory: Awaited<ReturnType<typeof startFakeDirectory>>;
let endpoint: string;
beforeAll(async () => {
  directory = await startFakeDirectory({ accessToken: "not-checked-here" });
  endpoint = tokenEndpoint(directory.url, TENANT);
});
afterAll(() => directory.close());

/** The client-auth fields of a token request: everything but what says which token is asked for. */
function authFields(body: string): Record<string, string> {
  const form = Object.fromEntries(new URLSearchParams(body));
  for (const field of ["grant_type", "client_id", "scope", "fmi_path"]) delete form[field];
  // A signed assertion is new on each request (jti, times): compare what it says, not its bytes.
  const jwt = form.client_assertion ? decodeJwt(form.client_assertion) : undefined;
  if (jwt) {
    const { jti, nbf, iat, exp, ...claims } = jwt.claims;
    expect([typeof jti, (exp ?? 0) - (nbf ?? 0), iat]).toEqual(["string", 300, nbf]);
    form.client_assertion = JSON.stringify({ header: jwt.header, claims });
  }
  return form;
}

async function blueprintSends(credential: BlueprintCredential): Promise<Record<string, string>> {
  const from = directory.seen.length;
  const chain = new TokenSource({ authorityUrl: directory.url, tenantId: TENANT, blueprintAppId: CLIENT, credential });
  // The fake directory's token is no JWT, so the chain ends in a refusal after hop 1 was sent.
  await expect(agentUserToken(chain, { agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9", agentUser: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d", resourceUrl: "https://graph.microsoft.com" })).rejects.toThrow(/not a JWT/);
  return authFields(directory.seen[from]!.body);
}

async function provisionerSends(env: Record<string, string>): Promise<Record<string, string>> {
  forgetProvisioner();
  const from = directory.seen.length;
  await provisionerToken(directory.url, "https://graph.microsoft.com", { now: Date.now, env: { ARM_TENANT_ID: TENANT, ARM_CLIENT_ID: CLIENT, ...env } });
  return authFields(directory.seen[from]!.body);
}

it.each<[string, BlueprintCredential, Record<string, string>, () => ClientAuth, Record<string, string>]>([
  ["a client secret", { kind: "secret", secret: "shared-secret" }, { ARM_CLIENT_SECRET: "shared-secret" }, () => clientSecretPost("shared-secret"), { client_secret: "shared-secret" }],
  ["a certificate", { kind: "certificate", certificate: loadCertificate(cert, "blueprint") }, { ARM_CLIENT_CERTIFICATE_PATH: bundle }, () => privateKeyJwt(loadCertificate(cert, "test")), { client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" }],
  [
    "a federated token file",
    { kind: "managedIdentity", tokenFile: federatedFile },
    { ARM_OIDC_TOKEN_FILE_PATH: federatedFile },
    () => federatedAssertion("federated.workload.token"),
    { client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: "federated.workload.token" },
  ],
])("%s: the blueprint and the provisioner send the same client-auth fields, those of the one value", async (_name, blueprint, provisioner, auth, expected) => {
  const sent = await blueprintSends(blueprint);
  expect(await provisionerSends(provisioner)).toEqual(sent);
  expect(authFields(new URLSearchParams(auth()(CLIENT, endpoint)).toString())).toEqual(sent);
  expect(sent).toMatchObject(expected);
  if (sent.client_assertion?.startsWith("{")) {
    expect(JSON.parse(sent.client_assertion)).toMatchObject({ header: { alg: "PS256" }, claims: { aud: endpoint, iss: CLIENT, sub: CLIENT } });
  }
});
