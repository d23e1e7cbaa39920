import { fstatSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { quoteValue } from "../../lib/printable";
import { ExitCode, UsageError } from "../../lib/errors";
import { writeFileWhole, writeSecretFile } from "../../lib/whole-file";
import { FAULT_SPEC_HELP, parseFaultSpec } from "../../emulator/faults";
import { loadTenantFile, SHARE_URLS } from "../../emulator/seed";
import { GRAPH_APP_ROLE_VALUES } from "../../emulator/seed-flows";
import { FEATURE_PERMISSIONS, type Feature } from "../../lib/graph-permissions";
import { didYouMean } from "../../lib/did-you-mean";
import { startEmulator, type Emulator } from "../../emulator/server";
import type { CliIo, Command, CommandArgs } from "../cli-io";
import { defineCommand } from "../command";
import { caPlace, checkPlaces, envFileText, refuseSamePlace, removeStale, StartFiles, testUserFileText, trustPlace } from "../emulator-files";
import { trustBundle } from "../trust-bundle";
import { launcherGone, launcherLinks } from "../launcher";

const HELP = `agent-user emulator: a local tenant (identity provider and Microsoft Graph) on loopback

Usage: agent-user emulator [options]

  --port N            HTTP port (default: a free one)
  --https-port N      HTTPS port (default: a free one)
  --tenant-file FILE  seed the tenant from this JSON (default: the built-in tenant);
                      --tenant FILE is a deprecated spelling of it, and warns
  --agents N          seed the built-in tenant with N agents under its blueprint, each with its
                      agent user and grant; --outputs then has the fleet's "agents" map (default 1)
  --provisioner-roles LIST
                      the built-in provisioner's Microsoft Graph application permissions,
                      comma-separated (default: the kit's set plus doctor's and preflight's
                      reads, as docs/pulumi.md's provisioner section lists them)
  --features LIST     the tenant stands for a stack with these opt-in features, comma-separated:
                      appRoles (its seeded agent holds User.Read.All on Graph) and onBehalfOf (its
                      blueprint exposes access_agent, its agent may act for the seeded person);
                      the --outputs file declares them, and the built-in provisioner also holds
                      their permissions (AppRoleAssignment.ReadWrite.All;
                      AgentIdentityBlueprint.UpdateAuthProperties.All)
  --refuse-blueprint-secrets
                      a tenant policy that refuses passwords and certificates on blueprints:
                      addPassword answers 400, so only credential managedIdentity works
  --faults SPEC       inject faults, ${FAULT_SPEC_HELP.replace(/\n/g, "\n                      ")}
  --outputs FILE      write the seeded tenant as stack-output JSON (mode 0600: it holds a secret);
                      an earlier run's file is removed at start, and the new one written whole
                      once the emulator listens; anything at FILE other than a regular file (a
                      link, directory, device, FIFO or socket) is exit 2, with nothing removed
  --https             the --outputs file names the https URLs (authorityUrl, graphUrl) and the
                      certificate (caFile), so that SDK code given NODE_EXTRA_CA_CERTS=CAFILE
                      runs over TLS unchanged (default: the http URLs)
  --env-out FILE      write ARM_TENANT_ID, ARM_CLIENT_ID and ARM_CLIENT_SECRET of the seeded
                      provisioner, ARM_METADATA_HOSTNAME (the HTTPS listener, as the azuread
                      provider's cloud) and SSL_CERT_FILE and NODE_EXTRA_CA_CERTS (mode 0600),
                      so that \`set -a; . FILE; set +a\` prepares a shell for agent-user
                      doctor, agent-user preflight and \`pulumi up\`; both variables name
                      emulator-trust.pem beside the certificate: the trust they named before
                      (else the system's roots) plus the certificate, so the shell keeps its
                      own; an earlier run's file is removed at start, as for --outputs
  --test-user-out FILE
                      TEST ONLY: write AGENT_USER_TEST_TOKEN_URL, _CLIENT_ID, _USERNAME, _PASSWORD
                      and _SCOPE (mode 0600): the seeded person's password sign-in (the resource
                      owner password grant) through the seeded public client, for a token whose
                      audience is the blueprint, which agent-user token --on-behalf-of takes;
                      the person has a password only with this flag or --features onBehalfOf;
                      an earlier run's file is removed at start, as for --outputs
  --ca-file FILE      where to write the HTTPS certificate (default: emulator-ca.pem beside
                      --outputs, else in a new directory under the system temp directory);
                      trust it with NODE_EXTRA_CA_CERTS=FILE

Each file goes into a directory that exists (only the certificate's are made), and no two of
them (nor --tenant-file) may be one file: exit 2, naming both. A start refused after it wrote
some of them removes those again.

It blocks: it serves until SIGINT, SIGTERM or SIGHUP (its terminal closes), or until the
process that started it goes away (its parent exits; the npx or npm that ran it through a
shell exits, even when killed; or its standard input is a pipe that closes), then exits 0.
A second stop signal while it stops is ignored: it still exits 0, its temp directory gone.
In a script, start it in the background and wait for the --outputs file:
  agent-user emulator --outputs outputs.json & pid=$!
  while [ ! -s outputs.json ]; do sleep 0.2; done
  ...; kill $pid

Examples:
  agent-user emulator --outputs outputs.json
  agent-user emulator --port 8400 --faults latency=50,429=2,retry-after=1
  agent-user emulator --tenant-file tenant.json --faults lose=1,method=POST,on=graph
  agent-user emulator --outputs outputs.json --env-out arm.env --faults break=grant-other-user
`;

function port(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`${name} must be a port number from 0 to 65535, got ${quoteValue(value)}`);
  return n;
}

/** At most this many agents: each is three store entries, and a fleet bench uses 1,000. */
const MAX_AGENTS = 10_000;

/** Every application permission the emulated Graph publishes. */
const KNOWN_ROLES = GRAPH_APP_ROLE_VALUES;

/** `--provisioner-roles A,B`: permission names the emulated Graph knows, at least one. */
function provisionerRoles(value: string): string[] {
  const roles = [...new Set(value.split(",").map((r) => r.trim()).filter((r) => r !== ""))];
  if (roles.length === 0) throw new UsageError("--provisioner-roles needs at least one application permission, e.g. --provisioner-roles AgentIdentityBlueprint.Read.All");
  const unknown = roles.find((r) => !KNOWN_ROLES.includes(r));
  if (unknown !== undefined) {
    const guess = didYouMean(unknown, KNOWN_ROLES);
    throw new UsageError(
      `--provisioner-roles: ${quoteValue(unknown)} is not a Microsoft Graph application permission the emulator knows${guess ? `; did you mean ${guess}?` : ""}`,
      "give permission names as Microsoft writes them, comma-separated, e.g. AgentIdentityBlueprint.Read.All,AgentIdentityBlueprint.Create",
    );
  }
  return roles;
}

/** `--features A,B`: the opt-in features whose permissions the provisioner also holds. */
function features(value: string): Feature[] {
  const names = [...new Set(value.split(",").map((f) => f.trim()).filter((f) => f !== ""))];
  const known = Object.keys(FEATURE_PERMISSIONS) as Feature[];
  const unknown = names.find((f) => !known.includes(f as Feature));
  if (names.length === 0 || unknown !== undefined) {
    throw new UsageError(`--features takes ${known.join(", ")}, comma-separated${unknown === undefined ? "" : `; got ${quoteValue(unknown)}`}`);
  }
  return names as Feature[];
}

function agentCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_AGENTS) throw new UsageError(`--agents must be a whole number from 1 to ${MAX_AGENTS}, got ${quoteValue(value)}`);
  return n;
}

/**
 * Refuses --env-file, pointing to --env-out. Node reads --env-file itself wherever it stands,
 * even after the script's name (nodejs/node#54232; --env-file-if-exists too): under the bin's
 * `#!/usr/bin/env node`, Node stops with "node: FILE: not found", exit 9, before the CLI starts,
 * when FILE is yet to be written, which is the usual case. Only when FILE exists does the flag
 * reach this command, which refuses it: a flag that works only on a second run is no flag.
 */
function refuseNodeEnvFile(argv: string[]): void {
  const end = argv.indexOf("--");
  const flag = (end < 0 ? argv : argv.slice(0, end)).find((arg) => /^--env-file(-if-exists)?(=|$)/.test(arg))?.replace(/=.*$/, "");
  if (flag === undefined) return;
  const given = flag === "--env-file" ? "" : `${flag} is Node's flag; `;
  throw new UsageError(
    `${given}--env-file was renamed to --env-out: Node reads --env-file itself, even after the command, and stops before agent-user starts when the file does not exist yet`,
    'write the provisioner settings with --env-out FILE; see "agent-user emulator --help"',
    "usage",
  );
}

/**
 * Resolves when the process is asked to stop, or when what launched it goes
 * away: `npx agent-user emulator &` killed in CI, even with SIGKILL, must not
 * leave the emulator serving with its ports open (probes/launcher.ts). SIGHUP
 * too: a closed terminal must not end it at Node's default (exit 129) with its
 * temp directory left behind; nohup is no reason to leave SIGHUP be, as Node
 * resets it to its default at start-up anyway. The signal handlers stay for
 * the rest of the process: a second Ctrl+C, or a supervisor's SIGTERM after
 * it, is taken and ignored while the first stop closes the ports and removes
 * the temp directory, where Node's default would end the process halfway
 * (exit 130 or 143).
 */
export function untilStopped(refused?: AbortSignal): Promise<string> {
  return new Promise((done) => {
    const links = launcherLinks();
    const watch = setInterval(() => launcherGone(links) && stop("the process that started it went away"), 500);
    const stdinIsPipe = (() => {
      try {
        const stdin = fstatSync(0);
        // A shell pipe is a FIFO; a pipe from Node's child_process is a socket. A terminal or /dev/null is neither.
        return stdin.isFIFO() || stdin.isSocket();
      } catch {
        return false;
      }
    })();
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) return;
      stopping = true;
      clearInterval(watch);
      if (stdinIsPipe) process.stdin.pause();
      done(why);
    };
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const signal of signals) process.on(signal, stop);
    if (stdinIsPipe) process.stdin.on("end", () => stop("standard input closed")).resume();
    // A start refused after this (its --outputs file could not be written) serves nothing: nothing is left listening for it.
    refused?.addEventListener("abort", () => {
      for (const signal of signals) process.off(signal, stop);
      stop("its start was refused");
    });
  });
}

/** What the flags ask for, checked before anything is started or written. */
interface EmulatorPlan {
  values: CommandArgs<typeof EMULATOR_OPTIONS, false>["values"];
  tenant: ReturnType<typeof loadTenantFile> | undefined;
  agents: number | undefined;
  roles: string[] | undefined;
  declared: Feature[] | undefined;
  faults: ReturnType<typeof parseFaultSpec>;
  listen: { port: number | undefined; httpsPort: number | undefined };
  outputsFile: string | undefined;
  envFile: string | undefined;
  testUserFile: string | undefined;
  /** The --tenant-file (or --tenant) read, absolute: no file of the run may replace it. */
  tenantPath: string | undefined;
}

/** The emulator's flags, as node:util parseArgs options. */
const EMULATOR_OPTIONS = {
  port: { type: "string" },
  "https-port": { type: "string" },
  "tenant-file": { type: "string" },
  tenant: { type: "string" },
  agents: { type: "string" },
  "provisioner-roles": { type: "string" },
  features: { type: "string" },
  "refuse-blueprint-secrets": { type: "boolean" },
  faults: { type: "string" },
  outputs: { type: "string" },
  "env-out": { type: "string" },
  "test-user-out": { type: "string" },
  "ca-file": { type: "string" },
  https: { type: "boolean" },
} as const;

/** The flags checked against each other; a refusal is a UsageError naming them. */
function planOf(values: EmulatorPlan["values"], io: CliIo): EmulatorPlan {
  if (values.tenant !== undefined) {
    if (values["tenant-file"] !== undefined) throw new UsageError("--tenant is the old spelling of --tenant-file; give only --tenant-file");
    // Everywhere else --tenant is a tenant id: the emulator's file meaning is a deprecated spelling, and warns.
    io.stderr("agent-user emulator: --tenant FILE is deprecated, use --tenant-file FILE (--tenant goes in the next release)\n");
  }
  const tenantFile = values["tenant-file"] ?? values.tenant;
  const agents = values.agents === undefined ? undefined : agentCount(values.agents);
  if (agents !== undefined && tenantFile) throw new UsageError("--agents seeds the built-in tenant; a --tenant-file lists its own agents", "give one of --agents and --tenant-file");
  const roles = values["provisioner-roles"] === undefined ? undefined : provisionerRoles(values["provisioner-roles"]);
  for (const flag of ["provisioner-roles", "features"] as const) {
    if (values[flag] !== undefined && tenantFile) throw new UsageError(`--${flag} sets the built-in tenant's provisioner; a --tenant-file gives its own graphAppRoles`, `give one of --${flag} and --tenant-file`);
  }
  const declared = values.features === undefined ? undefined : features(values.features);
  const faults = values.faults ? parseFaultSpec(values.faults) : { faults: {}, breaks: [] };
  const outputsFile = values.outputs === undefined ? undefined : resolve(io.cwd, values.outputs);
  if (values.https === true && !outputsFile) throw new UsageError("--https chooses the URLs the --outputs file names; give --outputs FILE too");
  const envFile = values["env-out"] === undefined ? undefined : resolve(io.cwd, values["env-out"]);
  const testUserFile = values["test-user-out"] === undefined ? undefined : resolve(io.cwd, values["test-user-out"]);
  const listen = { port: port("--port", values.port), httpsPort: port("--https-port", values["https-port"]) };
  const tenantPath = tenantFile ? resolve(io.cwd, tenantFile) : undefined;
  const tenant = tenantPath ? loadTenantFile(tenantPath) : undefined;
  return { values, tenant, agents, roles, declared, faults, listen, outputsFile, envFile, testUserFile, tenantPath };
}

/** The emulator the plan asks for, listening; a port in use is a UsageError naming its flag. */
function startPlanned(plan: EmulatorPlan): Promise<Emulator> {
  const { faults, listen } = plan;
  return startEmulator({
    ...listen,
    tenant: plan.tenant,
    agents: plan.agents,
    faults: faults.faults,
    replicationLagMs: faults.lagMs,
    listLagMs: faults.listLagMs,
    breaks: faults.breaks,
    provisionerRoles: plan.roles,
    features: plan.declared,
    // The test sign-in file asks for a person who signs in by password; without it (or onBehalfOf) no one has one.
    testUser: plan.testUserFile !== undefined,
    refuseBlueprintSecrets: plan.values["refuse-blueprint-secrets"] === true,
  }).catch((err: unknown) => {
    const e = err as NodeJS.ErrnoException & { port?: number };
    if (e.code !== "EADDRINUSE") throw err;
    const flag = e.port !== undefined && e.port === listen.httpsPort ? "--https-port" : "--port";
    throw new UsageError(`port ${e.port ?? "?"} is in use; choose another ${flag}, or omit it for a free one`);
  });
}

/** Runs `write`; when it throws, the files this start wrote go and the emulator is closed, so a refused start leaves nothing written or running. */
async function orUndo(emulator: Emulator, files: StartFiles, write: () => void): Promise<void> {
  try {
    write();
  } catch (err) {
    files.undo();
    await emulator.close();
    throw err;
  }
}

/** What the emulator says once it listens: where it is, and what was written. */
function banner(emulator: Emulator, plan: EmulatorPlan, tenantId: string, caPath: string): string {
  const { values } = plan;
  return [
    `emulator listening (tenant ${tenantId})`,
    `  http:   ${emulator.httpUrl}`,
    `  https:  ${emulator.httpsUrl}   (certificate: ${caPath})`,
    `  token endpoint: ${emulator.httpUrl}/${tenantId}/oauth2/v2.0/token`,
    `  graph:          ${emulator.httpUrl}/v1.0/`,
    ...(values.outputs ? [`  stack outputs written to ${values.outputs}: agent-user token --outputs ${values.outputs}`] : []),
    ...(values["env-out"] ? [`  provisioner settings written to ${values["env-out"]}: set -a; . ${values["env-out"]}; set +a`] : []),
    ...(values["test-user-out"] ? [`  test-only sign-in of the seeded person written to ${values["test-user-out"]}`] : []),
    ...(plan.faults.breaks.length > 0 ? [`  broken links: ${plan.faults.breaks.join(", ")} (agent-user doctor --outputs FILE names them)`] : []),
    "  shared files, for agent-user comments:",
    ...Object.values(SHARE_URLS).map((url) => `    ${url}`),
    "press Ctrl+C to stop",
    "",
  ].join("\n");
}

/** Serves until a stop signal, then closes; the signal is what stopped it. */
async function serve(values: EmulatorPlan["values"], io: CliIo): Promise<string> {
  // A certificate is made anew at every start: a directory made to hold it goes when the emulator stops.
  let madeDir: string | undefined;
  try {
    const plan = planOf(values, io);
    const { outputsFile, envFile, testUserFile } = plan;
    const ca = caPlace(values["ca-file"], outputsFile, io.cwd);
    madeDir = ca.madeDir;
    // The trust bundle an --env-out file names stands beside the certificate.
    const trust = envFile ? trustPlace(ca) : undefined;
    refuseSamePlace([
      { path: plan.tenantPath, who: "--tenant-file" },
      { path: outputsFile, who: "--outputs" },
      { path: envFile, who: "--env-out" },
      { path: testUserFile, who: "--test-user-out" },
      ca,
      ...(trust ? [trust] : []),
    ]);
    checkPlaces([[outputsFile, "--outputs"], [envFile, "--env-out"], [testUserFile, "--test-user-out"]], ca, trust);
    // An earlier run's files would pass a wait loop (`while [ ! -s outputs.json ]`) at once, with its old ports.
    if (outputsFile) removeStale(outputsFile, "--outputs");
    if (envFile) removeStale(envFile, "--env-out");
    if (testUserFile) removeStale(testUserFile, "--test-user-out");
    const emulator = await startPlanned(plan);
    const files = new StartFiles();
    // The certificate is written here, not by startEmulator: a refused place is then a usage error, with the emulator closed.
    // Before the stop signals are listened for: a refused file ends the command here, with nothing left running.
    await orUndo(emulator, files, () => {
      // Everything each file needs is found before any is written: a refused run leaves none of them behind.
      const user = testUserFile ? emulator.testUser() : undefined;
      if (testUserFile && !user) throw new UsageError("--test-user-out: the tenant has no person with a password, public client and blueprint exposing an API");
      const provisioner = envFile ? emulator.provisioner() : undefined;
      if (envFile && !provisioner) throw new UsageError("--env-out: the tenant has no provisioner application (a plain application with a secret and Graph application permissions)");
      const bundle = envFile ? trustBundle(emulator.caPem, io.env).text : undefined;
      // Whole or not at all: a full disk leaves no half a certificate for NODE_EXTRA_CA_CERTS to fail on.
      files.makeDirsFor(ca);
      files.add(ca.path, () => writeFileWhole(ca.path, emulator.caPem, { mode: 0o644, label: ca.label }));
      if (testUserFile) files.add(testUserFile, () => writeSecretFile(testUserFile, testUserFileText(user!, values.https === true ? emulator.httpsUrl : emulator.httpUrl), "--test-user-out"));
      if (!envFile) return;
      files.add(trust!.path, () => writeFileWhole(trust!.path, bundle!, { mode: 0o644, label: trust!.label }));
      files.add(envFile, () => writeSecretFile(envFile, envFileText(provisioner!, new URL(emulator.httpsUrl).host, trust!.path), "--env-out"));
    });
    // Listen for the stop signals before saying it is ready: a launcher that stops it at once must find them.
    const refused = new AbortController();
    const stopped = untilStopped(refused.signal);
    const outputs = emulator.outputs(values.https === true ? "https" : "http");
    // The outputs hold the blueprint secret, and are the ready signal of a background start: written last, whole.
    // caFile is the emulator's own key: the kit's readers of stack outputs ignore it.
    const written = values.https === true ? { ...outputs, caFile: ca.path } : outputs;
    if (outputsFile) {
      await orUndo(emulator, files, () => files.add(outputsFile, () => writeSecretFile(outputsFile, `${JSON.stringify(written, null, 2)}\n`, "--outputs"))).catch((err: unknown) => {
        refused.abort();
        throw err;
      });
    }
    io.stdout(banner(emulator, plan, outputs.tenantId, ca.path));
    const signal = await stopped;
    io.stdout(`emulator stopping (${signal})\n`);
    await emulator.close();
    return signal;
  } finally {
    if (madeDir) rmSync(madeDir, { recursive: true, force: true });
  }
}

export const run: Command = defineCommand({
  name: "emulator",
  options: EMULATOR_OPTIONS,
  help: HELP,
  precheck: refuseNodeEnvFile,
  run: ({ values }, io) => serve(values, io),
  report: (signal, io) => {
    io.stdout(`emulator stopped (${signal})\n`);
    return ExitCode.ok;
  },
});
