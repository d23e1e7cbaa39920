/**
 * `agent-user token` flags against a loopback identity provider on `port`,
 * with made-up ids; the client secret comes from AGENT_USER_BLUEPRINT_SECRET.
 * The benchmark's start-up figure and the start-up test both run it.
 */
export const tokenFlags = (port: number): string[] => [
  "token",
  "--tenant",
  "6d9f3c1a-2b4e-4f8a-9c7d-1e2f3a4b5c6d",
  "--authority",
  `http://127.0.0.1:${port}`,
  "--blueprint-app-id",
  "c4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
  "--agent-identity",
  "e1d2c3b4-a596-4877-8695-a4b3c2d1e0f9",
  "--agent-user",
  "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
];
