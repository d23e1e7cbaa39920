/**
 * What Microsoft's own Agent ID tools and pages send, replayed against the
 * emulator over HTTP: every step answers with the status and shape the Graph
 * reference documents (test/emulator/tool-requests/ holds each request with
 * the file and commit it was read from). None of the tools is needed here.
 */
import { startDirectory } from "./directory-client";
import { agent365Cli } from "./tool-requests/agent365-cli";
import { entraPowerShell } from "./tool-requests/entra-powershell";
import { entraHowTo, graphReference } from "./tool-requests/microsoft-docs";
import { msIdentityTools } from "./tool-requests/msidentitytools";
import { replay } from "./tool-requests/replay";
import type { Sequence } from "./tool-requests/sequence";

const SEQUENCES: readonly Sequence[] = [agent365Cli, ...entraPowerShell, msIdentityTools, entraHowTo, graphReference];

describe("Microsoft's Agent ID tools against the emulator", () => {
  it("every recorded step names its source, and every sequence has steps", () => {
    expect(SEQUENCES.length).toBe(6);
    for (const s of SEQUENCES) {
      expect(s.steps.length).toBeGreaterThan(5);
      expect(s.steps.filter((step) => !/@[0-9a-f]{8}/.test(step.source)).map((step) => step.does)).toEqual([]);
    }
  });

  it.each(SEQUENCES.map((s) => [`${s.tool}: ${s.name}`, s] as const))("%s", async (_name, sequence) => {
    const d = await startDirectory();
    try {
      const results = await replay(d, sequence);
      expect(results.map((r) => r.seen)).toEqual(sequence.steps.map((_, i) => results[i]?.wanted ?? { step: sequence.steps[i]!.does, status: sequence.steps[i]!.expect.status, notSent: true }));
    } finally {
      await d.close();
    }
  });
});
