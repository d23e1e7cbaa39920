/**
 * The delegated scopes an agent user of this kit may be granted on its
 * resource API. This is the one list: configuration validation reads it, and a
 * policy pack (CrossGuard) can import it to enforce the same rule on any stack.
 * `Files.Read.All` and `Sites.Read.All` are here for the comment probe.
 */
export const ALLOWED_SCOPES: readonly string[] = Object.freeze([
  "Chat.Create",
  "Chat.ReadWrite",
  "ChatMessage.Send",
  "User.Read",
  "Files.Read.All",
  "Sites.Read.All",
]);

/** What the grant holds when `agent-user-kit:scopes` is not set: what the hop chain and its probes need. */
export const DEFAULT_SCOPES: readonly string[] = Object.freeze(["Chat.Create", "Chat.ReadWrite", "ChatMessage.Send", "User.Read"]);
