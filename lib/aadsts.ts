/**
 * What to do about each AADSTS code the agent-user flow can meet
 * (docs/protocol.md, "AADSTS codes"). A setting is named as the library's
 * option; the CLI names its flag instead (probes/report.ts, cliHint).
 */
const HINTS: Readonly<Record<number, string>> = {
  7000216: "the request carried no client credential; configure a blueprint secret, certificate, or managed identity",
  7000215: "the client secret is wrong; use the secret's value (not its id), e.g. `pulumi stack output --show-secrets blueprintClientSecret`",
  7000222: "the client secret has expired; rotate it by changing secretEndDate and running `pulumi up`",
  700016:
    "the client id is unknown in this tenant; check the id and the tenant, or, right after `pulumi up`, wait up to 2 minutes for replication (consistencyWindowMs: 120000)",
  90002: "the tenant was not found; check the tenant id or domain and the authority URL",
  82008: "hop 1 must send fmi_path (the agent identity id) with the api://AzureADTokenExchange/.default scope",
  700024: "the client assertion is expired or not yet valid; check this machine's clock",
  700027: "the assertion's signature did not verify; the private key does not match the certificate uploaded to the blueprint",
  70021:
    "no federated credential on the blueprint matches the assertion; check its issuer, subject (the managed identity's principal id) and audience api://AzureADTokenExchange",
  700211: "no federated credential matches the assertion's issuer; check the blueprint's federated identity credential",
  700213: "no federated credential matches the assertion's subject; it must be the managed identity's principal (object) id",
  700212: "no federated credential matches the assertion's audience; it must be api://AzureADTokenExchange",
  7002121: "no federated credential matches the assertion's audience; it must be api://AzureADTokenExchange",
  900144: "a required parameter is missing from the token request; this is a bug in the caller, please report it",
  70011: "the scope is invalid; ask for {resource}/.default, e.g. https://graph.microsoft.com/.default",
  500011:
    "the resource is not in this tenant; check `resource` or add the resource's service principal; in hop 1 the resource is the token-exchange audience: check `tokenExchangeAudience`",
  65001:
    "no permission grant for this agent identity and agent user; run `pulumi up`, or wait up to 2 minutes for replication (consistencyWindowMs: 120000)",
  50000: "a UPN was sent as user_id; pass a UPN as the agent user and it is sent as username",
  50034:
    "the agent user was not found; check the agent user id or UPN and the tenant, or, right after `pulumi up`, wait up to 2 minutes for replication (consistencyWindowMs: 120000)",
  7000112: "the agent identity (or application) is disabled; enable it again (accountEnabled) in the Entra admin center, or run `agent-user doctor`",
  50057: "the agent user is disabled; enable the account (accountEnabled) or use another agent user",
  90055: "the identity provider is throttling requests; retry later",
  90024: "the identity provider is busy; retry later",
  7000229: "the blueprint has no service principal in this tenant; create the blueprint principal (`pulumi up` does)",
  700021: "the certificate assertion's iss and sub must both be the blueprint's appId",
  700023: "the certificate assertion's aud must be the token endpoint URL of this tenant",
  50027: "the client assertion is not a well-formed JWT",
  70003: "the grant type is not supported; this is a bug in the caller, please report it",
  90014: "a required field is missing from the request; this is a bug in the caller, please report it",
};

// Predicates rather than Sets: dynamic providers carry lib/ through Pulumi's
// closure serializer, which cannot carry a Set.

/** Codes Entra uses for throttling and transient faults. */
export function isTransientAadsts(code: number): boolean {
  return code === 90055 || code === 90024;
}

/** Codes that mean "not replicated yet" right after an object (client or agent user) or grant was created. */
export function isReplicationAadsts(code: number): boolean {
  return code === 700016 || code === 65001 || code === 50034;
}

export function aadstsHint(codes: readonly number[], error: string): string {
  for (const code of codes) {
    const hint = HINTS[code];
    if (hint) return hint;
  }
  if (error === "invalid_grant") {
    return "the identity provider refused the grant; check that the blueprint, agent identity and agent user belong together";
  }
  if (codes.length > 0) return `see the error description and https://login.microsoftonline.com/error?code=${codes[0]}`;
  return "the answer carries no AADSTS code: check the authority URL and any proxy in front of it, then the error description";
}
