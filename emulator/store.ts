import { randomUUID } from "node:crypto";

/**
 * The one store of tenant state. Handlers read and change it; nothing else
 * keeps tenant data. Every object records when it was written, so the token
 * endpoint can play Entra's replication lag.
 */

export { MICROSOFT_GRAPH_APP_ID as GRAPH_APP_ID } from "../lib/well-known";
export const GRAPH_RESOURCE = "https://graph.microsoft.com";
export const TOKEN_EXCHANGE_APP_ID = "fb60f99c-7a34-4190-8149-302f77469936";
export const TOKEN_EXCHANGE_RESOURCE = "api://AzureADTokenExchange";

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

export type ApplicationKind = "application" | "agentIdentityBlueprint";

export interface Application {
  id: string;
  appId: string;
  kind: ApplicationKind;
  displayName: string;
  uniqueName?: string | null;
  /** Free-form tags; the blueprint provider finds its own blueprint by one. */
  tags?: string[];
  sponsors: string[];
  owners: string[];
  passwordCredentials: PasswordCredential[];
  keyCredentials: KeyCredential[];
  federatedIdentityCredentials: FederatedIdentityCredential[];
  createdAt: number;
}

/** A delegated permission a resource API publishes (Graph's permissionScope). */
export interface PermissionScope {
  id: string;
  value: string;
  type: "User" | "Admin";
  isEnabled: boolean;
  adminConsentDisplayName: string;
  adminConsentDescription: string;
  userConsentDisplayName: string | null;
  userConsentDescription: string | null;
}

export type ServicePrincipalKind = "servicePrincipal" | "agentIdentityBlueprintPrincipal" | "agentIdentity";

export interface ServicePrincipal {
  id: string;
  appId: string;
  kind: ServicePrincipalKind;
  displayName: string;
  servicePrincipalType: "Application" | "ServiceIdentity" | "ManagedIdentity";
  /** Identifier URIs this principal answers to as a token resource, e.g. https://graph.microsoft.com. */
  servicePrincipalNames: string[];
  /** For agent identities: the blueprint's appId. */
  agentIdentityBlueprintId?: string;
  sponsors: string[];
  /** Object ids of the principals that created it: owners may manage it with create-only permissions. */
  owners?: string[];
  /** Application permissions granted to this principal on Microsoft Graph. */
  graphAppRoles: string[];
  /** False when an administrator disabled it: no token is issued to it. Enabled when absent. */
  accountEnabled?: boolean;
  /** The delegated permissions this principal publishes as a resource API. */
  oauth2PermissionScopes?: PermissionScope[];
  createdAt: number;
}

export type UserKind = "user" | "agentUser";

export interface User {
  id: string;
  kind: UserKind;
  displayName: string;
  userPrincipalName: string;
  mailNickname: string;
  accountEnabled: boolean;
  /** For agent users: the agent identity's object id. */
  identityParentId?: string;
  createdAt: number;
}

export interface PermissionGrant {
  id: string;
  clientId: string;
  consentType: "Principal" | "AllPrincipals";
  principalId: string | null;
  resourceId: string;
  scope: string;
  /** Creates and changes reach the token endpoint only from this moment. */
  effectiveAt: number;
  /** The scope tokens see until effectiveAt; undefined when the grant did not exist before. */
  previousScope?: string;
}

/** A user-assigned managed identity, reachable through the emulated IMDS endpoint. */
export interface ManagedIdentity {
  clientId: string;
  principalId: string;
}

export interface Comment {
  id: string;
  content: string;
  replies: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

export interface DriveItem {
  driveId: string;
  id: string;
  name: string;
  webUrl: string;
  /** The sharing URL whose u! id resolves to this item. */
  shareUrl: string;
  /** Answer the comments endpoints with 404 itemNotFound, as Graph does for Word documents. */
  commentsNotFound?: boolean;
  comments: Comment[];
  [field: string]: unknown;
}

/** What the store is seeded with: the same shape as `--tenant FILE`. */
export interface TenantSeed {
  tenantId: string;
  domains: string[];
  applications: Array<Omit<Application, "createdAt">>;
  servicePrincipals: Array<Omit<ServicePrincipal, "createdAt">>;
  users: Array<Omit<User, "createdAt">>;
  grants: Array<Omit<PermissionGrant, "effectiveAt" | "previousScope">>;
  managedIdentities: ManagedIdentity[];
  driveItems: DriveItem[];
}

/** Objects created at seed time are old enough to be replicated everywhere. */
const LONG_AGO = 0;

export class TenantStore {
  readonly tenantId: string;
  readonly domains: string[];
  readonly applications = new Map<string, Application>();
  readonly servicePrincipals = new Map<string, ServicePrincipal>();
  readonly users = new Map<string, User>();
  readonly grants = new Map<string, PermissionGrant>();
  readonly managedIdentities: ManagedIdentity[];
  readonly driveItems: DriveItem[];
  /** How long a new object stays unknown to the token endpoint, and a grant change unseen. */
  replicationLagMs = 0;
  now: () => number = Date.now;

  constructor(seed: TenantSeed) {
    this.tenantId = seed.tenantId;
    this.domains = [...seed.domains];
    for (const app of seed.applications) this.applications.set(app.id, structuredClone({ ...app, createdAt: LONG_AGO }));
    for (const sp of seed.servicePrincipals) this.servicePrincipals.set(sp.id, structuredClone({ ...sp, createdAt: LONG_AGO }));
    for (const user of seed.users) this.users.set(user.id, structuredClone({ ...user, createdAt: LONG_AGO }));
    for (const grant of seed.grants) this.grants.set(grant.id, { ...grant, effectiveAt: LONG_AGO });
    this.managedIdentities = structuredClone(seed.managedIdentities);
    this.driveItems = structuredClone(seed.driveItems);
  }

  /** Whether an object written at `createdAt` has reached the token endpoint. */
  replicated(createdAt: number): boolean {
    return this.now() >= createdAt + this.replicationLagMs;
  }

  newId(): string {
    return randomUUID();
  }

  /** The creation time for an object written now. */
  stamp(): number {
    return this.now();
  }

  isTenant(tenant: string): boolean {
    const t = tenant.toLowerCase();
    return t === this.tenantId || this.domains.some((d) => d.toLowerCase() === t);
  }

  // Entra compares GUIDs without regard to case; the store keeps them as seeded or created (lower case).
  applicationByAppId(appId: string): Application | undefined {
    const wanted = appId.toLowerCase();
    for (const app of this.applications.values()) if (app.appId.toLowerCase() === wanted) return app;
    return undefined;
  }

  servicePrincipalByAppId(appId: string): ServicePrincipal | undefined {
    for (const sp of this.servicePrincipals.values()) if (sp.appId === appId && sp.kind !== "agentIdentity") return sp;
    return undefined;
  }

  /** Agent identities are addressed by object id; their appId is the same value. */
  agentIdentity(id: string): ServicePrincipal | undefined {
    const sp = this.servicePrincipals.get(id) ?? this.servicePrincipals.get(id.toLowerCase());
    return sp?.kind === "agentIdentity" ? sp : undefined;
  }

  /** The service principal a token `{resource}/.default` scope names, by appId or identifier URI. */
  resourceByIdentifier(resource: string): ServicePrincipal | undefined {
    const r = resource.replace(/\/+$/, "").toLowerCase();
    for (const sp of this.servicePrincipals.values()) {
      if (sp.appId.toLowerCase() === r || sp.servicePrincipalNames.some((n) => n.replace(/\/+$/, "").toLowerCase() === r)) return sp;
    }
    return undefined;
  }

  userByIdOrUpn(value: string): User | undefined {
    const direct = this.users.get(value) ?? this.users.get(value.toLowerCase());
    if (direct) return direct;
    const v = value.toLowerCase();
    for (const user of this.users.values()) if (user.userPrincipalName.toLowerCase() === v) return user;
    return undefined;
  }

  /** The delegated scopes the token endpoint sees now for this client, user and resource. */
  effectiveGrantScopes(clientId: string, principalId: string, resourceId: string): string[] | undefined {
    const now = this.now();
    const scopes = new Set<string>();
    let found = false;
    for (const g of this.grants.values()) {
      if (g.clientId !== clientId || g.resourceId !== resourceId) continue;
      if (g.consentType === "Principal" && g.principalId !== principalId) continue;
      const scope = now >= g.effectiveAt ? g.scope : g.previousScope;
      if (scope === undefined) continue;
      found = true;
      for (const s of scope.split(/\s+/)) if (s) scopes.add(s);
    }
    return found ? [...scopes] : undefined;
  }
}
