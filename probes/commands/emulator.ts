import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { ExitCode, UsageError } from "../../lib/errors";
import { FAULT_SPEC_HELP, parseFaultSpec } from "../../emulator/faults";
import { loadTenantFile } from "../../emulator/seed";
import { startEmulator } from "../../emulator/server";
import { parseCommandArgs, type CliIo, type Command } from "../cli-io";
import { reportFailure } from "../report";

const HELP = `agent-user emulator: a local tenant (identity provider and Microsoft Graph) on loopback

Usage: agent-user emulator [options]

  --port N            HTTP port (default: a free one)
  --https-port N      HTTPS port (default: a free one)
  --tenant FILE       seed the tenant from this JSON (default: the built-in tenant)
  --agents N          seed the built-in tenant with N agents under its blueprint, each with its
                      agent user and grant; --outputs then has the fleet's "agents" map (default 1)
  --faults SPEC       inject faults, ${FAULT_SPEC_HELP.replace(/\n/g, "\n                      ")}
  --outputs FILE      write the seeded tenant as stack-output JSON (mode 0600: it holds a secret)
  --ca-file FILE      where to write the HTTPS certificate (default .emulator/ca.pem);
                      trust it with NODE_EXTRA_CA_CERTS=FILE

Runs until SIGINT or SIGTERM, then exits 0.

Examples:
  agent-user emulator --outputs outputs.json
  agent-user emulator --port 8400 --faults latency=50,429=2,retry-after=1
  agent-user emulator --tenant tenant.json --faults lose=1,method=POST,on=graph
`;

function port(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${name} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  return n;
}

/** At most this many agents: each is three store entries, and a fleet bench uses 1,000. */
const MAX_AGENTS = 10_000;

function agentCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_AGENTS) throw new UsageError(`--agents must be a whole number from 1 to ${MAX_AGENTS}, got ${JSON.stringify(value)}`);
  return n;
}

/** Resolves when the process is asked to stop. */
export function untilSignal(): Promise<string> {
  return new Promise((done) => {
    const stop = (signal: string) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      done(signal);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

export const run: Command = async (argv: string[], io: CliIo): Promise<number> => {
  try {
    const { values } = parseCommandArgs("emulator", {
      args: argv,
      options: {
        port: { type: "string" },
        "https-port": { type: "string" },
        tenant: { type: "string" },
        agents: { type: "string" },
        faults: { type: "string" },
        outputs: { type: "string" },
        "ca-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      io.stdout(HELP);
      return ExitCode.ok;
    }
    const agents = values.agents === undefined ? undefined : agentCount(values.agents);
    if (agents !== undefined && values.tenant) throw new UsageError("--agents seeds the built-in tenant; a --tenant file lists its own agents", "give one of --agents and --tenant");
    const parsed = values.faults ? parseFaultSpec(values.faults) : { faults: {} };
    const caFile = resolve(io.cwd, values["ca-file"] ?? ".emulator/ca.pem");
    const emulator = await startEmulator({
      port: port("--port", values.port),
      httpsPort: port("--https-port", values["https-port"]),
      tenant: values.tenant ? loadTenantFile(resolve(io.cwd, values.tenant)) : undefined,
      agents,
      faults: parsed.faults,
      replicationLagMs: parsed.lagMs,
      caFile,
    });
    const outputs = emulator.outputs();
    if (values.outputs) {
      writeFileSync(resolve(io.cwd, values.outputs), `${JSON.stringify(outputs, null, 2)}\n`, { mode: 0o600 });
    }
    io.stdout(
      [
        `emulator listening (tenant ${outputs.tenantId})`,
        `  http:   ${emulator.httpUrl}`,
        `  https:  ${emulator.httpsUrl}   (certificate: ${caFile})`,
        `  token endpoint: ${emulator.httpUrl}/${outputs.tenantId}/oauth2/v2.0/token`,
        `  graph:          ${emulator.httpUrl}/v1.0/`,
        ...(values.outputs ? [`  stack outputs written to ${values.outputs}: agent-user token --outputs ${values.outputs}`] : []),
        "press Ctrl+C to stop",
        "",
      ].join("\n"),
    );
    const signal = await untilSignal();
    await emulator.close();
    io.stdout(`emulator stopped (${signal})\n`);
    return ExitCode.ok;
  } catch (err) {
    return reportFailure(err, io, false);
  }
};
