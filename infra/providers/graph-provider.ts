import type * as pulumi from "@pulumi/pulumi";
import { configureProvisioner } from "../provisioner-credential";
import { requireState, step, type HintFor } from "./failure";
import type { GraphClient } from "../../lib/graph-client";
import { awaitReplica, createOrAdopt, deleteIfExists, graphSession, postOnce, type GraphSession } from "./graph-ops";
import { changesGraph, checkInputs, diffKeys, withCommonInputs, type DiffKeys, type GraphResourceInputs, type InputChecker, type OwnKeys } from "./inputs";

/**
 * What makes one kind of Graph object a dynamic resource: its name in
 * failures, its URL, its own inputs and what to send Graph. graphProvider
 * supplies the rest, the same for every resource: the provisioner's
 * credential, the common inputs, a Graph session per operation, failures
 * that name the resource and the operation, and a delete that counts an
 * object already gone as deleted.
 *
 * Its functions are serialized with the provider. One from another module is
 * reached through an arrow, `(id) => agentIdentityPath(id)`: the serializer
 * then captures that module, as require(...) of the installed package,
 * rather than the function's text and what it captures (lib/ modules, which
 * the package does not export: test/e2e/package catches it).
 */
export interface GraphResource<I extends GraphResourceInputs, O extends I, G extends { id: string }> {
  /** What failures call it, e.g. "agent identity". */
  resource: string;
  paths: {
    /** The typed collection URL a create POSTs to. */
    collection: string;
    /** The object's typed URL, which read, update and delete address. */
    object: (id: string) => string;
    /** The object a create needs first: the create waits until it has replicated (Graph refuses the POST before). */
    parent?: (inputs: I) => string;
  };
  /** Likely fixes for Graph's refusals of a create or an update. */
  hints?: HintFor;
  /** Reads the resource's own inputs from the checker (the common ones are checked for every resource); `olds` are those in the state, if any. */
  check: (c: InputChecker, olds: Partial<I>) => Record<OwnKeys<I>, unknown>;
  /** Which of its own inputs replace the object when they change, and which update it in place. */
  diff: DiffKeys<I>;
  /**
   * Finds the object an earlier create made (a run that died, or a POST
   * whose answer was lost), which a create adopts. Only one the provisioner
   * (`provisionerAppId`) created: another application's is refused
   * (adoption.ts `requireOwn`).
   */
  lookup: (graph: GraphClient, inputs: I, provisionerAppId: string) => Promise<G | undefined>;
  /** The body of the create's POST. */
  body: (inputs: I) => Record<string, unknown>;
  /**
   * Brings an adopted object at `path` to the inputs. It was made by an
   * earlier run and may have drifted since, or by this run's POST whose
   * answer was lost, so it may still be replicating: reads of it should
   * tolerate the session's consistency window.
   */
  adopt?: (session: GraphSession, path: string, object: G, inputs: I) => Promise<void>;
  /** The outputs of a create: the inputs and the ids Graph gave the object. */
  outputs: (inputs: I, object: G) => O;
  /** The object at `path` as Graph holds it now, as outputs over the saved state; undefined when it is gone. */
  read: (session: GraphSession, path: string, state: O) => Promise<O | undefined>;
  /** Brings the object at `path` to the new inputs; the new outputs. */
  update: (session: GraphSession, path: string, olds: O, news: I) => Promise<O>;
}

/** The dynamic provider of one kind of Graph object. */
export function graphProvider<I extends GraphResourceInputs, O extends I, G extends { id: string }>(
  spec: GraphResource<I, O, G>,
): pulumi.dynamic.ResourceProvider<I, O> {
  const { resource, paths, hints } = spec;
  const path = paths.object;
  return {
    // An arrow, so the serializer captures the module (as require(...) once installed), not the function's text.
    configure: (request) => configureProvisioner(request),

    async check(olds, news) {
      return checkInputs(news, (c) => spec.check(c, olds));
    },

    async diff(_id, olds, news) {
      return diffKeys<I>(olds, news, spec.diff);
    },

    async create(inputs) {
      return step(
        resource,
        "create",
        async () => {
          const session = graphSession(inputs);
          if (paths.parent) await awaitReplica(session, paths.parent(inputs));
          const { object, adopted } = await createOrAdopt(session, {
            lookup: (graph) => spec.lookup(graph, inputs, session.provisionerAppId()),
            create: (graph) => postOnce<G>(graph, paths.collection, spec.body(inputs)),
          });
          if (adopted) await spec.adopt?.(session, path(object.id), object, inputs);
          return { id: object.id, outs: spec.outputs(inputs, object) };
        },
        hints,
      );
    },

    async read(id, props) {
      return step(resource, "read", async () => {
        const state = requireState(resource, props);
        const live = await spec.read(graphSession(state), path(id), state);
        return live === undefined ? {} : { id, props: live };
      });
    },

    async update(id, olds, news) {
      // A new provider version or provisioner is written to the state without a Graph call.
      if (!changesGraph(olds, news, spec.diff)) return { outs: withCommonInputs(olds, news) };
      return step(resource, "update", async () => ({ outs: await spec.update(graphSession(news), path(id), olds, news) }), hints);
    },

    async delete(id, props) {
      return step(resource, "delete", () => deleteIfExists(graphSession(props), path(id)));
    },
  };
}
