import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../emulator/server";
import { main } from "./cli";
import { processIo } from "./cli-io";

/**
 * `npm start`: the whole flow against the embedded emulator, as a newcomer
 * with no tenant would run it, through the same commands a pipeline runs.
 */
async function demo(): Promise<number> {
  const io = processIo();
  const emulator = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), "agent-user-demo-"));
  try {
    const outputs = join(dir, "outputs.json");
    writeFileSync(outputs, JSON.stringify(emulator.outputs()), { mode: 0o600 });
    io.stdout(`agent-user-kit demo: emulated tenant ${emulator.store.tenantId} at ${emulator.httpUrl}\n\n`);
    io.stdout("== agent-user token --outputs outputs.json\n");
    const code = await main(["token", "--outputs", outputs], io);
    io.stdout(`\n${code === 0 ? "ok" : `failed with exit code ${code}`}: ${emulator.requests.filter((r) => r.surface === "token").length} token requests\n`);
    return code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await emulator.close();
  }
}

demo().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(70);
  },
);
