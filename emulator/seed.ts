import { randomBytes, randomUUID } from "node:crypto";
import { CHECK_PERMISSIONS, PROVISIONER_PERMISSIONS } from "../lib/graph-permissions";
import { UsageError } from "../lib/errors";
import { isObject } from "../lib/json-value";
import { readJsonFile } from "../lib/user-files";
import { badSegment } from "../lib/path-segment";
import type { Application, DriveItem, PasswordCredential, PermissionScope, ServicePrincipal, TenantSeed, User } from "./store";
import { isGuid, MICROSOFT_GRAPH_APP_ID, PUBLIC_CLOUD, TOKEN_EXCHANGE_APP_ID, TOKEN_EXCHANGE_AUDIENCE } from "../lib/entra-rules";
import { addAgentFlows, addTestSignIn, stableId } from "./seed-flows";

/**
 * Fixed ids for the built-in tenant, so documentation and logs stay readable;
 * every secret is fresh on each start.
 */
export const DEFAULT_IDS = {
  tenantId: "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d",
  domain: "contoso.onmicrosoft.com",
  sponsorId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  sponsorGroupId: "7c6b5a49-3827-4165-9f4e-3d2c1b0a9f8e",
  provisionerAppId: "5b0c8e7a-1f2d-4c3b-9a8e-7d6c5b4a3f21",
  provisionerObjectId: "5b0c8e7a-1f2d-4c3b-9a8e-000000000001",
  provisionerPrincipalId: "5b0c8e7a-1f2d-4c3b-9a8e-000000000002",
  graphPrincipalId: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
  tokenExchangePrincipalId: "9f8e7d6c-5b4a-4392-8170-000000000001",
  blueprintAppId: "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
  blueprintObjectId: "c4e5f6a7-b8c9-4d0e-8f1a-000000000001",
  blueprintPrincipalId: "c4e5f6a7-b8c9-4d0e-8f1a-000000000002",
  agentIdentityId: "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
  agentUserId: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
  agentUserPrincipalName: "research-agent@contoso.onmicrosoft.com",
  grantId: "Z3JhbnQtZGVmYXVsdC0wMDE",
  managedIdentityClientId: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
  managedIdentityPrincipalId: "3c4d5e6f-7a8b-4c9d-8e0f-000000000001",
  testClientAppId: "7a1e9c2b-3d4f-4e5a-8b6c-0d1e2f3a4b5c",
  testClientObjectId: "7a1e9c2b-3d4f-4e5a-8b6c-000000000001",
  testClientPrincipalId: "7a1e9c2b-3d4f-4e5a-8b6c-000000000002",
  oboGrantId: "Z3JhbnQtb2JvLWRlZmF1bHQ",
  driveId: "b!emulatorDrive01",
  sharedItemId: "01EMULATORITEM0000000000000000001",
  sharedDocumentId: "01EMULATORITEM0000000000000000002",
} as const;

/** Sharing links of the seeded files, for `agent-user comments`. */
export const SHARE_URLS = {
  /** An Excel workbook with three comments, one reply each. */
  workbook: "https://contoso.sharepoint.com/:x:/s/agents/EQuarterlyPlanShareLink",
  /** A Word document whose comments endpoint answers 404 itemNotFound, as real Graph does. */
  document: "https://contoso.sharepoint.com/:w:/s/agents/EDesignNotesShareLink",
} as const;

/** Application permissions the seeded provisioner holds by default: what it needs to provision, and doctor's and preflight's reads. */
export const PROVISIONER_ROLES: readonly string[] = [...PROVISIONER_PERMISSIONS, ...CHECK_PERMISSIONS];

/** The delegated scopes of each seeded agent's Graph grant (space-separated, as a grant's `scope` is): the stack's default scopes plus the two that `agent-user comments` reads with. */
export const SEEDED_GRANT_SCOPES = "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read Files.Read.All Sites.Read.All";

/** The delegated permissions the emulated Microsoft Graph publishes: the kit's allow-list and a few neighbours (texts and types are the emulator's). */
const GRAPH_SCOPES = [...SEEDED_GRANT_SCOPES.split(" "), "Chat.Read", "Mail.Read", "Files.ReadWrite.All", "Sites.ReadWrite.All", "User.ReadBasic.All"];


export function graphPermissionScopes(): PermissionScope[] {
  return GRAPH_SCOPES.map((value) => ({
    id: stableId("graph-scope", value),
    value,
    type: "User",
    isEnabled: true,
    adminConsentDisplayName: value,
    adminConsentDescription: `Delegated permission ${value} (emulated).`,
    userConsentDisplayName: value,
    userConsentDescription: `Delegated permission ${value} (emulated).`,
  }));
}

export function newSecret(): string {
  return `emu~${randomBytes(24).toString("base64url")}`;
}

export function password(displayName: string, secretText = newSecret()): PasswordCredential {
  return {
    keyId: randomUUID(),
    displayName,
    hint: secretText.slice(0, 3),
    secretText,
    startDateTime: new Date(Date.now() - 60_000).toISOString(),
    endDateTime: new Date(Date.now() + 365 * 86_400_000).toISOString(),
  };
}

const app = (fields: Pick<Application, "id" | "appId" | "kind" | "displayName"> & Partial<Application>): Omit<Application, "createdAt"> => ({
  sponsors: [],
  owners: [],
  passwordCredentials: [],
  keyCredentials: [],
  federatedIdentityCredentials: [],
  ...fields,
});

/**
 * A tenant with only what exists before `pulumi up`: Microsoft Graph, the
 * token-exchange app, a sponsor, a Microsoft 365 group that may sponsor too,
 * and the provisioner application.
 */
export function bareTenant(ids = DEFAULT_IDS): TenantSeed {
  const seed: TenantSeed = {
    tenantId: ids.tenantId,
    domains: [ids.domain],
    applications: [
      app({
        id: ids.provisionerObjectId,
        appId: ids.provisionerAppId,
        kind: "application",
        displayName: "agent-user-kit provisioner",
        passwordCredentials: [password("ci")],
      }),
    ],
    servicePrincipals: [
      {
        id: ids.graphPrincipalId,
        appId: MICROSOFT_GRAPH_APP_ID,
        kind: "servicePrincipal",
        displayName: "Microsoft Graph",
        servicePrincipalType: "Application",
        servicePrincipalNames: [PUBLIC_CLOUD.resourceUrl, MICROSOFT_GRAPH_APP_ID],
        sponsors: [],
        graphAppRoles: [],
        oauth2PermissionScopes: graphPermissionScopes(),
      },
      {
        id: ids.tokenExchangePrincipalId,
        appId: TOKEN_EXCHANGE_APP_ID,
        kind: "servicePrincipal",
        displayName: "AAD Token Exchange",
        servicePrincipalType: "Application",
        servicePrincipalNames: [TOKEN_EXCHANGE_AUDIENCE, TOKEN_EXCHANGE_APP_ID],
        sponsors: [],
        graphAppRoles: [],
      },
      {
        id: ids.provisionerPrincipalId,
        appId: ids.provisionerAppId,
        kind: "servicePrincipal",
        displayName: "agent-user-kit provisioner",
        servicePrincipalType: "Application",
        servicePrincipalNames: [ids.provisionerAppId],
        sponsors: [],
        graphAppRoles: [...PROVISIONER_ROLES],
      },
      // A user-assigned managed identity's principal: its appId is the identity's client id, which
      // `managedIdentity` mode reads through azuread's getServicePrincipal.
      {
        id: ids.managedIdentityPrincipalId,
        appId: ids.managedIdentityClientId,
        kind: "servicePrincipal",
        displayName: "agent-user-kit-identity",
        servicePrincipalType: "ManagedIdentity",
        servicePrincipalNames: [ids.managedIdentityClientId],
        sponsors: [],
        graphAppRoles: [],
      },
    ],
    users: [
      {
        id: ids.sponsorId,
        kind: "user",
        displayName: "Ada Sponsor",
        userPrincipalName: `ada@${ids.domain}`,
        mailNickname: "ada",
        accountEnabled: true,
      },
    ],
    groups: [{ id: ids.sponsorGroupId, displayName: "Agent sponsors", groupTypes: ["Unified"], isAssignableToRole: false }],
    grants: [],
    managedIdentities: [{ clientId: ids.managedIdentityClientId, principalId: ids.managedIdentityPrincipalId }],
    driveItems: [],
  };
  addTestSignIn(seed, ids);
  return seed;
}

function sampleDriveItem(ids = DEFAULT_IDS): DriveItem {
  const comment = (n: number) => ({
    id: `c${n}`,
    content: `Comment ${n}: please check section ${n}.`,
    contentType: "text",
    createdDateTime: new Date(Date.UTC(2026, 10, 1, 9, n)).toISOString(),
    replies: [{ id: `c${n}-r1`, content: `Reply to comment ${n}.`, contentType: "text" }],
  });
  return {
    driveId: ids.driveId,
    id: ids.sharedItemId,
    name: "Quarterly plan.xlsx",
    webUrl: `https://contoso.sharepoint.com/sites/agents/Shared%20Documents/Quarterly%20plan.xlsx`,
    shareUrl: SHARE_URLS.workbook,
    size: 18_432,
    file: { mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
    comments: [comment(1), comment(2), comment(3)],
  };
}

function sampleDocument(ids = DEFAULT_IDS): DriveItem {
  return {
    driveId: ids.driveId,
    id: ids.sharedDocumentId,
    name: "Design notes.docx",
    webUrl: `https://contoso.sharepoint.com/sites/agents/Shared%20Documents/Design%20notes.docx`,
    shareUrl: SHARE_URLS.document,
    size: 24_576,
    file: { mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
    commentsNotFound: true,
    comments: [],
  };
}

/** An agent identity under a blueprint and its agent user, as the Agent ID APIs create them. */
export interface AgentSeed {
  identityId: string;
  userId: string;
  displayName: string;
  userPrincipalName: string;
  blueprintAppId: string;
  sponsors: string[];
  /** The application that created the identity (Graph's createdByAppId), and its principal, the identity's owner. */
  createdBy?: { appId: string; principalId: string };
}

/** The store entries of an agent identity and its agent user (the mail nickname is the UPN's local part). */
export function agentEntries(agent: AgentSeed): { identity: Omit<ServicePrincipal, "createdAt">; user: Omit<User, "createdAt"> } {
  return {
    identity: {
      id: agent.identityId,
      appId: agent.identityId,
      kind: "agentIdentity",
      displayName: agent.displayName,
      servicePrincipalType: "ServiceIdentity",
      servicePrincipalNames: [],
      agentIdentityBlueprintId: agent.blueprintAppId,
      sponsors: [...agent.sponsors],
      graphAppRoles: [],
      ...(agent.createdBy && { createdByAppId: agent.createdBy.appId, owners: [agent.createdBy.principalId] }),
    },
    user: {
      id: agent.userId,
      kind: "agentUser",
      displayName: agent.displayName,
      userPrincipalName: agent.userPrincipalName,
      mailNickname: agent.userPrincipalName.split("@")[0]!,
      accountEnabled: true,
      identityParentId: agent.identityId,
    },
  };
}

/** What the provisioner made is its own: Graph records its appId as createdByAppId, and its principal as the owner. */
const madeByProvisioner = (ids: typeof DEFAULT_IDS) => ({ appId: ids.provisionerAppId, principalId: ids.provisionerPrincipalId });

/** The bare tenant plus everything `pulumi up` creates (as the provisioner), a shared workbook with comments and a shared Word document. */
export function defaultTenant(ids = DEFAULT_IDS): TenantSeed {
  const seed = bareTenant(ids);
  const createdBy = madeByProvisioner(ids);
  seed.applications.push(
    app({
      id: ids.blueprintObjectId,
      appId: ids.blueprintAppId,
      kind: "agentIdentityBlueprint",
      displayName: "Research agent blueprint",
      sponsors: [ids.sponsorId],
      owners: [createdBy.principalId],
      createdByAppId: createdBy.appId,
      passwordCredentials: [password("dev")],
      federatedIdentityCredentials: [
        {
          id: randomUUID(),
          name: "managed-identity",
          issuer: `${PUBLIC_CLOUD.authorityUrl}/${ids.tenantId}/v2.0`,
          subject: ids.managedIdentityPrincipalId,
          audiences: [TOKEN_EXCHANGE_AUDIENCE],
        },
      ],
    }),
  );
  seed.servicePrincipals.push(
    {
      id: ids.blueprintPrincipalId,
      appId: ids.blueprintAppId,
      kind: "agentIdentityBlueprintPrincipal",
      displayName: "Research agent blueprint",
      servicePrincipalType: "Application",
      servicePrincipalNames: [ids.blueprintAppId],
      sponsors: [ids.sponsorId],
      owners: [createdBy.principalId],
      createdByAppId: createdBy.appId,
      graphAppRoles: [],
    },
  );
  const agent = agentEntries({
    identityId: ids.agentIdentityId,
    userId: ids.agentUserId,
    displayName: "Research agent",
    userPrincipalName: ids.agentUserPrincipalName,
    blueprintAppId: ids.blueprintAppId,
    sponsors: [ids.sponsorId],
    createdBy,
  });
  seed.servicePrincipals.push(agent.identity);
  seed.users.push(agent.user);
  seed.grants.push({
    id: ids.grantId,
    clientId: ids.agentIdentityId,
    consentType: "Principal",
    principalId: ids.agentUserId,
    resourceId: ids.graphPrincipalId,
    scope: SEEDED_GRANT_SCOPES,
  });
  seed.driveItems.push(sampleDriveItem(ids), sampleDocument(ids));
  addAgentFlows(seed, ids);
  return seed;
}

/**
 * The default tenant with `count` agents under its blueprint: the seeded
 * research agent, then agent-2 … agent-N, each with its agent user and a
 * Graph grant, as `pulumi up` of a fleet stack leaves them.
 */
export function fleetTenant(count: number, ids = DEFAULT_IDS): TenantSeed {
  const seed = defaultTenant(ids);
  for (let n = 2; n <= count; n++) {
    const agent = agentEntries({
      identityId: randomUUID(),
      userId: randomUUID(),
      displayName: `Agent ${n}`,
      userPrincipalName: `agent-${n}@${ids.domain}`,
      blueprintAppId: ids.blueprintAppId,
      sponsors: [ids.sponsorId],
      createdBy: madeByProvisioner(ids),
    });
    seed.servicePrincipals.push(agent.identity);
    seed.users.push(agent.user);
    seed.grants.push({ id: randomUUID(), clientId: agent.identity.id, consentType: "Principal", principalId: agent.user.id, resourceId: ids.graphPrincipalId, scope: SEEDED_GRANT_SCOPES });
  }
  return seed;
}

/** Per collection of a tenant file: the string fields every entry needs, those it may have, and the list fields that default to []. */
const ENTRY_FIELDS = {
  applications: { strings: ["id", "appId", "kind", "displayName"], optional: ["createdByAppId"], lists: ["sponsors", "owners", "passwordCredentials", "keyCredentials", "federatedIdentityCredentials"] },
  servicePrincipals: { strings: ["id", "appId", "kind", "displayName", "servicePrincipalType"], optional: ["createdByAppId"], lists: ["servicePrincipalNames", "sponsors", "graphAppRoles"] },
  users: { strings: ["id", "kind", "displayName", "userPrincipalName", "mailNickname"], optional: [], lists: [] },
  groups: { strings: ["id", "displayName"], optional: [], lists: ["groupTypes"] },
  grants: { strings: ["id", "clientId", "consentType", "resourceId", "scope"], optional: [], lists: [] },
  appRoleAssignments: { strings: ["id", "appRoleId", "principalId", "principalType", "principalDisplayName", "resourceId", "resourceDisplayName"], optional: [], lists: [] },
} as const;

/** Checks each entry's required fields, naming the first bad one, and fills absent lists. */
function checkEntries(path: string, key: keyof typeof ENTRY_FIELDS, entries: unknown[]): void {
  const { strings, optional, lists } = ENTRY_FIELDS[key];
  entries.forEach((entry, i) => {
    if (!isObject(entry)) throw new UsageError(`tenant file ${path}: ${key}[${i}] must be an object`);
    const record = entry as Record<string, unknown>;
    for (const field of strings) {
      if (typeof record[field] !== "string") throw new UsageError(`tenant file ${path}: ${key}[${i}].${field} must be a string`);
    }
    for (const field of optional) {
      if (record[field] !== undefined && typeof record[field] !== "string") throw new UsageError(`tenant file ${path}: ${key}[${i}].${field} must be a string when given`);
    }
    // Ids become URL path segments of the emulator's Graph: "..", "/" and the like are bad input.
    const badId = typeof record.id === "string" ? badSegment(record.id) : undefined;
    if (badId) throw new UsageError(`tenant file ${path}: ${key}[${i}].id ${badId}`);
    for (const field of lists) {
      if (record[field] === undefined) record[field] = [];
      else if (!Array.isArray(record[field])) throw new UsageError(`tenant file ${path}: ${key}[${i}].${field} must be an array`);
    }
  });
}

/** Reads a `--tenant FILE`: a TenantSeed as JSON, every entry's required fields checked. */
export function loadTenantFile(path: string): TenantSeed {
  const json = readJsonFile(`tenant file ${path}`, path);
  if (!isObject(json)) throw new UsageError(`tenant file ${path}: must be a JSON object`);
  const seed = json as Partial<TenantSeed>;
  if (typeof seed.tenantId !== "string" || !isGuid(seed.tenantId)) {
    throw new UsageError(`tenant file ${path}: "tenantId" must be a GUID`);
  }
  for (const key of ["domains", "applications", "servicePrincipals", "users", "grants"] as const) {
    if (!Array.isArray(seed[key])) throw new UsageError(`tenant file ${path}: "${key}" must be an array`);
  }
  for (const key of ["groups", "appRoleAssignments"] as const) {
    if (seed[key] !== undefined && !Array.isArray(seed[key])) throw new UsageError(`tenant file ${path}: "${key}" must be an array`);
  }
  seed.groups ??= [];
  seed.appRoleAssignments ??= [];
  for (const key of Object.keys(ENTRY_FIELDS) as Array<keyof typeof ENTRY_FIELDS>) checkEntries(path, key, seed[key] as unknown[]);
  for (const [i, group] of seed.groups.entries()) {
    group.isAssignableToRole ??= false;
    if (typeof group.isAssignableToRole !== "boolean") throw new UsageError(`tenant file ${path}: groups[${i}].isAssignableToRole must be true or false`);
  }
  const full = seed as TenantSeed;
  return { ...full, managedIdentities: full.managedIdentities ?? [], driveItems: full.driveItems ?? [], tenantId: full.tenantId.toLowerCase() };
}
