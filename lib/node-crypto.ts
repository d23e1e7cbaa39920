import type * as NodeCrypto from "node:crypto";

/**
 * node:crypto, loaded at its first use rather than at import: it is about
 * 8 ms of a process's start-up under Node 24 (`npm run bench`), and only a
 * certificate credential (and the emulator's signing) needs it, never an
 * agent with a client secret before its first request.
 */
export function nodeCrypto(): typeof NodeCrypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("node:crypto") as typeof NodeCrypto;
}
