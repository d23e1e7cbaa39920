import { captureFetchAgent } from "./fetch-agent";

// Imported first by run.ts, which loads both the peer and the `undici` package (see fetch-agent.ts).
captureFetchAgent();
