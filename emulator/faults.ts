import { UsageError } from "../lib/errors";

/** Which surface a fault applies to. */
export type FaultTarget = "all" | "token" | "graph";

export interface FaultConfig {
  /** Added before every answer. */
  latencyMs: number;
  /** The next N requests get 429 with Retry-After. */
  throttle: number;
  retryAfterS: number;
  /** The next N requests get 503. */
  unavailable: number;
  /** The next N requests have their connection destroyed without an answer. */
  drop: number;
  /**
   * The next N requests are processed (a POST commits its object), then their
   * connection is destroyed before the answer: the client cannot tell whether
   * anything happened, as when a response is lost on the way back.
   */
  lose: number;
  target: FaultTarget;
  /** Only requests with this method take the counted faults above; any method when absent. */
  method?: string;
  /** Token endpoint rate limit: requests per second per tenant (burst the same); none when absent. */
  idpRate?: number;
  /** Graph rate limit: requests per second per calling application (azp/appid of a token the emulator signed); none when absent. */
  graphRate?: number;
}

export type FaultAction = { kind: "none" } | { kind: "throttle" | "unavailable"; retryAfterS: number } | { kind: "drop" } | { kind: "lose" };

export const NO_FAULTS: FaultConfig = { latencyMs: 0, throttle: 0, retryAfterS: 1, unavailable: 0, drop: 0, lose: 0, target: "all" };

const METHODS: readonly string[] = ["GET", "POST", "PATCH", "PUT", "DELETE"];

/** The links of the chain `break=LINK` breaks in the seeded tenant (emulator/breaks.ts), for `agent-user doctor` to find. */
export const BROKEN_LINKS = ["blueprint-secret-expired", "grant-other-user", "user-other-parent", "identity-disabled", "sponsor-deleted"] as const;
export type BrokenLink = (typeof BROKEN_LINKS)[number];

export interface ParsedFaults {
  faults: Partial<FaultConfig>;
  /** Replication lag, which the store enforces. */
  lagMs?: number;
  /** How long new objects stay out of Graph's lists, which the store enforces. */
  listLagMs?: number;
  /** Links to break in the seeded tenant, in the order given, each once. */
  breaks: BrokenLink[];
}

export const FAULT_SPEC_HELP = `a comma-separated list of:
  latency=MS       added latency per request (e.g. latency=50 or latency=0.2s)
  429=N            the next N requests answer 429 Too Many Requests
  retry-after=S    the Retry-After seconds sent with 429 and 503 (default 1)
  503=N            the next N requests answer 503 Service Unavailable
  drop=N           the next N connections are dropped with no answer
  lose=N           the next N requests are processed, then their connection is dropped
                   before the answer (a create commits, but the client never hears of it)
  lag=S            replication lag: for S seconds new objects are unknown to the token
                   endpoint and to Graph reads of directory objects by id, and new or
                   changed grants do not reach the token endpoint (e.g. lag=5 or lag=500ms)
  list-lag=S       for S seconds new objects are missing from Graph's lists, $filter included
  on=token|graph|all   which surface the request faults apply to (default all)
  method=POST      only requests with this method take 429, 503, drop and lose (default any)
  idp-rate=N       token endpoint: N requests/s per tenant (burst N), then 429 with Retry-After
  graph-rate=N     Graph: N requests/s per calling application (burst N), then 429 TooManyRequests;
                   tokens the emulator did not sign share one bucket
  break=LINK       break one link of the seeded chain (repeatable), for agent-user doctor:
                   ${BROKEN_LINKS.join(", ")}
durations are at most 2147483647 ms (about 24.8 days), counts and rates at most 2^53-1`;

/**
 * The longest wait a fault can ask for: latency waits on setTimeout, which
 * takes at most 2^31-1 ms and fires after about 1 ms for anything longer; lag
 * keeps the same bound, one rule for every duration.
 */
const MAX_DURATION_MS = 2 ** 31 - 1;

function duration(key: string, value: string, unit: "ms" | "s"): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value);
  if (!m) throw new UsageError(`--faults: ${key}=${value} is not a duration`);
  const n = Number(m[1]);
  const ms = (m[2] ?? unit) === "s" ? n * 1000 : n;
  if (!(ms <= MAX_DURATION_MS)) {
    throw new UsageError(`--faults: ${key}=${value} is out of range: give 0 to ${MAX_DURATION_MS} ms (about 24.8 days, the longest timer Node can set)`);
  }
  return ms;
}

/** Counts and rates are exact up to here; past it, the number the emulator holds is not the one given. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

function count(key: string, value: string, min = 0): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--faults: ${key}=${value} is not a whole number`);
  const n = Number(value);
  if (n < min || n > MAX_COUNT) throw new UsageError(`--faults: ${key}=${value} is out of range: give a whole number from ${min} to ${MAX_COUNT}`);
  return n;
}

/** Parses `--faults` (see FAULT_SPEC_HELP). */
export function parseFaultSpec(spec: string): ParsedFaults {
  const out: ParsedFaults = { faults: {}, breaks: [] };
  for (const part of spec.split(",").map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? undefined : part.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--faults: "${part}" is not key=value\n${FAULT_SPEC_HELP}`);
    switch (key) {
      case "latency":
        out.faults.latencyMs = duration(key, value, "ms");
        break;
      case "429":
        out.faults.throttle = count(key, value);
        break;
      case "retry-after":
        out.faults.retryAfterS = count(key, value);
        break;
      case "503":
        out.faults.unavailable = count(key, value);
        break;
      case "drop":
        out.faults.drop = count(key, value);
        break;
      case "lose":
        out.faults.lose = count(key, value);
        break;
      case "method":
        if (!METHODS.includes(value.toUpperCase())) throw new UsageError(`--faults: method=${value} must be one of ${METHODS.join(", ")}`);
        out.faults.method = value.toUpperCase();
        break;
      case "idp-rate":
      case "graph-rate": {
        if (value === "0") throw new UsageError(`--faults: ${key}=0 would refuse every request; give at least 1`);
        out.faults[key === "idp-rate" ? "idpRate" : "graphRate"] = count(key, value, 1);
        break;
      }
      case "lag":
        out.lagMs = duration(key, value, "s");
        break;
      case "list-lag":
        out.listLagMs = duration(key, value, "s");
        break;
      case "break":
        if (!(BROKEN_LINKS as readonly string[]).includes(value)) throw new UsageError(`--faults: break=${value} must be one of ${BROKEN_LINKS.join(", ")}`);
        if (!out.breaks.includes(value as BrokenLink)) out.breaks.push(value as BrokenLink);
        break;
      case "on":
        if (value !== "token" && value !== "graph" && value !== "all") throw new UsageError(`--faults: on=${value} must be token, graph or all`);
        out.faults.target = value;
        break;
      default:
        throw new UsageError(`--faults: unknown fault "${key}"\n${FAULT_SPEC_HELP}`);
    }
  }
  return out;
}

/** Fault state: counters that each matching request consumes. */
export class Faults {
  private config: FaultConfig = { ...NO_FAULTS };

  set(faults: Partial<FaultConfig>): void {
    this.config = { ...this.config, ...faults };
  }

  reset(): void {
    this.config = { ...NO_FAULTS };
  }

  /** The configuration in force (read by the rate limits). */
  current(): Readonly<FaultConfig> {
    return this.config;
  }

  latencyFor(surface: "token" | "graph" | "other"): number {
    return this.applies(surface) ? this.config.latencyMs : 0;
  }

  /** Takes the next fault for a `method` request on `surface`, consuming one count. */
  take(surface: "token" | "graph" | "other", method: string): FaultAction {
    const c = this.config;
    if (!this.applies(surface) || (c.method !== undefined && c.method !== method)) return { kind: "none" };
    if (c.drop > 0) return c.drop--, { kind: "drop" };
    if (c.lose > 0) return c.lose--, { kind: "lose" };
    if (c.throttle > 0) return c.throttle--, { kind: "throttle", retryAfterS: c.retryAfterS };
    if (c.unavailable > 0) return c.unavailable--, { kind: "unavailable", retryAfterS: c.retryAfterS };
    return { kind: "none" };
  }

  private applies(surface: "token" | "graph" | "other"): boolean {
    return surface !== "other" && (this.config.target === "all" || this.config.target === surface);
  }
}
