import { connect as tlsConnect, type TLSSocket } from "node:tls";

/**
 * Every client in the bench (floor, runner, peer) addresses the real public
 * authority, https://login.microsoftonline.com, exactly as in production;
 * its dispatcher's connector dials the emulator's HTTPS listener on
 * 127.0.0.1 instead of resolving the name. All three pay the same TLS and
 * keep-alive costs, and nothing leaves the machine.
 */
export const AUTHORITY = "https://login.microsoftonline.com";

export interface EmulatorTarget {
  httpsPort: number;
  /** PEM of the emulator's self-signed certificate (valid for localhost and 127.0.0.1). */
  caPem: string;
}

export type ConnectCallback = (...args: [null, TLSSocket] | [Error, null]) => void;

/** An undici `connect` function (both undici copies take this shape) that always reaches the emulator. */
export function emulatorConnector(target: EmulatorTarget): (options: unknown, callback: ConnectCallback) => void {
  return (_options, callback) => {
    let pending: ConnectCallback | undefined = callback;
    const socket = tlsConnect({ host: "127.0.0.1", port: target.httpsPort, ca: target.caPem, servername: "localhost", ALPNProtocols: ["http/1.1"] });
    socket.setNoDelay(true);
    socket.once("secureConnect", () => {
      const cb = pending;
      pending = undefined;
      cb?.(null, socket);
    });
    socket.on("error", (err) => {
      const cb = pending;
      pending = undefined;
      cb?.(err, null);
    });
  };
}
