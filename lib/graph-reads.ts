/* Reads of Graph objects that the providers, doctor and preflight share. */

import { GraphError, type GraphClient } from "./graph-client";
import type { Shape } from "./graph-shape";

/** OData string literal: a quote inside is doubled. */
export function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * GET that answers undefined for an object that is gone (404); any other error is thrown.
 * `agentId` sends the Agent ID APIs' OData-Version header (the default); `shape` is what the caller reads of the object.
 */
export async function getIfExists<T>(graph: GraphClient, path: string, { agentId = true, shape }: { agentId?: boolean; shape?: Shape } = {}): Promise<T | undefined> {
  try {
    return (await graph.call<T>("GET", path, { agentId, shape })).body;
  } catch (err) {
    if (err instanceof GraphError && err.notFound) return undefined;
    throw err;
  }
}
