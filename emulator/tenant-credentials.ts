/** The credentials the emulated tenant holds: an application's passwords, federated credentials and certificates, and managed identities. */

export interface PasswordCredential {
  keyId: string;
  displayName: string | null;
  hint: string;
  /** Kept only so the token endpoint can compare; never served back after addPassword. */
  secretText: string;
  startDateTime: string;
  endDateTime: string;
}

export interface FederatedIdentityCredential {
  id: string;
  name: string;
  issuer: string;
  subject: string;
  audiences: string[];
  description?: string | null;
}

export interface KeyCredential {
  keyId: string;
  displayName: string | null;
  type: "AsymmetricX509Cert";
  usage: "Verify";
  /** base64 DER of the certificate. */
  key: string;
  startDateTime: string;
  endDateTime: string;
}

/** A user-assigned managed identity, reachable through the emulated IMDS endpoint. */
export interface ManagedIdentity {
  clientId: string;
  principalId: string;
}
