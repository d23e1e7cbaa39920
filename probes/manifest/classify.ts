/**
 * Which permission model a registered server uses (V1 shared audience or V2
 * own audience), and the token scope to request for it.
 */
import { quoteValue } from "../../lib/printable";
import { isGuid } from "../../lib/entra-rules";
import type { ManifestEntry } from "./validate";

/** The audience every V1 server shares ("Agent 365 Tools"). V2 audiences come only from the manifest. */
export const V1_SHARED_AUDIENCE = "ea9ffc3e-8a23-4a7d-836d-234d7c7565c1";

export type PermissionModel = "v1-shared-audience" | "v2-own-audience" | "unclassified";

export interface ServerPermission {
  model: PermissionModel;
  /** The scope to request a token with; null when the entry does not say enough to form it. */
  tokenScope: string | null;
  /** Why the model or the token scope is unknown; null when nothing is missing. */
  note: string | null;
}

const API_URI = /^api:\/\//i;

function unclassified(note: string): ServerPermission {
  return { model: "unclassified", tokenScope: null, note };
}

/**
 * V1 or V2, from the audience alone. Where Microsoft's own tools disagree or
 * the entry is silent, this says so rather than pick one.
 */
export function classifyServer(entry: Pick<ManifestEntry, "audience" | "scope">): ServerPermission {
  const { audience, scope } = entry;
  if (audience === null) {
    return unclassified(`no "audience" is given, so V1 and V2 cannot be told apart (Microsoft's SDK would assume the shared V1 audience)`);
  }
  if (audience.replace(API_URI, "").toLowerCase() === V1_SHARED_AUDIENCE) {
    return {
      model: "v1-shared-audience",
      // Every V1 server is reached with the one shared-audience token; its per-server scope must be among the token's scopes.
      tokenScope: `${V1_SHARED_AUDIENCE}/.default`,
      note: scope === null ? `no "scope" is given, so which per-server permission the shared token must carry is unknown` : null,
    };
  }
  if (isGuid(audience)) {
    return {
      model: "v2-own-audience",
      tokenScope: scope === null ? null : `${audience}/${scope}`,
      note: scope === null ? `no "scope" is given, so the token scope {audience}/{scope} cannot be formed` : null,
    };
  }
  if (API_URI.test(audience)) {
    return unclassified(`"audience" is an api:// URI other than the shared V1 audience; Microsoft's SDKs disagree on whether that means V1 or V2`);
  }
  return unclassified(`"audience" ${quoteValue(audience)} is neither the shared V1 audience nor an application id (GUID)`);
}
