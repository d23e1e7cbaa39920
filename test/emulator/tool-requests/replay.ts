/**
 * Replays a recorded sequence against an emulator over HTTP, step by step,
 * with the headers and body the tool sends, and reports each answer in the
 * shape its expectation names, so a test compares the two whole.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_IDS, type Directory } from "../directory-client";
import type { Expectation, Sequence, Step } from "./sequence";

/** The client a delegated token names (Microsoft Graph Command Line Tools, which Connect-MgGraph signs in through). */
const TOOL_CLIENT_ID = "14d82eec-204b-4c2f-b7e8-296a70dab67e";

/** What a step saw, in the shape of what it expects. */
export interface Seen {
  step: string;
  status: number;
  body?: Record<string, unknown>;
  has?: Record<string, boolean>;
  count?: number;
}

function fill(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      if (name === "newGuid") return randomUUID();
      const found = values[name];
      if (found === undefined) throw new Error(`replay: no value for {${name}} in ${JSON.stringify(value)}`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, values));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)]));
  return value;
}

function token(d: Directory, sequence: Sequence, step: Step, values: Record<string, string>): string {
  if ((step.as ?? "user") === "user") {
    return d.signed({ idtyp: "user", scp: sequence.scopes.join(" "), oid: DEFAULT_IDS.sponsorId, upn: `ada@${DEFAULT_IDS.domain}`, appid: TOOL_CLIENT_ID });
  }
  if (!values.blueprintAppId || !sequence.blueprintRoles) throw new Error(`replay: "${step.does}" runs as the blueprint, which the sequence has not made or given roles`);
  return d.signed({ idtyp: "app", roles: [...sequence.blueprintRoles], appid: values.blueprintAppId, oid: values.principalId ?? values.blueprintAppId });
}

/** The part of `actual` that `expected` names: an object's keys and a list's entries, at any depth; anything else whole. */
function picked(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual) && expected.some((e) => e !== null && typeof e === "object")) {
    return actual.map((a, i) => (i < expected.length ? picked(a, expected[i]) : a));
  }
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected) && actual !== null && typeof actual === "object" && !Array.isArray(actual)) {
    return Object.fromEntries(Object.keys(expected).map((k) => [k, picked((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k])]));
  }
  return actual;
}

/** The part of `body` the expectation looks at. */
function seen(step: Step, expect: Expectation, status: number, body: Record<string, unknown>): Seen {
  const out: Seen = { step: step.does, status };
  if (expect.body) out.body = picked(body, expect.body) as Record<string, unknown>;
  if (expect.has) out.has = Object.fromEntries(expect.has.map((k) => [k, body[k] !== undefined && body[k] !== null]));
  if (expect.count !== undefined) out.count = Array.isArray(body.value) ? body.value.length : -1;
  return out;
}

/** What the step should see, its placeholders filled. */
function wanted(step: Step, expect: Expectation, values: Record<string, string>): Seen {
  const out: Seen = { step: step.does, status: expect.status };
  if (expect.body) out.body = fill(expect.body, values) as Record<string, unknown>;
  if (expect.has) out.has = Object.fromEntries(expect.has.map((k) => [k, true]));
  if (expect.count !== undefined) out.count = expect.count;
  return out;
}

/** Each step's answer and what it should have been, in order; a failed step's later ones are not sent. */
export async function replay(d: Directory, sequence: Sequence): Promise<Array<{ seen: Seen; wanted: Seen }>> {
  const values: Record<string, string> = {
    sponsorId: DEFAULT_IDS.sponsorId,
    sponsorGroupId: DEFAULT_IDS.sponsorGroupId,
    domain: DEFAULT_IDS.domain,
    tenantId: DEFAULT_IDS.tenantId,
    nextYear: new Date(Date.now() + 365 * 86_400_000).toISOString(),
  };
  const results: Array<{ seen: Seen; wanted: Seen }> = [];
  for (const step of sequence.steps) {
    const body = step.body === undefined ? undefined : JSON.stringify(fill(step.body, values));
    const res = await fetch(`${d.emulator.httpUrl}${fill(step.path, values) as string}`, {
      method: step.method,
      headers: { ...(fill(step.headers ?? {}, values) as Record<string, string>), authorization: `Bearer ${token(d, sequence, step, values)}` },
      body,
    });
    const text = await res.text();
    const answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const result = { seen: seen(step, step.expect, res.status, answer), wanted: wanted(step, step.expect, values) };
    results.push(result);
    if (res.status !== step.expect.status) break;
    for (const [name, property] of Object.entries(step.keep ?? {})) values[name] = String(answer[property]);
  }
  return results;
}
