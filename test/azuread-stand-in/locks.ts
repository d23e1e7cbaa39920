/**
 * azuread's `tf.LockByName(applicationResourceName, objectId)`
 * (internal/helpers/tf/locks.go): the credential resources of one
 * application change it one at a time, since a certificate is written as a
 * read-modify-write of the whole keyCredentials collection and two at once
 * would lose one. The engine runs operations in parallel in one plugin
 * process, so the stand-in queues them the same way.
 */
const tails = new Map<string, Promise<void>>();

/** `work` once every earlier holder of `name` is done. */
export async function lockedBy<T>(name: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((done) => (release = done));
  const tail = before.then(() => mine);
  tails.set(name, tail);
  await before;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(name) === tail) tails.delete(name);
  }
}
