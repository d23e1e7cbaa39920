import { performance } from "node:perf_hooks";
import { AgentUserError, ExitCode, UsageError } from "../lib/errors";
import type { FleetAgent } from "../lib/stack-outputs";
import { optionProblem } from "../lib/provider-options";
import type { AgentUserAccessToken, AgentUserTokenProvider } from "../lib/token-provider";
import { printable, quoteValue } from "../lib/printable";
import { mapLimit } from "./map-limit";

/** `token --all` mints for this many agents at a time unless --concurrency says otherwise. */
export const DEFAULT_CONCURRENCY = 8;
/** Each agent in flight holds one connection to the identity provider. */
const MAX_CONCURRENCY = 1000;

export function concurrencyOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  const n = value.trim() === "" ? NaN : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, got ${quoteValue(value)}`, `the default is ${DEFAULT_CONCURRENCY}`);
  }
  return n;
}

/**
 * The exit code of a fleet run with failures is its most severe failure's, most
 * severe first: a wrong input in the file must be fixed before anything else
 * can be judged; a token for the wrong identity is a security fault; a
 * rejection needs a change in the tenant; unreachable may pass on a re-run.
 */
export const FLEET_SEVERITY: readonly ExitCode[] = [ExitCode.usage, ExitCode.badClaims, ExitCode.rejected, ExitCode.unreachable];

/** 0 when every agent is fine, else the most severe of the failures' exit codes by FLEET_SEVERITY (any other code ranks last). */
export function fleetExitCode(codes: readonly number[]): number {
  const rank = (code: number) => {
    const at = (FLEET_SEVERITY as readonly number[]).indexOf(code);
    return at < 0 ? FLEET_SEVERITY.length : at;
  };
  return codes.filter((code) => code !== ExitCode.ok).reduce((worst, code) => (worst === ExitCode.ok || rank(code) < rank(worst) ? code : worst), ExitCode.ok);
}

/** One agent's outcome: its token, or the error that names the step and code. */
export type FleetResult = { name: string; ms: number } & ({ ok: true; token: AgentUserAccessToken } | { ok: false; error: AgentUserError });

/**
 * Mints a token for every agent, `concurrency` agents at a time, through the
 * one provider: T1 (and T2) are cached and shared per agent identity, so an
 * identity costs them once however many tokens it is minted.
 * An agent's failure is its result; anything else is a bug and is thrown.
 */
export function mintFleet(
  provider: AgentUserTokenProvider,
  agents: readonly FleetAgent[],
  options: {
    concurrency: number;
    source: string;
    onResult?: (result: FleetResult) => void;
    /** The token minted for each agent; its agent user token by default. */
    mint?: (provider: AgentUserTokenProvider, agent: FleetAgent) => Promise<AgentUserAccessToken>;
  },
): Promise<FleetResult[]> {
  const mint = options.mint ?? ((p: AgentUserTokenProvider, { agentIdentityId, agentUser }: FleetAgent) => p.getToken({ agentIdentityId, agentUser }));
  return mapLimit(agents, options.concurrency, async (agent) => {
    const { name, agentIdentityId, agentUser } = agent;
    const started = performance.now();
    let result: FleetResult;
    try {
      checkFleetAgent(name, agentIdentityId, agentUser, options.source);
      const token = await mint(provider, agent);
      result = { name, ok: true, ms: Math.round(performance.now() - started), token };
    } catch (err) {
      if (!(err instanceof AgentUserError)) throw err;
      result = { name, ok: false, ms: Math.round(performance.now() - started), error: err };
    }
    options.onResult?.(result);
    return result;
  });
}

/** A malformed id fails its own agent (exit 2, nothing sent for it); the rest of the fleet is still minted. */
export function checkFleetAgent(name: string, agentIdentityId: string, agentUser: string, source: string): void {
  const problem = optionProblem("agentIdentityId", agentIdentityId, '"agentIdentityId"') ?? optionProblem("agentUser", agentUser, '"agentUserId"');
  if (problem) throw new UsageError(problem, `check agents.${printable(name)} of the stack outputs`, `${source}: agent ${printable(name)}`);
}
