import { randomUUID } from "node:crypto";
import { resourceKey } from "../lib/entra-rules";
import type { PasswordCredential, FederatedIdentityCredential, ManagedIdentity } from "./tenant-credentials";
import type { DriveItem } from "./tenant-files";
import { AppRoleAssignmentStore, type AppRoleAssignment } from "./app-role-assignments";
import { SmartLockout } from "./smart-lockout";
import type { ApplicationKind, Application, PermissionScope, ServicePrincipalKind, ServicePrincipal, UserKind, User, Group, PermissionGrant, ApplicationChanges, ServicePrincipalChanges, UserChanges } from "./tenant-objects";

export type { PasswordCredential, FederatedIdentityCredential, KeyCredential, ManagedIdentity } from "./tenant-credentials";
export type { Comment, DriveItem } from "./tenant-files";
export type { AppRoleAssignment } from "./app-role-assignments";
export type { ApplicationKind, Application, ApiApplication, AppRole, PermissionScope, ServicePrincipalKind, ServicePrincipal, UserKind, User, Group, PermissionGrant, ApplicationChanges, ServicePrincipalChanges, UserChanges } from "./tenant-objects";

/** What the store is seeded with: the same shape as `--tenant FILE`. */
export interface TenantSeed {
  tenantId: string;
  domains: string[];
  applications: Array<Omit<Application, "createdAt">>;
  servicePrincipals: Array<Omit<ServicePrincipal, "createdAt">>;
  users: Array<Omit<User, "createdAt">>;
  /** Absent in a tenant file without groups. */
  groups?: Array<Omit<Group, "createdAt">>;
  grants: Array<Omit<PermissionGrant, "effectiveAt" | "previousScope">>;
  /** Absent in a tenant file without app role assignments. */
  appRoleAssignments?: Array<Omit<AppRoleAssignment, "createdAt">>;
  managedIdentities: ManagedIdentity[];
  driveItems: DriveItem[];
}

/** Objects created at seed time are old enough to be replicated everywhere. */
const LONG_AGO = 0;


/**
 * The one store of tenant state. Handlers read and change it; nothing else
 * keeps tenant data. Every object records when it was written, so the token
 * endpoint can play Entra's replication lag.
 */
export class TenantStore {
  readonly tenantId: string;
  readonly #domains: string[];
  readonly #applications = new Map<string, Application>();
  readonly #servicePrincipals = new Map<string, ServicePrincipal>();
  readonly #users = new Map<string, User>();
  readonly #groups = new Map<string, Group>();
  readonly #grants = new Map<string, PermissionGrant>();
  readonly #managedIdentities: ManagedIdentity[];
  readonly #driveItems: DriveItem[];
  /** App role assignments: application permissions given to principals. */
  readonly appRoleAssignments: AppRoleAssignmentStore;
  /** How long a new object stays unknown to the token endpoint, and a grant change unseen. */
  replicationLagMs = 0;
  /** How long a new object stays missing from Graph's lists (`$filter` included): an index that catches up on its own time. */
  listLagMs = 0;
  /** A tenant policy: no password or certificate credential on an agent identity blueprint (only a federated one). */
  blueprintSecretsRefused = false;
  now: () => number = Date.now;
  /** Each person's failed password sign-ins, and their lockouts, on the tenant's clock. */
  readonly lockout = new SmartLockout(() => this.now());

  constructor(seed: TenantSeed) {
    this.tenantId = seed.tenantId;
    this.#domains = [...seed.domains];
    for (const app of seed.applications) this.#applications.set(app.id, structuredClone({ ...app, createdAt: LONG_AGO }));
    for (const sp of seed.servicePrincipals) this.#servicePrincipals.set(sp.id, structuredClone({ ...sp, createdAt: LONG_AGO }));
    for (const user of seed.users) this.#users.set(user.id, structuredClone({ ...user, createdAt: LONG_AGO }));
    for (const group of seed.groups ?? []) this.#groups.set(group.id, structuredClone({ ...group, createdAt: LONG_AGO }));
    for (const grant of seed.grants) this.#grants.set(grant.id, { ...grant, effectiveAt: LONG_AGO });
    this.#managedIdentities = structuredClone(seed.managedIdentities);
    this.#driveItems = structuredClone(seed.driveItems);
    this.appRoleAssignments = new AppRoleAssignmentStore(seed.appRoleAssignments, LONG_AGO);
  }

  /** Whether an object written at `createdAt` has reached the token endpoint. */
  replicated(createdAt: number): boolean {
    return this.now() >= createdAt + this.replicationLagMs;
  }

  /** Whether an object written at `createdAt` shows in Graph's lists yet. */
  listed(createdAt: number): boolean {
    return this.now() >= createdAt + this.listLagMs;
  }

  newId(): string {
    return randomUUID();
  }

  /** The creation time for an object written now. */
  stamp(): number {
    return this.now();
  }

  isTenant(tenant: string): boolean {
    return tenant.toLowerCase() === this.tenantId || this.domain(tenant) !== undefined;
  }

  // --- Reads. Ids are looked up as given: handlers lower-case what a URL names, as Entra compares GUIDs without regard to case.

  get domains(): readonly string[] {
    return this.#domains;
  }

  /** The tenant's domain spelled as seeded, for a name compared without regard to case. */
  domain(name: string): string | undefined {
    const wanted = name.toLowerCase();
    return this.#domains.find((d) => d.toLowerCase() === wanted);
  }

  application(id: string): Application | undefined {
    return this.#applications.get(id);
  }

  applications(kind?: ApplicationKind): Application[] {
    return [...this.#applications.values()].filter((a) => kind === undefined || a.kind === kind);
  }

  servicePrincipal(id: string): ServicePrincipal | undefined {
    return this.#servicePrincipals.get(id);
  }

  servicePrincipals(kind?: ServicePrincipalKind): ServicePrincipal[] {
    return [...this.#servicePrincipals.values()].filter((sp) => kind === undefined || sp.kind === kind);
  }

  user(id: string): User | undefined {
    return this.#users.get(id);
  }

  users(kind?: UserKind): User[] {
    return [...this.#users.values()].filter((u) => kind === undefined || u.kind === kind);
  }

  group(id: string): Group | undefined {
    return this.#groups.get(id);
  }

  grant(id: string): PermissionGrant | undefined {
    return this.#grants.get(id);
  }

  grants(): PermissionGrant[] {
    return [...this.#grants.values()];
  }

  get managedIdentities(): readonly ManagedIdentity[] {
    return this.#managedIdentities;
  }

  /** A user or a service principal: what `owners@odata.bind` may name. */
  hasDirectoryObject(id: string): boolean {
    return this.#users.has(id) || this.#servicePrincipals.has(id);
  }

  // Entra compares GUIDs without regard to case; the store keeps them as seeded or created (lower case).
  applicationByAppId(appId: string): Application | undefined {
    const wanted = appId.toLowerCase();
    for (const app of this.#applications.values()) if (app.appId.toLowerCase() === wanted) return app;
    return undefined;
  }

  servicePrincipalByAppId(appId: string): ServicePrincipal | undefined {
    for (const sp of this.#servicePrincipals.values()) if (sp.appId === appId && sp.kind !== "agentIdentity") return sp;
    return undefined;
  }

  /** Agent identities are addressed by object id; their appId is the same value. */
  agentIdentity(id: string): ServicePrincipal | undefined {
    const sp = this.#servicePrincipals.get(id) ?? this.#servicePrincipals.get(id.toLowerCase());
    return sp?.kind === "agentIdentity" ? sp : undefined;
  }

  /** The agent identities a blueprint (by appId) has made. */
  agentIdentitiesOf(blueprintAppId: string): ServicePrincipal[] {
    return this.servicePrincipals("agentIdentity").filter((sp) => sp.agentIdentityBlueprintId === blueprintAppId);
  }

  /** The agent user of an agent identity: an identity holds at most one. */
  agentUserOf(identityId: string): User | undefined {
    for (const user of this.#users.values()) if (user.kind === "agentUser" && user.identityParentId === identityId) return user;
    return undefined;
  }

  /** The service principal a token `{resource}/.default` scope names, by appId or identifier URI (its own, or its application's). */
  resourceByIdentifier(resource: string): ServicePrincipal | undefined {
    const r = resourceKey(resource);
    for (const sp of this.#servicePrincipals.values()) {
      const names = [sp.appId, ...sp.servicePrincipalNames, ...(sp.kind === "agentIdentity" ? [] : (this.applicationByAppId(sp.appId)?.identifierUris ?? []))];
      if (names.some((n) => resourceKey(n) === r)) return sp;
    }
    return undefined;
  }

  /** The delegated scopes a resource publishes: its own, or those its application's API exposes. */
  publishedScopes(sp: ServicePrincipal): PermissionScope[] {
    return sp.oauth2PermissionScopes ?? (sp.kind === "agentIdentity" ? undefined : this.applicationByAppId(sp.appId)?.api?.oauth2PermissionScopes) ?? [];
  }

  /** The user holding a UPN, compared without regard to case. */
  userByUpn(upn: string): User | undefined {
    const wanted = upn.toLowerCase();
    for (const user of this.#users.values()) if (user.userPrincipalName.toLowerCase() === wanted) return user;
    return undefined;
  }

  userByIdOrUpn(value: string): User | undefined {
    return this.#users.get(value) ?? this.#users.get(value.toLowerCase()) ?? this.userByUpn(value);
  }

  /** The grant a client holds for one user on a resource. */
  grantFor(clientId: string, principalId: string, resourceId: string | undefined): PermissionGrant | undefined {
    for (const g of this.#grants.values()) if (g.clientId === clientId && g.principalId === principalId && g.resourceId === resourceId) return g;
    return undefined;
  }

  /** The delegated scopes the token endpoint sees now for this client, user and resource. */
  effectiveGrantScopes(clientId: string, principalId: string, resourceId: string): string[] | undefined {
    const scopes = new Set<string>();
    let found = false;
    for (const g of this.#grants.values()) {
      if (g.clientId !== clientId || g.resourceId !== resourceId) continue;
      if (g.consentType === "Principal" && g.principalId !== principalId) continue;
      const scope = this.#effectiveScope(g);
      if (scope === undefined) continue;
      found = true;
      for (const s of scope.split(/\s+/)) if (s) scopes.add(s);
    }
    return found ? [...scopes] : undefined;
  }

  /** The scope the token endpoint sees now: the new one once the change has replicated. */
  #effectiveScope(grant: PermissionGrant): string | undefined {
    return this.now() >= grant.effectiveAt ? grant.scope : grant.previousScope;
  }

  driveItem(driveId: string, itemId: string): DriveItem | undefined {
    return this.#driveItems.find((i) => i.driveId === driveId && i.id === itemId);
  }

  /** The item a sharing URL points at. */
  driveItemByShareUrl(url: string): DriveItem | undefined {
    return this.#driveItems.find((i) => i.shareUrl === url);
  }

  // --- Writes. Each keeps the tenant consistent: a delete takes what depends on the object with it.

  createApplication(app: Application): Application {
    this.#applications.set(app.id, app);
    return app;
  }

  createServicePrincipal(sp: ServicePrincipal): ServicePrincipal {
    this.#servicePrincipals.set(sp.id, sp);
    return sp;
  }

  createUser(user: User): User {
    this.#users.set(user.id, user);
    return user;
  }

  /** A grant as given, effectiveAt included: a Graph create sets it a replication lag ahead. */
  createGrant(grant: PermissionGrant): PermissionGrant {
    this.#grants.set(grant.id, grant);
    return grant;
  }

  updateApplication(id: string, changes: ApplicationChanges): void {
    const app = this.#applications.get(id);
    if (app) Object.assign(app, changes);
  }

  updateServicePrincipal(id: string, changes: ServicePrincipalChanges): void {
    const sp = this.#servicePrincipals.get(id);
    if (sp) Object.assign(sp, changes);
  }

  updateUser(id: string, changes: UserChanges): void {
    const user = this.#users.get(id);
    if (user) Object.assign(user, changes);
  }

  /** A new scope, which tokens see only after the replication lag; until then they keep the one they saw. */
  changeGrantScope(id: string, scope: string): void {
    const grant = this.#grants.get(id);
    if (!grant) return;
    grant.previousScope = this.#effectiveScope(grant);
    grant.scope = scope;
    grant.effectiveAt = this.now() + this.replicationLagMs;
  }

  /** Moves a client's grants from one user to another. */
  moveGrants(clientId: string, fromPrincipalId: string, toPrincipalId: string): void {
    for (const g of this.#grants.values()) if (g.clientId === clientId && g.principalId === fromPrincipalId) g.principalId = toPrincipalId;
  }

  /** A sponsor (a user or a group, by object id) added to a blueprint, an agent identity or an agent user. */
  addSponsor(objectId: string, sponsorId: string): void {
    this.#sponsored(objectId)?.sponsors.push(sponsorId);
  }

  removeSponsor(objectId: string, sponsorId: string): void {
    const sponsors = this.#sponsored(objectId)?.sponsors;
    if (sponsors?.includes(sponsorId)) sponsors.splice(sponsors.indexOf(sponsorId), 1);
  }

  #sponsored(objectId: string): { sponsors: string[] } | undefined {
    const user = this.#users.get(objectId);
    if (user) return { sponsors: (user.sponsors ??= []) };
    return this.#applications.get(objectId) ?? this.#servicePrincipals.get(objectId);
  }

  addPassword(applicationId: string, credential: PasswordCredential): void {
    this.#applications.get(applicationId)?.passwordCredentials.push(credential);
  }

  /** Whether the application held a password with this keyId. */
  removePassword(applicationId: string, keyId: string): boolean {
    const passwords = this.#applications.get(applicationId)?.passwordCredentials;
    const index = passwords?.findIndex((p) => p.keyId === keyId) ?? -1;
    if (index >= 0) passwords!.splice(index, 1);
    return index >= 0;
  }

  addFederatedCredential(applicationId: string, credential: FederatedIdentityCredential): void {
    this.#applications.get(applicationId)?.federatedIdentityCredentials.push(credential);
  }

  removeFederatedCredential(applicationId: string, credentialId: string): void {
    const fics = this.#applications.get(applicationId)?.federatedIdentityCredentials;
    const index = fics?.findIndex((f) => f.id === credentialId) ?? -1;
    if (index >= 0) fics!.splice(index, 1);
  }

  /** Deleting an application deletes its service principal in the tenant too. */
  deleteApplication(id: string): void {
    const app = this.#applications.get(id);
    if (!app) return;
    this.#applications.delete(id);
    const principal = this.servicePrincipalByAppId(app.appId);
    if (principal) this.deleteServicePrincipal(principal.id);
  }

  /** Deleting a service principal removes the grants it is the client or resource of; a blueprint principal also takes its agent identities. */
  deleteServicePrincipal(id: string): void {
    const sp = this.#servicePrincipals.get(id);
    if (!sp) return;
    this.#servicePrincipals.delete(id);
    for (const grant of this.grants()) if (grant.clientId === id || grant.resourceId === id) this.#grants.delete(grant.id);
    this.appRoleAssignments.removeFor(id);
    if (sp.kind !== "agentIdentityBlueprintPrincipal") return;
    // Deleting a blueprint principal removes its identities (their agent users stay).
    for (const identity of this.agentIdentitiesOf(sp.appId)) this.deleteServicePrincipal(identity.id);
  }

  /** Deleting a user removes the grants made for it. */
  deleteUser(id: string): void {
    this.#users.delete(id);
    for (const grant of this.grants()) if (grant.principalId === id) this.#grants.delete(grant.id);
  }

  /** The grant removed, if there was one: tokens already issued stay valid until they expire. */
  deleteGrant(id: string): PermissionGrant | undefined {
    const grant = this.#grants.get(id);
    this.#grants.delete(id);
    return grant;
  }

  // --- For tests and `--tenant` drift: changes no Graph API makes.

  /** Another domain the tenant answers to, e.g. an alias in a token's issuer. */
  addDomain(domain: string): void {
    this.#domains.push(domain);
  }

  /** A group, e.g. one a test binds as a sponsor; no Graph route of the emulator creates groups. */
  addGroup(group: Omit<Group, "createdAt">): Group {
    const created = { ...structuredClone(group), createdAt: this.stamp() };
    this.#groups.set(created.id, created);
    return created;
  }

  addManagedIdentity(identity: ManagedIdentity): void {
    this.#managedIdentities.push(identity);
  }

  /** When the token endpoint starts to see a grant's current scope: 0 for at once, as if it had replicated. */
  replicateGrantAt(id: string, at: number): void {
    const grant = this.#grants.get(id);
    if (grant) grant.effectiveAt = at;
  }

  /** When an application, service principal or user was written, e.g. to play an object made a minute ago. */
  setCreatedAt(id: string, at: number): void {
    const object = this.#applications.get(id) ?? this.#servicePrincipals.get(id) ?? this.#users.get(id);
    if (object) object.createdAt = at;
  }
}
