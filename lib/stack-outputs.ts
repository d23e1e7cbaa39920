/**
 * The stack outputs of infra/, which are also what `agent-user token --outputs`
 * reads and what the emulator writes for its seeded tenant: one list of names.
 */
export interface StackOutputs {
  tenantId: string;
  authorityUrl: string;
  graphUrl: string;
  resourceUrl: string;
  blueprintAppId?: string;
  blueprintObjectId?: string;
  blueprintPrincipalId?: string;
  /** Only in `secret` credential mode; a Pulumi secret. */
  blueprintClientSecret?: string;
  /** Only in `managedIdentity` credential mode. */
  managedIdentityClientId?: string;
  agentIdentityId?: string;
  agentUserId?: string;
  agentUserPrincipalName?: string;
  grantId?: string;
  grantScopes?: string;
}

export const STACK_OUTPUT_KEYS = [
  "tenantId",
  "authorityUrl",
  "graphUrl",
  "resourceUrl",
  "blueprintAppId",
  "blueprintObjectId",
  "blueprintPrincipalId",
  "blueprintClientSecret",
  "managedIdentityClientId",
  "agentIdentityId",
  "agentUserId",
  "agentUserPrincipalName",
  "grantId",
  "grantScopes",
] as const satisfies ReadonlyArray<keyof StackOutputs>;

export const PUBLIC_CLOUD = {
  authorityUrl: "https://login.microsoftonline.com",
  graphUrl: "https://graph.microsoft.com",
  resourceUrl: "https://graph.microsoft.com",
} as const;
