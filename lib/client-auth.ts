import { certificateAssertion, JWT_BEARER, type LoadedCertificate } from "./client-assertion";

/**
 * How a client proves itself to a token endpoint: the form fields it adds to
 * a token request, as openid-client's ClientSecretPost and PrivateKeyJwt. The
 * blueprint (hop 1) and the provisioner each pick one from their credential,
 * so the fields of each method are written here only.
 */
export type ClientAuth = (clientId: string, tokenEndpoint: string) => Record<string, string>;

/** client_secret_post: the secret in the form. */
export const clientSecretPost =
  (secret: string): ClientAuth =>
  () => ({ client_secret: secret });

/** private_key_jwt: an assertion signed with the certificate's key for this client and endpoint, new on each request. */
export const privateKeyJwt =
  (certificate: LoadedCertificate): ClientAuth =>
  (clientId, tokenEndpoint) => ({ client_assertion_type: JWT_BEARER, client_assertion: certificateAssertion(clientId, tokenEndpoint, certificate) });

/** A federated credential: a token another issuer minted for this client (a managed identity's, a workload's OIDC token), as the assertion. */
export const federatedAssertion =
  (assertion: string): ClientAuth =>
  () => ({ client_assertion_type: JWT_BEARER, client_assertion: assertion });
