/**
 * Raw Graph calls against a bare emulator tenant, for tests of the emulator's
 * directory surface itself: exact statuses, codes and bodies, with the
 * provisioner's token or a hand-made one.
 */
import { bareTenant, DEFAULT_IDS } from "../../emulator/seed";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../emulator/server";
import type { JwtClaims } from "../../lib/jwt";
import { requestToken, tokenEndpoint } from "../../lib/token-client";

export { DEFAULT_IDS };

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export interface Directory {
  emulator: Emulator;
  /** The provisioner's Graph token (client credentials, its PROVISIONER_ROLES). */
  token: string;
  call(method: string, path: string, options?: { body?: unknown; token?: string; odataVersion?: boolean }): Promise<Answer>;
  /** A Graph token the emulator signed, with these claims over a valid v1 base. */
  signed(claims: JwtClaims): string;
  close(): Promise<void>;
}

/**
 * An emulator (a bare tenant unless `setup.tenant` is given) and the
 * provisioner's Graph token, fetched once with the credential
 * `emulator.provisioner()` finds in that tenant.
 */
export async function startDirectory(setup: Pick<EmulatorOptions, "tenant" | "breaks"> = {}): Promise<Directory> {
  const emulator = await startEmulator({ ...setup, tenant: setup.tenant ?? bareTenant() });
  const p = emulator.provisioner();
  if (!p) {
    await emulator.close();
    throw new Error("startDirectory: the tenant has no provisioner (an application with a secret and Graph application permissions)");
  }
  const { response } = await requestToken("provisioner", tokenEndpoint(emulator.httpUrl, p.tenantId), {
    grant_type: "client_credentials",
    client_id: p.clientId,
    client_secret: p.clientSecret,
    scope: `${emulator.httpUrl}/.default`,
  });
  const token = response.access_token;
  return {
    emulator,
    token,
    async call(method, path, options = {}) {
      const res = await fetch(`${emulator.httpUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token ?? token}`,
          ...(options.odataVersion === false ? {} : { "odata-version": "4.0" }),
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    signed(claims) {
      const now = Math.floor(Date.now() / 1000);
      const base = { aud: "https://graph.microsoft.com", iss: `https://sts.windows.net/${p.tenantId}/`, tid: p.tenantId, ver: "1.0" };
      return emulator.key.sign({ ...base, iat: now, nbf: now, exp: now + 3600, ...claims });
    },
    close: () => emulator.close(),
  };
}

/** Graph's error code of an answer. */
export const codeOf = (answer: Answer) => (answer.body.error as { code?: string } | undefined)?.code;
export const messageOf = (answer: Answer) => (answer.body.error as { message?: string } | undefined)?.message ?? "";

export const sponsorBind = (d: Directory, id: string = DEFAULT_IDS.sponsorId) => [`${d.emulator.httpUrl}/v1.0/users/${id}`];

/** A blueprint and its principal, made through Graph. */
export async function blueprintWithPrincipal(d: Directory, displayName = "Blueprint"): Promise<{ id: string; appId: string; principalId: string }> {
  const blueprint = await d.call("POST", "/v1.0/applications/microsoft.graph.agentIdentityBlueprint", { body: { displayName, "sponsors@odata.bind": sponsorBind(d) } });
  const appId = blueprint.body.appId as string;
  const principal = await d.call("POST", "/v1.0/servicePrincipals/microsoft.graph.agentIdentityBlueprintPrincipal", { body: { appId } });
  return { id: blueprint.body.id as string, appId, principalId: principal.body.id as string };
}

/** An agent identity of the blueprint and its agent user, made through Graph. */
export async function identityWithUser(d: Directory, appId: string, name: string): Promise<{ identityId: string; userId: string }> {
  const identity = await d.call("POST", "/v1.0/servicePrincipals/microsoft.graph.agentIdentity", {
    body: { displayName: name, agentIdentityBlueprintId: appId, "sponsors@odata.bind": sponsorBind(d) },
  });
  const identityId = identity.body.id as string;
  const user = await d.call("POST", "/v1.0/users/microsoft.graph.agentUser", {
    body: { accountEnabled: true, displayName: name, mailNickname: name, userPrincipalName: `${name}@${DEFAULT_IDS.domain}`, identityParentId: identityId },
  });
  // Thrown here, so a test never goes on with an undefined user id and passes for the wrong reason.
  if (identity.status !== 201 || user.status !== 201) throw new Error(`identityWithUser(${JSON.stringify(name)}): Graph answered ${identity.status}, ${user.status}`);
  return { identityId, userId: user.body.id as string };
}
