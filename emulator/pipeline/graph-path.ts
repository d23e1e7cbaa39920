/**
 * The emulated Graph's path grammar, the one place that reads a Graph URL:
 * every Graph route is matched on the canonical path it gives, and every
 * type name a body or a URL spells is read here.
 *
 * - The API version, `v1.0` or `beta`, is taken off the front and kept for
 *   the handlers (`@odata.context`, nextLinks); routes say which versions
 *   serve them (router.ts).
 * - Collection, navigation and action names are matched without regard to
 *   case (`serviceprincipals`, `addpassword`): "Assume path URL resource
 *   names, query parameters, action and function names ... are not
 *   case-sensitive" (microsoftgraph/microsoft-graph-docs-contrib
 *   concepts/traverse-the-graph.md@013aa22e). Keys (ids) keep their case.
 * - A type-cast segment names its type with the namespace `microsoft.graph`
 *   or its alias `graph` (Graph's metadata: `<Schema
 *   Namespace="microsoft.graph" Alias="graph">`,
 *   microsoftgraph/msgraph-metadata clean_v10_metadata/cleanMetadata.xml@01d45f6e),
 *   in any case (`Microsoft.Graph.AgentIdentity`, as Entra PowerShell
 *   writes it); the canonical spelling is `microsoft.graph.agentIdentity`.
 * - A cast may come before the key (`/users/microsoft.graph.agentUser/{id}`,
 *   agentuser-get) or after it (`/applications/{id}/microsoft.graph.agentIdentityBlueprint`,
 *   agentidentityblueprint-get): both address the same object, and the
 *   canonical path puts the cast after the key.
 * - A trailing slash is dropped: the Entra how-to posts to
 *   `/v1.0/applications/` and Entra PowerShell to `/v1.0/users/`.
 */

export type GraphVersion = "v1.0" | "beta";

/** A Graph request's version and canonical path (without the version), e.g. `/applications/{id}/microsoft.graph.agentIdentityBlueprint`. */
export interface GraphPath {
  version: GraphVersion;
  path: string;
}

/** The entity sets, navigation properties and actions the emulated Graph serves, in Graph's spelling. */
const NAMES: readonly string[] = [
  "applications",
  "servicePrincipals",
  "users",
  "me",
  "oauth2PermissionGrants",
  "domains",
  "shares",
  "drives",
  "$batch",
  "sponsors",
  "$ref",
  "addPassword",
  "removePassword",
  "federatedIdentityCredentials",
  "driveItem",
  "items",
  "comments",
  "replies",
];

/** The derived types the emulated Graph serves, by their name in the microsoft.graph namespace. */
export const AGENT_ID_TYPES = ["agentIdentityBlueprint", "agentIdentityBlueprintPrincipal", "agentIdentity", "agentUser"] as const;
export type AgentIdType = (typeof AGENT_ID_TYPES)[number];

const CANONICAL = new Map(NAMES.map((name) => [name.toLowerCase(), name]));
const TYPES = new Map(AGENT_ID_TYPES.map((name) => [name.toLowerCase(), name]));
const QUALIFIED = /^(?:microsoft\.graph|graph)\.([A-Za-z]\w*)$/i;

/**
 * The `microsoft.graph.X` a qualified type name stands for, whatever its
 * namespace spelling, with or without the `#` of an `@odata.type` value: a
 * served type in its own spelling, any other as written; undefined for a
 * name without the namespace.
 */
export function qualifiedTypeName(text: string): string | undefined {
  const m = QUALIFIED.exec(text.startsWith("#") ? text.slice(1) : text);
  return m ? `microsoft.graph.${TYPES.get(m[1]!.toLowerCase()) ?? m[1]!}` : undefined;
}

/** The served Agent ID type a type name stands for, in any spelling; undefined for any other name. */
export function graphTypeName(text: string): `microsoft.graph.${AgentIdType}` | undefined {
  const name = qualifiedTypeName(text);
  return AGENT_ID_TYPES.some((t) => name === `microsoft.graph.${t}`) ? (name as `microsoft.graph.${AgentIdType}`) : undefined;
}

/** Whether a type name names `type` (`microsoft.graph.X`), read without regard to case or namespace spelling. */
export function namesType(text: string, type: string): boolean {
  return qualifiedTypeName(text)?.toLowerCase() === type.toLowerCase();
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** One segment in its canonical spelling: a known name or a type cast; anything else (a key) as sent. */
function canonicalSegment(segment: string): string {
  const text = decoded(segment);
  return CANONICAL.get(text.toLowerCase()) ?? qualifiedTypeName(text) ?? segment;
}

const isCast = (segment: string) => segment.startsWith("microsoft.graph.");

/**
 * A route's pattern for a key segment named `name`: any segment but a type
 * cast, which the grammar spells `microsoft.graph.X` whatever X is, so a
 * cast no route serves is a segment Graph does not serve, never an id.
 */
export const keySegment = (name: string) => `(?<${name}>(?!microsoft\\.graph\\.)[^/]+)`;

/** The version and canonical path of a Graph URL path; undefined for a path outside the Graph surface. */
export function readGraphPath(pathname: string): GraphPath | undefined {
  const m = /^\/(v1\.0|beta)(\/.*)?$/.exec(pathname);
  if (!m) return undefined;
  const segments = (m[2] ?? "").split("/").slice(1);
  if (segments.length > 1 && segments.at(-1) === "") segments.pop();
  const canonical = segments.map(canonicalSegment);
  // A cast right after the collection and followed by a key moves behind the key.
  if (canonical.length > 2 && isCast(canonical[1]!) && !CANONICAL.has(canonical[2]!.toLowerCase()) && !isCast(canonical[2]!)) {
    [canonical[1], canonical[2]] = [canonical[2]!, canonical[1]!];
  }
  return { version: m[1] as GraphVersion, path: `/${canonical.join("/")}` };
}
