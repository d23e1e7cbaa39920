import { printable } from "../lib/printable";

/**
 * One line of a `doctor` or `preflight` report: a link of the chain or an
 * item of the checklist, what was found, and for a failure what to do.
 */

export type CheckStatus = "ok" | "warning" | "failed";

export interface Check {
  /** The link or checklist item, e.g. "grant" or "upn domain". */
  link: string;
  status: CheckStatus;
  /** The object the check is about (an object id, a domain, a scope), when there is one. */
  id?: string;
  /** What was found, in one sentence. */
  detail: string;
  /** What to do, for a warning or a failure. */
  fix?: string;
  /** The agent of a fleet this check is about (doctor --all). */
  agent?: string;
}

export const ok = (link: string, id: string | undefined, detail: string): Check => ({ link, status: "ok", id, detail });
export const warning = (link: string, id: string | undefined, detail: string, fix: string): Check => ({ link, status: "warning", id, detail, fix });
export const failed = (link: string, id: string | undefined, detail: string, fix: string): Check => ({ link, status: "failed", id, detail, fix });

/** One line per check, then the fix of each failure and warning. */
export function formatChecks(all: readonly Check[]): string {
  // Ids, details and agent names come from Graph and the outputs file: escaped, so that each check is one line.
  const checks = all.map((c) => ({
    ...c,
    link: printable(c.link),
    id: c.id === undefined ? undefined : printable(c.id),
    detail: printable(c.detail),
    fix: c.fix === undefined ? undefined : printable(c.fix),
    agent: c.agent === undefined ? undefined : printable(c.agent),
  }));
  const width = checks.reduce((widest, c) => Math.max(widest, c.link.length), 0);
  const lines: string[] = [];
  let agent: string | undefined;
  for (const c of checks) {
    if (c.agent !== undefined && c.agent !== agent) lines.push(`agent ${(agent = c.agent)}`);
    const indent = c.agent !== undefined ? "  " : "";
    lines.push(`${indent}${c.status.padEnd(8)} ${c.link.padEnd(width)}  ${c.id ? `${c.id}  ` : ""}${c.detail}`);
  }
  const fixes = checks.filter((c) => c.fix && c.status !== "ok");
  if (fixes.length > 0) {
    lines.push("", "what to do:");
    for (const c of fixes) lines.push(`  ${c.agent !== undefined ? `${c.agent}: ` : ""}${c.link}: ${c.fix}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Whether the report counts as broken: a failure, or a warning when warnings are to fail. */
export function broken(checks: readonly Check[], failOnWarning: boolean): boolean {
  return checks.some((c) => c.status === "failed" || (failOnWarning && c.status === "warning"));
}
