/**
 * The create both directory-object resources share (the grant's and the app
 * role assignment's): one POST whose RetryFunc waits out replication (a 404,
 * or the 400 Graph gives for a referenced object it cannot see yet), then
 * the read azuread makes once its id is set. Should that read fail, the
 * object exists and the engine is told its id (initFailed).
 */
import type { JsonObject } from "./application";
import { azureadError, initFailed } from "./failure";
import { EXPECTED, odataErrorText } from "./graph";
import type { Operation } from "./resource";

export interface ReplicatedPost {
  path: string;
  body: JsonObject;
  /** The 400's text that means "not replicated yet". */
  notReplicated: RegExp;
  /** azuread's summary for a failed create. */
  failure: string;
}

export async function postReplicated(op: Operation, post: ReplicatedPost): Promise<JsonObject> {
  try {
    const { body } = await op.graph.call({
      method: "POST",
      path: post.path,
      body: post.body,
      expect: EXPECTED.create,
      retryOn: (status, error) => status === 404 || (status === 400 && error !== undefined && post.notReplicated.test(odataErrorText(error))),
    });
    return (body ?? {}) as JsonObject;
  } catch (err) {
    throw azureadError(post.failure, err);
  }
}

/** The read after a create, its failure reported with the id; `missing` when Graph does not find what it just made. */
export async function readAfterCreate(read: () => Promise<JsonObject | undefined>, id: string, properties: JsonObject, missing: () => Error): Promise<JsonObject> {
  let outs: JsonObject | undefined;
  try {
    outs = await read();
  } catch (err) {
    throw initFailed(err, id, properties);
  }
  if (!outs) throw missing();
  return outs;
}
