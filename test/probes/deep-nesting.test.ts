/**
 * Input nested absurdly deep ends in a named result, never a stack overflow
 * (exit 70): a manifest 200,000 levels deep, a Graph page whose shape would
 * overflow a recursive recorder.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShapeRecorder } from "../../probes/comments/shape";
import { run } from "../../probes/commands/manifest";

const DEPTH = 200_000;

it("a manifest nested 200,000 deep is bad input (exit 2), naming the nesting", async () => {
  const dir = mkdtempSync(join(tmpdir(), "deep-manifest-"));
  const file = join(dir, "ToolingManifest.json");
  writeFileSync(file, `{"mcpServers": ${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`);
  let stderr = "";
  const code = await run([file], { stdout: () => undefined, stderr: (t) => void (stderr += t), env: {}, cwd: dir });
  expect(code).toBe(2);
  expect(stderr).toMatch(/nested deeper than 512 levels/);
});

it("a response nested 200,000 deep is recorded down to a depth, and noted, not overflowed", () => {
  let value: unknown = "leaf";
  for (let i = 0; i < DEPTH; i++) value = { next: value };
  const recorder = new ShapeRecorder();
  recorder.add("comment", { id: "c1", deep: value });
  const fields = recorder.shape().comment.fields;
  expect(fields.id).toBe("string");
  expect(Object.values(fields)).toContain("(deeper levels not recorded)");
});
